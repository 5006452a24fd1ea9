// `portico start` in production: every part one config names (gateway, dashboard, auth service,
// wallet) served from one process. What it refuses at start is in start-refusals.test.ts.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type Anvil, startAnvil } from '@portico/devchain';
import { tempDir } from '@portico/testkit';
import { PRODUCTION_LINE } from '../src/commands/start.ts';
import { ADMIN_TOKEN, AUTH, MASTER_KEY, NETWORKS } from './production-config.ts';
import { type RunningStart, startInBackground, startToExit, writeConfig } from './start-process.ts';

describe('portico start with a dashboard and an auth service', () => {
  let anvil: Anvil;
  let dir: ReturnType<typeof tempDir>;
  let running: RunningStart;
  let out: {
    gatewayUrl: string;
    networks: Record<string, { baseUrl: string }>;
    dashboard: { url: string };
    auth: { sdkUrl: string; jwksUrl: string };
  };

  before(async () => {
    anvil = await startAnvil();
    dir = tempDir();
    const configOut = join(dir.path, 'out.json');
    const path = writeConfig(dir.path, {
      port: 0,
      dataDir: dir.path,
      adminToken: `\${TEST_ADMIN_TOKEN}`,
      logLevel: 'warn',
      networks: [{ name: 'local', chainId: 'eip155:31337', upstreams: [anvil.url] }],
      dashboard: { enabled: true },
      auth: { ...AUTH, masterKey: `\${TEST_MASTER_KEY}` },
    });
    running = startInBackground(['--config', path, '--config-out', configOut], {
      TEST_ADMIN_TOKEN: ADMIN_TOKEN,
      TEST_MASTER_KEY: MASTER_KEY,
    });
    await running.waitFor(/Auth service\s+\S+/);
    out = JSON.parse(readFileSync(configOut, 'utf8'));
  });
  after(async () => {
    await running?.stop();
    await anvil?.stop();
    dir?.cleanup();
  });

  test('--config-out has the keys portico dev writes, where they apply', () => {
    assert.deepEqual(Object.keys(out).sort(), ['auth', 'dashboard', 'gatewayUrl', 'networks']);
    assert.equal(out.dashboard.url, `${out.gatewayUrl}/dashboard/`);
    assert.equal(out.networks.local.baseUrl, `${out.gatewayUrl}/local`);
    assert.equal(out.auth.jwksUrl, `${out.auth.sdkUrl}/.well-known/jwks.json`);
  });

  test('the dashboard is served at /dashboard/ and signs in with the admin token', async () => {
    const page = await fetch(out.dashboard.url);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<html/i);
    const keys = await fetch(`${out.gatewayUrl}/admin/keys`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    assert.equal(keys.status, 200);
  });

  test('the auth service serves its login page and JWKS, and nothing of development', async () => {
    assert.equal((await fetch(`${out.auth.sdkUrl}/start`)).status, 200);
    const jwks = (await (await fetch(out.auth.jwksUrl)).json()) as { keys: unknown[] };
    assert.ok(jwks.keys.length > 0);
    const devToken = await fetch(`${out.auth.sdkUrl}/dev/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ sub: 'alice' }),
    });
    assert.equal(devToken.status, 405, 'no /dev/token');
    assert.deepEqual(await devToken.json(), {
      error: { code: 'METHOD_NOT_ALLOWED', message: 'Method not allowed' },
    });
    const devLogin = await fetch(`${out.auth.sdkUrl}/api/dev-login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'a@b.c' }),
    });
    assert.equal(devLogin.status, 404);
    assert.deepEqual(await devLogin.json(), {
      error: { code: 'DEV_LOGIN_OFF', message: 'Development login is off' },
    });
    const faucet = await fetch(`${out.gatewayUrl}/dev/fund`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ address: '0x0000000000000000000000000000000000000001' }),
    });
    assert.equal(faucet.status, 404, 'no faucet');
    assert.deepEqual(await faucet.json(), {
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'no network at /dev/fund; RPC addresses are /local/v3/<API_KEY>' },
    });
  });

  test('the banner says what production leaves out', () => {
    assert.ok(running.output().split('\n').includes(PRODUCTION_LINE), running.output());
  });

  test('the metrics warning is said once', () => {
    assert.equal(running.output().match(/GET \/metrics is open/g)?.length, 1);
    assert.doesNotMatch(running.output(), /no dataDir/);
  });
});

describe('portico start with the reference wallet', () => {
  let anvil: Anvil;
  let dir: ReturnType<typeof tempDir>;
  let running: RunningStart;
  let out: {
    auth: { sdkUrl: string };
    wallet: {
      wsUrl: string;
      approvalUrl: string;
      accountSource: string;
      autoApprove: boolean;
      auth: unknown;
    };
  };

  before(async () => {
    anvil = await startAnvil();
    dir = tempDir();
    // The wallet's own API key, made on the data folder before the start (as an operator would).
    const made = await startToExitCommand([
      'keys',
      'create',
      '--name',
      'wallet',
      '--json',
      '--data-dir',
      dir.path,
    ]);
    const { key } = JSON.parse(made) as { key: string };
    const configOut = join(dir.path, 'out.json');
    const path = writeConfig(dir.path, {
      port: 0,
      dataDir: dir.path,
      logLevel: 'warn',
      networks: [{ name: 'local', chainId: 'eip155:31337', upstreams: [anvil.url] }],
      auth: { ...AUTH, port: 0 },
      wallet: { port: 0, clientId: 'wallet-client', apiKey: `\${TEST_WALLET_KEY}` },
    });
    running = startInBackground(['--config', path, '--config-out', configOut], { TEST_WALLET_KEY: key });
    await running.waitFor(/Wallet approval page/);
    out = JSON.parse(readFileSync(configOut, 'utf8'));
  });
  after(async () => {
    await running?.stop();
    await anvil?.stop();
    dir?.cleanup();
  });

  test('logs users in through that auth service, holds nothing at start and never auto-approves', () => {
    assert.match(out.wallet.wsUrl, /^ws:\/\/127\.0\.0\.1:\d+/);
    assert.match(out.wallet.approvalUrl, /^http:\/\/127\.0\.0\.1:\d+/);
    assert.deepEqual(out.wallet.auth, { sdkUrl: out.auth.sdkUrl, clientId: 'wallet-client' });
    assert.equal(out.wallet.accountSource, 'none');
    assert.equal(out.wallet.autoApprove, false);
  });

  test('the approval page is served', async () => {
    const page = await fetch(out.wallet.approvalUrl.split('#')[0]);
    assert.equal(page.status, 200);
  });

  test('offers no dev accounts: the page is told so and the API refuses them', async () => {
    const [base, fragment] = out.wallet.approvalUrl.split('#');
    const token = new URLSearchParams(fragment).get('token');
    const headers = { authorization: `Bearer ${token}` };
    const view = (await (await fetch(new URL('/api/account', base), { headers })).json()) as {
      devAccounts: boolean;
      source: string;
    };
    assert.deepEqual([view.devAccounts, view.source], [false, 'none']);
    const refused = await fetch(new URL('/api/accounts/dev', base), { method: 'POST', headers });
    assert.equal(refused.status, 404);
    assert.match(await refused.text(), /this wallet offers no dev accounts/);
  });

  test('--workers with the wallet is refused with the reason', async () => {
    const path = writeConfig(
      dir.path,
      {
        port: 0,
        dataDir: dir.path,
        stores: { kind: 'shared', databaseUrl: 'postgres://127.0.0.1:9/none', redis: 'redis://127.0.0.1:9' },
        networks: NETWORKS,
        auth: AUTH,
        wallet: { clientId: 'c', apiKey: 'k' },
      },
      'workers.json',
    );
    const result = await startToExit(['--config', path, '--workers', '2']);
    assert.equal(result.status, 2);
    assert.equal(
      result.stderr.trim().split('\n').at(-1),
      'portico start: wallet keeps its approvals in one process: run it without --workers (e.g. in a portico start of its own)',
    );
  });
});

/** Runs another portico command to its end; its standard output. */
async function startToExitCommand(args: string[]): Promise<string> {
  const { execFile } = await import('node:child_process');
  const { promisify } = await import('node:util');
  const bin = new URL('../bin/portico.mjs', import.meta.url).pathname;
  const { stdout } = await promisify(execFile)(process.execPath, [bin, ...args]);
  return stdout;
}

test('SIGTERM as soon as the banner is read is a clean shutdown (exit 0), every time', async () => {
  const dir = tempDir();
  try {
    const path = writeConfig(dir.path, {
      port: 0,
      dataDir: dir.path,
      metrics: { enabled: false },
      networks: NETWORKS,
    });
    for (let i = 0; i < 3; i++) {
      const running = startInBackground(['--config', path]);
      await running.waitFor(/\/v3\/<API_KEY>/);
      const exited = new Promise<[number | null, string | null]>((resolve) =>
        running.child.once('exit', (code, signal) => resolve([code, signal])),
      );
      running.child.kill('SIGTERM');
      assert.deepEqual(await exited, [0, null], running.output());
    }
  } finally {
    dir.cleanup();
  }
});
