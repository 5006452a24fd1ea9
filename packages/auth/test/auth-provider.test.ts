import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type AuthServer, startAuthServer } from '@portico/auth-server';
import { tempDir, unsignedTransfer } from '@portico/testkit';
import {
  createSolanaRpc,
  devnet,
  generateKeyPairSigner,
  getAddressEncoder,
  getBase58Decoder,
  getPublicKeyFromAddress,
  getTransactionDecoder,
  getTransactionEncoder,
  type SignatureBytes,
  verifySignature,
} from '@solana/kit';
import { verifySignIn } from '@solana/wallet-standard-util';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import {
  createPublicClient,
  createWalletClient,
  custom,
  defineChain,
  http,
  parseEther,
  verifyMessage,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import {
  Auth,
  type AuthInitParams,
  type AuthSolanaAccount,
  type AuthSolanaWallet,
  announceAuthProvider,
  announceAuthSolanaWallet,
  type Eip155Provider,
  MemoryStorage,
  type SolanaProvider,
} from '../src/index.ts';
import { type ChainStack, startChainStack, waitForSignature } from './chain-stack.ts';

const CLIENT_ID = 'BPi5PB_UiIZ-cPz1GtV5i1I2iOSOHuimiXBI0e-Oe_u6X3oVAbCiAZOTEBtTXw4tsluTITPqA8zMsfxIKMjiqNQ';
const local = defineChain({
  id: 31337,
  name: 'local',
  nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
  rpcUrls: { default: { http: ['http://unused.invalid'] } },
});

// Auth wires the providers: a real headless JWT login against the real auth service (custom-JWT
// verifier), real anvil and Solana ledger behind a real gateway.
describe('auth.provider follows the login', { timeout: 120_000 }, () => {
  const dir = tempDir('portico-auth-provider-');
  let stack: ChainStack;
  let service: AuthServer;
  let rpcUrl: (network: string) => string;
  let signingKey: CryptoKey;

  const token = (sub: string) =>
    new SignJWT({ sub, jti: crypto.randomUUID() })
      .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
      .setIssuedAt()
      .sign(signingKey);

  const create = (extra: Partial<AuthInitParams>, storage = new MemoryStorage()) =>
    Auth.create(
      { clientId: CLIENT_ID, network: 'sapphire_devnet', sdkUrl: service.sdkUrl, ...extra },
      { storage },
    );

  const evm = (): Partial<AuthInitParams> => ({
    chainConfig: { chainNamespace: 'eip155', chainId: '0x7a69', rpcTarget: rpcUrl('local'), ticker: 'ETH' },
  });

  // A getter read after an assertion on it: TypeScript would keep the narrowed type otherwise.
  const evmProvider = (auth: Auth) => auth.provider as Eip155Provider;

  before(async () => {
    stack = await startChainStack({ evm: { local: 31337 }, solana: true });
    rpcUrl = (await stack.newKey()).url;
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    signingKey = privateKey as CryptoKey;
    const jwk: JWK = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256' };
    service = await startAuthServer({
      dataDir: dir.path,
      masterKey: 'b'.repeat(64),
      verifiers: { jwt: { type: 'jwt', keys: [jwk] } },
    });
  });
  after(async () => {
    await service?.close();
    await stack?.close();
    dir.cleanup();
  });

  it('appears after login as an EIP-1193 provider of the user’s key, and is gone after logout', async () => {
    const auth = await create(evm());
    assert.equal(auth.provider, null, 'no provider before login');
    await auth.login({ loginProvider: 'jwt', extraLoginOptions: { id_token: await token('alice') } });
    const provider = evmProvider(auth);
    assert.ok(provider, 'a provider after login');
    const user = privateKeyToAccount(`0x${auth.getPrivKey()}`);
    assert.deepEqual(await provider.request({ method: 'eth_accounts' }), [user.address]);
    assert.equal(await provider.request({ method: 'eth_chainId' }), '0x7a69');

    await stack.fundEvm('local', user.address);
    const wallet = createWalletClient({ chain: local, transport: custom(provider), account: user.address });
    const hash = await wallet.sendTransaction({
      to: '0x000000000000000000000000000000000000dEaD',
      value: parseEther('0.01'),
    });
    const receipt = await createPublicClient({
      chain: local,
      transport: http(rpcUrl('local')),
    }).waitForTransactionReceipt({ hash });
    assert.equal(receipt.status, 'success');

    const events: unknown[] = [];
    provider.on('accountsChanged', (accounts) => events.push(['accountsChanged', accounts]));
    provider.on('disconnect', (error) => events.push(['disconnect', error.code]));
    await auth.logout();
    assert.equal(auth.provider, null, 'no provider after logout');
    assert.deepEqual(events, [
      ['accountsChanged', []],
      ['disconnect', 4900],
    ]);
    await assert.rejects(provider.request({ method: 'personal_sign', params: ['0x00', user.address] }), {
      code: 4900,
    });
  });

  it('comes back on restore, honours useCoreKitKey, and announces another user as accountsChanged', async () => {
    const storage = new MemoryStorage();
    const first = await create({ ...evm(), useCoreKitKey: true }, storage);
    await first.login({ loginProvider: 'jwt', extraLoginOptions: { id_token: await token('bob') } });
    const coreKitAddress = privateKeyToAccount(`0x${first.state.coreKitKey}`).address;
    assert.notEqual(coreKitAddress, privateKeyToAccount(`0x${first.state.privKey}`).address);
    assert.deepEqual(await first.provider?.request({ method: 'eth_requestAccounts' }), [coreKitAddress]);

    const restored = await create({ ...evm(), useCoreKitKey: true }, storage);
    const provider = restored.provider as Eip155Provider;
    assert.ok(provider, 'restored session, restored provider');
    assert.deepEqual(await provider.request({ method: 'eth_accounts' }), [coreKitAddress]);

    const changes: string[][] = [];
    provider.on('accountsChanged', (accounts) => changes.push(accounts));
    await restored.login({ loginProvider: 'jwt', extraLoginOptions: { id_token: await token('carol') } });
    assert.equal(restored.provider, provider, 'the same provider object follows the new user');
    const carol = privateKeyToAccount(`0x${restored.state.coreKitKey}`).address;
    assert.deepEqual(changes, [[carol]]);
    assert.deepEqual(await provider.request({ method: 'eth_accounts' }), [carol]);
  });

  it('addChain and switchChain work before and after login, and the provider starts on the chosen chain', async () => {
    const auth = await create(evm());
    auth.addChain({
      chainNamespace: 'eip155',
      chainId: '0x2105',
      rpcTarget: rpcUrl('local'),
      displayName: 'Other',
    });
    assert.throws(() => auth.switchChain({ chainId: '0x1' }), {
      name: 'AuthValidationError',
      field: 'chainId',
    });
    assert.throws(
      () => auth.addChain({ chainNamespace: 'solana', chainId: '0x3', rpcTarget: rpcUrl('solana-local') }),
      { field: 'chainConfig.chainNamespace' },
    );
    auth.switchChain({ chainId: '0x2105' });
    await auth.login({ loginProvider: 'jwt', extraLoginOptions: { id_token: await token('dave') } });
    const provider = auth.provider as Eip155Provider;
    assert.equal(await provider.request({ method: 'eth_chainId' }), '0x2105');
    const changed: string[] = [];
    provider.on('chainChanged', (id) => changed.push(id));
    auth.switchChain({ chainId: '0x7a69' });
    assert.deepEqual(changed, ['0x7a69']);
  });

  it('on solana, signAndSendTransaction of a transfer lands on the ledger, visible with getSignaturesForAddress', async () => {
    const chainId = stack.solana?.chainId as string;
    const auth = await create({
      chainConfig: { chainNamespace: 'solana', chainId, rpcTarget: rpcUrl('solana-local') },
    });
    assert.equal(auth.initParams.chainNamespace, 'solana', 'chainNamespace follows chainConfig');
    await auth.login({ loginProvider: 'jwt', extraLoginOptions: { id_token: await token('erin') } });
    const provider = auth.provider as SolanaProvider;
    const [user] = await provider.requestAccounts();
    assert.equal(user, provider.getSigner().address);
    await stack.airdrop(user, 1_000_000_000);
    const rpc = createSolanaRpc(devnet(rpcUrl('solana-local')));
    const recipient = (await generateKeyPairSigner()).address;
    const tx = await unsignedTransfer(rpcUrl('solana-local'), {
      from: user,
      to: recipient,
      lamports: 1_000_000n,
    });
    const { signature } = await provider.signAndSendTransaction(tx);
    const found = await waitForSignature(rpc, signature, recipient);
    assert.ok(found, 'the transfer is in the recipient’s history');
    await auth.logout();
    assert.equal(auth.provider, null);
    assert.deepEqual(await provider.getAccounts(), []);
  });

  it('is announced with EIP-6963 as one provider across logins; eth_requestAccounts runs the app’s login', async () => {
    // The EIP-6963 events on an EventTarget of Node's own: the same DOM event API a page's window
    // has (the bridge's discovery is tested in Chromium in @portico/wallet).
    const auth = await create(evm());
    const target = new EventTarget();
    const heard: { info: Record<string, string>; provider: unknown }[] = [];
    target.addEventListener('eip6963:announceProvider', (event) => heard.push((event as CustomEvent).detail));
    const icon = 'data:image/svg+xml;base64,PHN2Zy8+';
    const { provider, stop } = announceAuthProvider(
      auth,
      { name: 'Example app', icon, rdns: 'com.example.app' },
      {
        target,
        connect: async () =>
          auth.login({ loginProvider: 'jwt', extraLoginOptions: { id_token: await token('carol') } }),
      },
    );
    assert.equal(heard.length, 1);
    assert.deepEqual(
      { ...heard[0].info, uuid: undefined },
      {
        uuid: undefined,
        name: 'Example app',
        icon,
        rdns: 'com.example.app',
      },
    );
    assert.match(heard[0].info.uuid, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    target.dispatchEvent(new Event('eip6963:requestProvider'));
    assert.equal(heard.length, 2);
    assert.equal(heard[1].provider, provider);

    assert.deepEqual(await provider.request({ method: 'eth_accounts' }), []);
    await assert.rejects(
      provider.request({ method: 'eth_chainId' }),
      (error: { code?: number }) => error.code === 4900,
    );
    const changes: unknown[] = [];
    provider.on('accountsChanged', (accounts) => changes.push(accounts));

    const accounts = await provider.request({ method: 'eth_requestAccounts' });
    const carol = privateKeyToAccount(`0x${auth.getPrivKey()}`);
    assert.deepEqual(accounts, [carol.address]);
    const wallet = createWalletClient({ account: carol.address, chain: local, transport: custom(provider) });
    const signature = await wallet.signMessage({ message: 'found by discovery' });
    assert.ok(await verifyMessage({ address: carol.address, message: 'found by discovery', signature }));

    await auth.logout();
    assert.deepEqual(await provider.request({ method: 'eth_accounts' }), []);
    assert.deepEqual(changes, [[carol.address], []]);

    stop();
    target.dispatchEvent(new Event('eip6963:requestProvider'));
    assert.equal(heard.length, 2, 'no announcement after stop()');
  });

  it('is registered with the Wallet Standard as one wallet across logins: connect runs the login, change follows the user', async () => {
    // The Wallet Standard's window events on an EventTarget of Node's own; the app side is what
    // @wallet-standard/app does (a Chromium page with getWallets() is in solana-standard.browser.test.ts).
    const chainId = stack.solana?.chainId as string;
    const auth = await create({
      chainConfig: { chainNamespace: 'solana', chainId, rpcTarget: rpcUrl('solana-local') },
    });
    const target = new EventTarget();
    const registered: AuthSolanaWallet[] = [];
    let unregistered = 0;
    const api = {
      register: (wallet: AuthSolanaWallet) => {
        registered.push(wallet);
        return () => {
          unregistered++;
        };
      },
    };
    target.addEventListener('wallet-standard:register-wallet', (event) =>
      (event as CustomEvent<(app: typeof api) => void>).detail(api),
    );
    const icon = 'data:image/svg+xml;base64,PHN2Zy8+';
    let logins = 0;
    const { wallet, stop } = announceAuthSolanaWallet(
      auth,
      { name: 'Example app', icon },
      {
        target,
        connect: async () => {
          logins++;
          await auth.login({ loginProvider: 'jwt', extraLoginOptions: { id_token: await token('frank') } });
        },
      },
    );
    assert.deepEqual(registered, [wallet]);
    // An app loaded later asks with app-ready and gets the same wallet.
    target.dispatchEvent(new CustomEvent('wallet-standard:app-ready', { detail: api }));
    assert.deepEqual(registered, [wallet, wallet]);
    assert.equal(wallet.name, 'Example app');
    assert.deepEqual(wallet.chains, [chainId.startsWith('solana:') ? chainId : `solana:${chainId}`]);
    assert.deepEqual(Object.keys(wallet.features), [
      'standard:connect',
      'standard:disconnect',
      'standard:events',
      'solana:signIn',
      'solana:signMessage',
      'solana:signTransaction',
      'solana:signAndSendTransaction',
    ]);

    assert.deepEqual(wallet.accounts, []);
    assert.deepEqual((await wallet.features['standard:connect'].connect({ silent: true })).accounts, []);
    assert.equal(logins, 0, 'a silent connect logs nobody in');
    const changes: string[][] = [];
    wallet.features['standard:events'].on('change', ({ accounts }) =>
      changes.push((accounts ?? []).map((a) => a.address)),
    );

    const { accounts } = await wallet.features['standard:connect'].connect();
    assert.equal(logins, 1);
    const provider = auth.provider as SolanaProvider;
    const user = provider.getSigner().address;
    const [account] = accounts as AuthSolanaAccount[];
    assert.equal(account.address, user);
    assert.deepEqual(account.publicKey, new Uint8Array(getAddressEncoder().encode(user)));
    assert.deepEqual(account.chains, wallet.chains);
    assert.equal(wallet.accounts[0], account, 'the same account object while the user stays');
    assert.deepEqual(changes, [[user]]);
    assert.equal((await wallet.features['standard:connect'].connect()).accounts[0], account);
    assert.equal(logins, 1, 'connect with a user logged in does not log in again');

    // solana:signMessage: an ed25519 signature kit verifies.
    const message = new TextEncoder().encode('found by the Wallet Standard');
    const [signed] = await wallet.features['solana:signMessage'].signMessage({ account, message });
    assert.deepEqual(signed.signedMessage, message);
    const key = await getPublicKeyFromAddress(user);
    assert.equal(await verifySignature(key, signed.signature as SignatureBytes, message), true);

    // solana:signIn: the SIWS message, verified by @solana/wallet-standard-util's verifySignIn.
    const input = {
      domain: 'example.app',
      statement: 'Sign in to Example',
      uri: 'https://example.app/login',
      version: '1',
      chainId: 'localnet',
      nonce: 'a1b2c3d4e5',
      issuedAt: new Date().toISOString(),
      resources: ['https://example.app/terms'],
    };
    const [signIn] = await wallet.features['solana:signIn'].signIn(input);
    assert.equal(signIn.account, account);
    assert.equal(verifySignIn(input, signIn), true);
    assert.equal(verifySignIn({ ...input, nonce: 'other' }, signIn), false);
    assert.equal(verifySignIn({ ...input, domain: 'evil.example' }, signIn), false);
    assert.match(
      new TextDecoder().decode(signIn.signedMessage),
      new RegExp(`^example\\.app wants you to sign in with your Solana account:\\n${user}\\n`),
    );
    // Node has no page to take the domain from; a line break cannot add a field.
    await assert.rejects(wallet.features['solana:signIn'].signIn({}), TypeError);
    await assert.rejects(
      wallet.features['solana:signIn'].signIn({ domain: 'example.app', statement: 'x\nNonce: 1' }),
      TypeError,
    );
    await assert.rejects(
      wallet.features['solana:signIn'].signIn({ domain: 'example.app', address: recipientOf() }),
      (error: { code?: number }) => error.code === 4100,
    );

    // solana:signTransaction on wire bytes, then solana:signAndSendTransaction onto the ledger.
    await stack.airdrop(user, 1_000_000_000);
    const rpc = createSolanaRpc(devnet(rpcUrl('solana-local')));
    const recipient = (await generateKeyPairSigner()).address;
    const tx = await unsignedTransfer(rpcUrl('solana-local'), {
      from: user,
      to: recipient,
      lamports: 1_000_000n,
    });
    const wire = new Uint8Array(getTransactionEncoder().encode(tx));
    const [{ signedTransaction }] = await wallet.features['solana:signTransaction'].signTransaction({
      account,
      transaction: wire,
    });
    const decoded = getTransactionDecoder().decode(signedTransaction);
    assert.equal(
      await verifySignature(key, decoded.signatures[user] as SignatureBytes, decoded.messageBytes),
      true,
    );
    const [{ signature }] = await wallet.features['solana:signAndSendTransaction'].signAndSendTransaction({
      account,
      chain: wallet.chains[0],
      transaction: wire,
    });
    assert.equal(signature.length, 64);
    const found = await waitForSignature(rpc, getBase58Decoder().decode(signature), recipient);
    assert.ok(found, 'the transfer is in the recipient’s history');
    // A dapp that names a chain the wallet does not serve (beside the standard's fields) is refused.
    const onAnotherChain = { account, chain: 'solana:mainnet', message };
    await assert.rejects(
      wallet.features['solana:signMessage'].signMessage(onAnotherChain),
      (error: { code?: number }) => error.code === 4100,
    );

    // disconnect hides the account from the dapp (the user stays logged in); connect brings it back.
    await wallet.features['standard:disconnect'].disconnect();
    assert.deepEqual(wallet.accounts, []);
    assert.ok(auth.provider, 'still logged in');
    await assert.rejects(
      wallet.features['solana:signMessage'].signMessage({ account, message }),
      (error: { code?: number }) => error.code === 4900,
    );
    await wallet.features['standard:connect'].connect();
    assert.equal(wallet.accounts[0], account);

    // Logout, then another user logging in by the app itself: change events, the same wallet.
    await auth.logout();
    assert.deepEqual(wallet.accounts, []);
    await assert.rejects(
      wallet.features['solana:signMessage'].signMessage({ account, message }),
      (error: { code?: number }) => error.code === 4900,
    );
    await auth.login({ loginProvider: 'jwt', extraLoginOptions: { id_token: await token('grace') } });
    const grace = provider.getSigner().address;
    assert.notEqual(grace, user);
    assert.deepEqual(changes, [[user], [], [user], [], [grace]]);
    // A getter read after an assertion on it: TypeScript would keep the narrowed type otherwise.
    const accountsNow = (): readonly AuthSolanaAccount[] => wallet.accounts;
    assert.equal(accountsNow()[0].address, grace);
    await assert.rejects(
      wallet.features['solana:signMessage'].signMessage({ account, message }),
      (error: { code?: number }) => error.code === 4100,
      'an account of the previous user is refused',
    );

    stop();
    assert.equal(unregistered, 2);
    target.dispatchEvent(new CustomEvent('wallet-standard:app-ready', { detail: api }));
    assert.equal(registered.length, 2, 'no registration after stop()');
  });

  it('the Wallet Standard wallet reports a session expiry as change with no accounts, and signs no more', async () => {
    const chainId = stack.solana?.chainId as string;
    const auth = await create({
      chainConfig: { chainNamespace: 'solana', chainId, rpcTarget: rpcUrl('solana-local') },
      sessionTime: 5,
    });
    const expired = new Promise((resolve) => auth.on('sessionExpired', resolve));
    const { wallet, stop } = announceAuthSolanaWallet(
      auth,
      { name: 'Example app', icon: 'data:image/svg+xml;base64,PHN2Zy8+' },
      {
        target: new EventTarget(),
        connect: async () =>
          auth.login({ loginProvider: 'jwt', extraLoginOptions: { id_token: await token('hank') } }),
      },
    );
    const changes: string[][] = [];
    wallet.features['standard:events'].on('change', ({ accounts }) =>
      changes.push((accounts ?? []).map((a) => a.address)),
    );
    const [account] = (await wallet.features['standard:connect'].connect()).accounts;
    await expired;
    assert.deepEqual(changes, [[account.address], []]);
    assert.deepEqual(wallet.accounts, []);
    await assert.rejects(
      wallet.features['solana:signMessage'].signMessage({ account, message: new Uint8Array([1]) }),
      (error: { code?: number }) => error.code === 4900,
    );
    stop();
  });
});

/** Some address that is not the user's (the system program). */
function recipientOf(): string {
  return '11111111111111111111111111111111';
}
