// `portico start`'s reference wallet in production: its user logs in through the auth service of
// the same config (a custom-JWT verifier, a jose-signed token), and the wallet reads the chain
// through the gateway of the same config, metered on the wallet's own API key.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { type Anvil, startAnvil } from '@portico/devchain';
import { tempDir, usageByMethod } from '@portico/testkit';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { type RunningStart, startInBackground, writeConfig } from './start-process.ts';

const run = promisify(execFile);
const BIN = new URL('../bin/portico.mjs', import.meta.url).pathname;
const ADMIN_TOKEN = 'wallet-login-admin-token-0123456789';
const CLIENT_ID = 'BKvN1xgP3cvZIyA2xWTIyq6l5u1WgkVh-0y8y5Ohz-BNcTCV5G4vmS8mrx0uGO4L0CUyojLlJd_2nxLdG3wAaRw';

type Out = { gatewayUrl: string; auth: { sdkUrl: string }; wallet: { approvalUrl: string } };

describe('portico start’s wallet logs its user in through that auth service, reads through that gateway', () => {
  let anvil: Anvil;
  let dir: ReturnType<typeof tempDir>;
  let running: RunningStart;
  let out: Out;
  let walletKeyId: string;
  let idToken: (sub: string) => Promise<string>;

  /** The wallet's approval API, with the token of its approval URL (as its page calls it). */
  const api = async (method: 'GET' | 'POST', path: string, body?: unknown) => {
    const [base, fragment] = out.wallet.approvalUrl.split('#');
    const token = new URLSearchParams(fragment).get('token');
    const response = await fetch(new URL(path, base), {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  before(async () => {
    anvil = await startAnvil();
    dir = tempDir();
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'app-key', alg: 'ES256' };
    idToken = (sub) =>
      new SignJWT({ jti: crypto.randomUUID() })
        .setProtectedHeader({ alg: 'ES256', kid: 'app-key' })
        .setSubject(sub)
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(privateKey);
    // The wallet's own API key, made on the data folder before the start (as an operator would).
    const made = await run(process.execPath, [
      BIN,
      'keys',
      'create',
      '--name',
      'wallet',
      '--json',
      '--data-dir',
      dir.path,
    ]);
    const { key, id } = JSON.parse(made.stdout) as { key: string; id: string };
    walletKeyId = id;
    const configOut = join(dir.path, 'out.json');
    const path = writeConfig(dir.path, {
      port: 0,
      dataDir: dir.path,
      adminToken: ADMIN_TOKEN,
      logLevel: 'warn',
      metrics: { enabled: false },
      networks: [{ name: 'local', chainId: 'eip155:31337', upstreams: [anvil.url], cache: false }],
      auth: {
        port: 0,
        masterKey: 'f'.repeat(64),
        verifiers: { jwt: { type: 'jwt', keys: [jwk] } },
        allowedRedirectOrigins: ['https://app.example.com'],
      },
      wallet: { port: 0, clientId: CLIENT_ID, apiKey: `\${TEST_WALLET_KEY}` },
    });
    running = startInBackground(['--config', path, '--config-out', configOut], { TEST_WALLET_KEY: key });
    await running.waitFor(/Wallet approval page/);
    out = JSON.parse(readFileSync(configOut, 'utf8')) as Out;
  });
  after(async () => {
    await running?.stop();
    await anvil?.stop();
    dir?.cleanup();
  });

  test('a JWT login on the wallet gives the user’s account, its balance is read through the gateway on the wallet’s key, logout locks it', async () => {
    const login = await api('POST', '/api/login', { loginProvider: 'jwt', idToken: await idToken('frank') });
    assert.equal(login.status, 200, JSON.stringify(login.body));
    let view = (await api('GET', '/api/account')).body as {
      source: string;
      user: { verifierId?: string } | null;
      accounts: { eip155: string[] };
    };
    for (let i = 0; i < 100 && view.source !== 'login'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      view = (await api('GET', '/api/account')).body as typeof view;
    }
    assert.equal(view.source, 'login');
    assert.equal(view.user?.verifierId, 'frank');
    assert.equal(view.accounts.eip155.length, 1);
    const [address] = view.accounts.eip155;

    await fetch(anvil.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'anvil_setBalance',
        params: [address, '0x1234'],
      }),
    });
    const balances = (await api('GET', '/api/balances')).body as unknown as {
      chainId: string;
      address: string;
      balance: string | null;
    }[];
    assert.equal(balances.length, 1);
    assert.equal(balances[0].chainId, 'eip155:31337');
    assert.equal(balances[0].address.toLowerCase(), address.toLowerCase());
    assert.equal(balances[0].balance, '0.00000000000000466 ETH', 'the 4660 wei set on anvil');
    // Usage is recorded a moment after the answer.
    let metered = 0;
    for (let i = 0; i < 100 && metered === 0; i++) {
      if (i > 0) await new Promise((resolve) => setTimeout(resolve, 100));
      const usage = await usageByMethod(out.gatewayUrl, ADMIN_TOKEN, walletKeyId);
      metered = usage.get('eth_getBalance')?.requests ?? 0;
    }
    assert.ok(metered >= 1, 'the read was metered on the wallet’s key');

    const loggedOut = await api('POST', '/api/logout', {});
    assert.equal(loggedOut.body.source, 'none');
  });
});
