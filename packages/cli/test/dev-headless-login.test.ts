// The headless proof of issue 14: a real `portico dev` (the CLI in its own process) and no browser.
// A dev token → auth.login → the new user was funded → auth.provider's transactions land on both
// chains, seen with viem and @solana/kit → the calls were charged to the dev API key.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import {
  Auth,
  type AuthInitParams,
  type Eip155Provider,
  MemoryStorage,
  type SolanaProvider,
} from '@portico/auth';
import { tempDir, unsignedTransfer, usageByMethod, waitForSignature } from '@portico/testkit';
import { address, createSolanaRpc, generateKeyPairSigner } from '@solana/kit';
import { createPublicClient, http, parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { readRunning } from '../src/dev-services.ts';
import { BIN, type Running, startDev } from './dev-process.ts';

const run = promisify(execFile);
const SOL = 1_000_000_000n;
const CLIENT_ID = 'BPi5PB_UiIZ-cPz1GtV5i1I2iOSOHuimiXBI0e-Oe_u6X3oVAbCiAZOTEBtTXw4tsluTITPqA8zMsfxIKMjiqNQ';

describe('portico dev without a browser: dev login, faucet, chain calls metered on the dev key', () => {
  const dir = tempDir();
  let dev: Running;

  before(async () => {
    dev = await startDev(dir.path, ['--block-time', '0']);
  });
  after(() => {
    dev?.child.kill('SIGKILL');
    dir.cleanup();
  });

  /** A token from the dev auth service's endpoint, as a script would get it. */
  async function devToken(sub: string): Promise<string> {
    const response = await fetch(dev.config.auth.devJwt.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ sub }),
    });
    assert.equal(response.status, 200);
    return ((await response.json()) as { id_token: string }).id_token;
  }

  async function login(chainConfig: AuthInitParams['chainConfig'], idToken: string): Promise<Auth> {
    const auth = await Auth.create(
      { clientId: CLIENT_ID, network: 'sapphire_devnet', sdkUrl: dev.config.auth.sdkUrl, chainConfig },
      { storage: new MemoryStorage() },
    );
    await auth.login({
      loginProvider: dev.config.auth.devJwt.loginProvider,
      extraLoginOptions: { id_token: idToken, verifierIdField: 'sub' },
    });
    return auth;
  }

  /** Requests per method charged to the dev API key so far (admin usage API). */
  async function devKeyUsage() {
    const keys = (await (
      await fetch(`${dev.config.gatewayUrl}/admin/keys`, {
        headers: { authorization: `Bearer ${dev.config.adminToken}` },
      })
    ).json()) as { keys: { id: string; name: string }[] };
    const devKey = keys.keys.find((k) => k.name === 'dev');
    assert.ok(devKey, 'the dev API key is listed');
    return usageByMethod(dev.config.gatewayUrl, dev.config.adminToken, devKey.id);
  }

  test('--config-out lists the dev login under auth and the faucet; the banner warns that anyone can log in', () => {
    const { auth, faucet, gatewayUrl } = dev.config;
    assert.deepEqual(auth.devJwt, {
      verifier: 'jwt',
      loginProvider: 'jwt',
      verifierIdField: 'sub',
      tokenUrl: `${auth.sdkUrl}/dev/token`,
      command: `portico dev-token <user-id> --data-dir ${dir.path}`,
      expiresIn: 60,
    });
    assert.deepEqual(faucet, {
      url: `${gatewayUrl}/dev/fund`,
      command: `portico fund <address> [--amount N] --data-dir ${dir.path}`,
      amounts: { eip155: '10', solana: '10' },
      chains: { eip155: 'eip155:31337', solana: dev.config.networks['solana-local'].chainId },
    });
    const banner = dev.output();
    assert.ok(banner.includes(auth.devJwt.tokenUrl));
    assert.ok(banner.includes('portico fund <address>'));
    assert.match(
      banner,
      /WARNING: development logins are on: anyone who can reach the auth service can log in as any user/,
    );
    // Finding 5 of issue 24: dev keeps sending login results to any redirect URL, and says so.
    assert.match(banner, /login results go to any redirect URL \(no allow-list\)/);
  });

  test('a dev token logs in headlessly; the new user is funded; auth.provider transactions land on both chains and are charged to the dev key', async () => {
    const user = `headless-${Date.now()}`;
    const before = await devKeyUsage();

    // eip155: token → login → funded on this first login → eth_sendTransaction, mined, seen with viem.
    const evmAuth = await login(
      { chainNamespace: 'eip155', chainId: '0x7a69', rpcTarget: dev.config.networks.local.rpcUrl },
      await devToken(user),
    );
    assert.equal(evmAuth.getUserInfo().verifierId, user);
    const evm = evmAuth.provider as Eip155Provider;
    const [from] = (await evm.request({ method: 'eth_accounts' })) as `0x${string}`[];
    const chain = createPublicClient({ chain: foundry, transport: http(dev.config.networks.local.rpcUrl) });
    assert.equal(await chain.getBalance({ address: from }), parseEther('10'), 'funded on first login');
    const to = privateKeyToAddress(generatePrivateKey());
    const hash = (await evm.request({
      method: 'eth_sendTransaction',
      params: [{ from, to, value: `0x${parseEther('1').toString(16)}` }],
    })) as `0x${string}`;
    const receipt = await chain.waitForTransactionReceipt({ hash });
    assert.equal(receipt.status, 'success');
    assert.equal(receipt.from.toLowerCase(), from.toLowerCase());
    assert.equal(await chain.getBalance({ address: to }), parseEther('1'));

    // solana: the same user logs in again (a new token; same keys, funded once, not twice) →
    // signAndSendTransaction of a transfer → in getSignaturesForAddress.
    const solanaNetwork = dev.config.networks['solana-local'];
    const solAuth = await login(
      { chainNamespace: 'solana', chainId: solanaNetwork.chainId, rpcTarget: solanaNetwork.rpcUrl },
      await devToken(user),
    );
    assert.equal(solAuth.getPrivKey(), evmAuth.getPrivKey(), 'the same user, the same key');
    const solana = solAuth.provider as SolanaProvider;
    const [payer] = await solana.requestAccounts();
    const rpc = createSolanaRpc(solanaNetwork.rpcUrl);
    const { value: funded } = await rpc.getBalance(address(payer), { commitment: 'processed' }).send();
    assert.equal(funded, 10n * SOL, 'funded on the first login only');
    const recipient = (await generateKeyPairSigner()).address;
    const transfer = await unsignedTransfer(solanaNetwork.rpcUrl, {
      from: payer,
      to: recipient,
      lamports: SOL / 2n,
    });
    const { signature } = await solana.signAndSendTransaction(transfer);
    assert.ok(await waitForSignature(rpc, signature, payer), 'the transfer is in the payer’s history');
    const { value: received } = await rpc.getBalance(recipient, { commitment: 'confirmed' }).send();
    assert.equal(received, SOL / 2n);

    // Metered: the broadcasts the providers made went through the gateway on the dev API key.
    const afterUsage = await devKeyUsage();
    const added = (method: string) =>
      (afterUsage.get(method)?.requests ?? 0) - (before.get(method)?.requests ?? 0);
    assert.equal(added('eth_sendRawTransaction'), 1);
    assert.equal(added('sendTransaction'), 1);
    for (const method of ['eth_getTransactionCount', 'eth_estimateGas', 'getLatestBlockhash']) {
      assert.ok(added(method) >= 1, `${method} was charged`);
    }
    assert.ok((afterUsage.get('eth_sendRawTransaction')?.credits ?? 0) > 0);
  });

  test('portico dev-token prints a token the running auth service accepts', async () => {
    const { stdout } = await run(process.execPath, [BIN, 'dev-token', 'cli-user', '--data-dir', dir.path]);
    const auth = await login(undefined, stdout.trim());
    assert.equal(auth.getUserInfo().verifierId, 'cli-user');
    assert.equal(auth.getUserInfo().verifier, 'jwt');
  });

  test('portico fund tops up EVM and Solana addresses on the running portico dev, and refuses what it cannot fund', async () => {
    const evm = privateKeyToAddress(generatePrivateKey());
    const sol = (await generateKeyPairSigner()).address;
    const fund = (...args: string[]) => run(process.execPath, [BIN, 'fund', ...args, '--data-dir', dir.path]);
    const first = await fund(evm);
    assert.match(first.stdout, new RegExp(`Funded ${evm} with 10 ETH on eip155:31337: it holds 10 ETH`));
    const chain = createPublicClient({ chain: foundry, transport: http(dev.config.evm.upstreamUrl) });
    assert.equal(await chain.getBalance({ address: evm }), parseEther('10'));
    const airdrop = JSON.parse((await fund(sol, '--amount', '2.5', '--json')).stdout) as Record<
      string,
      string
    >;
    assert.equal(airdrop.chainId, dev.config.networks['solana-local'].chainId);
    assert.equal(airdrop.amount, '2.5');
    assert.equal(airdrop.balanceBaseUnits, String((5n * SOL) / 2n));
    await assert.rejects(fund(evm, '--amount', 'lots'), (error: { code?: number; stderr?: string }) => {
      assert.equal(error.code, 2);
      assert.match(error.stderr ?? '', /amount must be a number of ETH above 0/);
      return true;
    });
    assert.equal(
      await chain.getBalance({ address: evm }),
      parseEther('10'),
      'the refused call moved nothing',
    );
  });

  test('portico fund finds the running portico dev through its data folder, and names the folder when none runs there', async () => {
    assert.equal(readRunning(dir.path).pid, dev.child.pid);
    assert.throws(() => readRunning(`${dir.path}-none`), {
      name: 'CliError',
      message: `no portico dev is running on ${dir.path}-none (start it, or pass its --data-dir, or --url)`,
    });
  });
});
