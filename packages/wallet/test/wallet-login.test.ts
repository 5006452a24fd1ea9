import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Auth, MemoryStorage } from '@portico/auth';
import { type AuthServer, startAuthServer } from '@portico/auth-server';
import { type Anvil, type SolanaLedger, startAnvil, startSolanaLedger } from '@portico/devchain';
import { createMultichainClient, createWebSocketTransport, type SessionScopes } from '@portico/multichain';
import { assertAccessible, launchChromium, tempDir } from '@portico/testkit';
import { base58 } from '@scure/base';
import {
  address,
  appendTransactionMessageInstruction,
  type Blockhash,
  compileTransaction,
  createNoopSigner,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import type { Browser, Page } from 'playwright-core';
import { createPublicClient, type Hex, hexToBytes, http, numberToHex, parseEther, verifyMessage } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { startWallet, type Wallet } from '../src/index.ts';
import { apiError, detailsOf, nextSessionChanged, stopAnvil } from './helpers.ts';

const CLIENT_ID = 'BKvN1xgP3cvZIyA2xWTIyq6l5u1WgkVh-0y8y5Ohz-BNcTCV5G4vmS8mrx0uGO4L0CUyojLlJd_2nxLdG3wAaRw';
const EVM = 'eip155:31337';
const ORIGIN = 'https://login-dapp.test';

/** JSON-RPC over HTTP (anvil, the Solana ledger). */
async function rpc<T>(url: string, method: string, params: unknown[]): Promise<T> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await response.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(body.error.message);
  return body.result as T;
}

/** The addresses of the keys @portico/auth gives a user for CLIENT_ID (derived here, not by the wallet). */
function addressesOf(auth: Auth) {
  const privKey = auth.getPrivKey();
  const ed25519PrivKey = auth.getEd25519PrivKey(); // seed ‖ public key, hex
  return {
    eip155: privateKeyToAccount(`0x${privKey}`).address,
    solana: base58.encode(hexToBytes(`0x${ed25519PrivKey.slice(64)}`)),
    privKey,
    ed25519PrivKey,
  };
}

// The wallet logs its user in through a real auth service (development login page in Chromium, and
// a custom-JWT verifier headlessly); a dapp over WebSocket with Portico's client; real anvil and the
// Solana dev ledger; the top-up hook funds with anvil_setBalance and the ledger's airdrop.
describe('a wallet the user’s login backs', { timeout: 180_000 }, () => {
  const dir = tempDir('portico-wallet-login-');
  let anvil: Anvil;
  let ledger: SolanaLedger;
  let authServer: AuthServer;
  let wallet: Wallet;
  let browser: Browser;
  let page: Page;
  let signJwt: (sub: string) => Promise<string>;
  const logs: string[] = [];

  before(async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'test', alg: 'ES256' };
    signJwt = (sub) =>
      new SignJWT({ sub, email: `${sub}@example.com`, jti: crypto.randomUUID() })
        .setProtectedHeader({ alg: 'ES256', kid: 'test' })
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(privateKey);
    [anvil, ledger, authServer] = await Promise.all([
      startAnvil(),
      startSolanaLedger(),
      startAuthServer({
        dataDir: dir.path,
        masterKey: 'b'.repeat(64),
        verifiers: { jwt: { type: 'jwt', keys: [jwk] } },
        devLogin: true,
      }),
    ]);
    wallet = await startWallet({
      chains: [
        { chainId: EVM, rpcUrl: anvil.url },
        { chainId: ledger.chainId, rpcUrl: ledger.url },
      ],
      auth: { sdkUrl: authServer.sdkUrl, clientId: CLIENT_ID },
      fund: async (namespace, account) => {
        if (namespace === 'eip155')
          await rpc(anvil.url, 'anvil_setBalance', [account, numberToHex(parseEther('100'))]);
        else await rpc(ledger.url, 'requestAirdrop', [account, 2_000_000_000]);
      },
      onLog: (line) => logs.push(line),
    });
    browser = await launchChromium();
    // bypassCSP lets axe-core be injected; the page itself runs under its own CSP.
    page = await (await browser.newContext({ bypassCSP: true })).newPage();
    await page.goto(wallet.approvalUrl);
  });
  after(async () => {
    await browser?.close();
    await wallet?.close();
    await authServer?.close();
    await ledger?.stop();
    await stopAnvil(anvil);
    dir.cleanup();
  });

  /** What @portico/auth gives a user of the development login for CLIENT_ID (its own login, in its own tab). */
  async function devLoginAddresses(email: string) {
    const tab = await browser.newPage();
    const auth = await Auth.create(
      { clientId: CLIENT_ID, network: 'sapphire_devnet', sdkUrl: authServer.sdkUrl },
      {
        storage: new MemoryStorage(),
        openUrl: async (url, redirectUrl) => {
          await tab.goto(url);
          await tab.click('button[data-provider="portico-dev"]');
          await tab.fill('#email', email);
          await tab.click('#dev-submit');
          await tab.waitForURL((u) => u.href.startsWith(redirectUrl));
          return tab.url();
        },
      },
    );
    await auth.login();
    const addresses = addressesOf(auth);
    await auth.logout();
    await tab.close();
    return addresses;
  }

  /** The approval page's API, as the page calls it (bearer token from the approval URL). */
  async function api(path: string, body: unknown) {
    const [base, token] = wallet.approvalUrl.split('/approve#token=');
    const response = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  let dapp: ReturnType<typeof createMultichainClient>;

  /** The dapp asks for a session; the person approves it on the page with the preselected accounts. */
  async function connect(): Promise<SessionScopes> {
    const session = dapp.createSession({
      optionalScopes: {
        [EVM]: { methods: ['personal_sign'], notifications: [] },
        [ledger.chainId]: { methods: ['signAndSendTransaction'], notifications: [] },
      },
    });
    await page
      .getByRole('region', { name: `Connection request from ${ORIGIN}` })
      .getByRole('button', { name: 'Approve' })
      .click();
    return (await session).sessionScopes;
  }

  test('locked at start: the page offers "Log in" and "Use dev accounts" and lists no account', async () => {
    await page.getByRole('button', { name: 'Log in' }).waitFor();
    await page.getByRole('button', { name: 'Use dev accounts' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Log out' }).isVisible(), false);
    assert.equal(
      await page.locator('#account-summary').textContent(),
      'Locked: log in to use your accounts, or use the dev accounts.',
    );
    assert.equal(await page.locator('ul.accounts').count(), 0);
    assert.deepEqual(wallet.accounts, { eip155: [], solana: [] });
    assert.equal(wallet.accountSource, 'none');
    await assertAccessible(page, 'locked');
  });

  let alice: ReturnType<typeof addressesOf>;

  test('"Log in" opens the auth service’s login page in a popup; the page then shows the user’s eip155 and Solana accounts, the keys @portico/auth gives that user', async () => {
    const popupOpened = page.waitForEvent('popup');
    await page.getByRole('button', { name: 'Log in' }).click();
    const popup = await popupOpened;
    await popup.waitForURL((url) => url.href.startsWith(`${authServer.sdkUrl}/start`));
    // The page's script names the app once its settings arrive; until then the title is "Sign in".
    await popup.waitForFunction(() => document.title === 'Sign in to Portico wallet', null, {
      timeout: 30_000,
    });
    await popup.click('button[data-provider="portico-dev"]');
    await popup.fill('#email', 'alice@example.com');
    await popup.click('#dev-submit');
    await popup.waitForEvent('close'); // the wallet's callback page took the result and closed it

    await page.locator('#account-summary').getByText('Logged in as alice@example.com.').waitFor();
    // The live region tells screen-reader users the login finished.
    await page.getByRole('status').getByText('Logged in as alice@example.com.').waitFor();
    alice = await devLoginAddresses('alice@example.com');
    assert.deepEqual(wallet.accounts, { eip155: [alice.eip155], solana: [alice.solana] });
    assert.equal(wallet.accountSource, 'login');
    assert.deepEqual(wallet.user, {
      verifier: 'portico-dev',
      verifierId: 'alice@example.com',
      email: 'alice@example.com',
      name: 'alice',
    });
    const evmList = page.getByRole('list', { name: 'Ethereum (eip155) accounts' });
    const solanaList = page.getByRole('list', { name: 'Solana accounts' });
    // Addresses are shown cut in the middle; the whole one is the element's title and accessible name.
    const evmAddress = evmList.locator('code.address');
    assert.equal(await evmAddress.getAttribute('data-address'), alice.eip155);
    assert.equal(await evmAddress.getAttribute('title'), alice.eip155);
    assert.equal(await evmAddress.textContent(), `${alice.eip155.slice(0, 6)}…${alice.eip155.slice(-4)}`);
    const solanaAddress = solanaList.locator('code.address');
    assert.equal(await solanaAddress.getAttribute('data-address'), alice.solana);
    assert.equal(await solanaAddress.textContent(), `${alice.solana.slice(0, 4)}…${alice.solana.slice(-4)}`);
    assert.equal(await page.getByRole('button', { name: 'Log in' }).isVisible(), false);
    await page.getByRole('button', { name: 'Switch user' }).waitFor();
    await page.getByRole('button', { name: 'Log out' }).waitFor();
    await assertAccessible(page, 'logged in');
    // The keys stay in the wallet process: neither its log nor its page ever carries them.
    for (const key of [alice.privKey, alice.ed25519PrivKey]) {
      assert.equal(logs.join('\n').includes(key), false);
      assert.equal((await page.content()).includes(key), false);
    }
  });

  test('"Top up" funds each account through the hook (anvil_setBalance, the ledger’s airdrop) and the page shows the new balances', async () => {
    await page.getByRole('button', { name: `Top up ${alice.eip155}` }).click();
    await page
      .locator(`.balance[data-address="${alice.eip155}"]`)
      .filter({ hasText: '100 ETH on Local EVM chain' })
      .waitFor();
    const chain = createPublicClient({ transport: http(anvil.url) });
    assert.equal(await chain.getBalance({ address: alice.eip155 as Hex }), parseEther('100'));

    await page.getByRole('button', { name: `Top up ${alice.solana}` }).click();
    await page
      .locator(`.balance[data-address="${alice.solana}"]`)
      .filter({ hasText: `2 SOL on ${ledger.chainId}` })
      .waitFor();
    const { value } = await rpc<{ value: number }>(ledger.url, 'getBalance', [alice.solana]);
    assert.equal(value, 2_000_000_000);
  });

  test('a dapp connects to the user’s accounts; personal_sign and a Solana transfer are approved on the page and signed with the user’s keys', async () => {
    dapp = createMultichainClient({
      transport: createWebSocketTransport({ url: wallet.wsUrl, origin: ORIGIN }),
    });
    const scopes = await connect();
    assert.deepEqual(scopes[EVM].accounts, [`${EVM}:${alice.eip155}`]);
    assert.deepEqual(scopes[ledger.chainId].accounts, [`${ledger.chainId}:${alice.solana}`]);

    const signing = dapp.invokeMethod<Hex>({
      scope: EVM,
      request: { method: 'personal_sign', params: ['0x6869', alice.eip155] },
    });
    const signRequest = page.getByRole('region', { name: `Signature request from ${ORIGIN}` });
    assert.equal((await detailsOf(signRequest)).Account, alice.eip155);
    await signRequest.getByRole('button', { name: 'Approve' }).click();
    assert.ok(await verifyMessage({ address: alice.eip155 as Hex, message: 'hi', signature: await signing }));

    const recipient = ledger.devAccounts[0].address;
    const before = (await rpc<{ value: number }>(ledger.url, 'getBalance', [recipient])).value;
    const { value: lifetime } = await rpc<{ value: { blockhash: string; lastValidBlockHeight: number } }>(
      ledger.url,
      'getLatestBlockhash',
      [],
    );
    const transaction = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayer(address(alice.solana), m),
      (m) =>
        setTransactionMessageLifetimeUsingBlockhash(
          {
            blockhash: lifetime.blockhash as Blockhash,
            lastValidBlockHeight: BigInt(lifetime.lastValidBlockHeight),
          },
          m,
        ),
      (m) =>
        appendTransactionMessageInstruction(
          getTransferSolInstruction({
            source: createNoopSigner(address(alice.solana)),
            destination: address(recipient),
            amount: 500_000_000n,
          }),
          m,
        ),
    );
    const sending = dapp.invokeMethod<{ signature: string }>({
      scope: ledger.chainId as `${string}:${string}`,
      request: {
        method: 'signAndSendTransaction',
        params: {
          account: { address: alice.solana },
          transaction: getBase64EncodedWireTransaction(compileTransaction(transaction)),
          scope: ledger.chainId,
        },
      },
    });
    const sendRequest = page.getByRole('region', { name: `Transaction request from ${ORIGIN}` });
    const details = await detailsOf(sendRequest);
    assert.equal(details.Account, alice.solana);
    assert.equal(details['Fee payer'], alice.solana);
    assert.equal(details.Recipient, recipient);
    assert.equal(details.Amount, '0.5 SOL');
    assert.equal(await sendRequest.getByText(`Send 0.5 SOL to ${recipient}`).count(), 1);
    await sendRequest.getByRole('button', { name: 'Approve' }).click();
    const { signature } = await sending;
    const statuses = await rpc<{ value: ({ err: unknown } | null)[] }>(ledger.url, 'getSignatureStatuses', [
      [signature],
    ]);
    assert.equal(statuses.value[0]?.err, null);
    assert.equal(
      (await rpc<{ value: number }>(ledger.url, 'getBalance', [recipient])).value,
      before + 500_000_000,
    );
  });

  test('another user logs in (JWT, headless through the approval API): the dapp hears wallet_sessionChanged and the page shows the new user’s accounts', async () => {
    const heard = nextSessionChanged(dapp);
    const answer = await api('/api/login', { loginProvider: 'jwt', idToken: await signJwt('bob') });
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body, { user: { verifier: 'jwt', verifierId: 'bob', email: 'bob@example.com' } });
    // Alice's accounts left the wallet: the session granted nothing else, so it ended.
    assert.deepEqual(await heard, {});

    const auth = await Auth.create(
      { clientId: CLIENT_ID, network: 'sapphire_devnet', sdkUrl: authServer.sdkUrl },
      { storage: new MemoryStorage() },
    );
    await auth.login({ loginProvider: 'jwt', extraLoginOptions: { id_token: await signJwt('bob') } });
    const bob = addressesOf(auth);
    await auth.logout();
    assert.deepEqual(wallet.accounts, { eip155: [bob.eip155], solana: [bob.solana] });
    await page.locator('#account-summary').getByText('Logged in as bob@example.com.').waitFor();
    await page
      .getByRole('list', { name: 'Ethereum (eip155) accounts' })
      .locator(`code.address[data-address="${bob.eip155}"]`)
      .waitFor();

    const scopes = await connect();
    assert.deepEqual(scopes[EVM].accounts, [`${EVM}:${bob.eip155}`]);
    assert.deepEqual(scopes[ledger.chainId].accounts, [`${ledger.chainId}:${bob.solana}`]);
    const stale = await apiError(
      dapp.invokeMethod({
        scope: EVM,
        request: { method: 'personal_sign', params: ['0x6869', alice.eip155] },
      }),
    );
    assert.equal(stale.code, 4100, 'the previous user’s account no longer signs');
  });

  test('"Log out": the dapp hears wallet_sessionChanged, the wallet holds no accounts and the page offers "Log in" again', async () => {
    const heard = nextSessionChanged(dapp);
    await page.getByRole('button', { name: 'Log out' }).click();
    assert.deepEqual(await heard, {});
    await page.getByRole('button', { name: 'Log in' }).waitFor();
    assert.deepEqual(wallet.accounts, { eip155: [], solana: [] });
    assert.equal(wallet.user, undefined);
    assert.equal(await page.locator('ul.accounts').count(), 0);
  });

  test('"Use dev accounts" holds the dev mnemonic’s accounts again; a dapp connects to them', async () => {
    await page.getByRole('button', { name: 'Use dev accounts' }).click();
    const dev = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
    await page
      .getByRole('list', { name: 'Ethereum (eip155) accounts' })
      .locator(`code.address[data-address="${dev}"]`)
      .waitFor();
    assert.equal(wallet.accountSource, 'dev');
    assert.equal(wallet.accounts.eip155.length, 5);
    const scopes = await connect();
    assert.deepEqual(scopes[EVM].accounts, [`${EVM}:${dev}`]);
    await dapp.revokeSession();
    await dapp.close();
  });
});
