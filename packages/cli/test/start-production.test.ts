// `portico start` in production: every part one config names (gateway, dashboard, auth service),
// and each thing only development may do refused at start with one line naming the field.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type Anvil, startAnvil } from '@portico/devchain';
import { freePort, tempDir } from '@portico/testkit';
import {
  MISSING_ALLOW_LIST,
  MISSING_AUTH_STORE,
  MISSING_MASTER_KEY,
  MISSING_VERIFIERS,
} from '../src/start/auth-options.ts';
import { type RunningStart, startInBackground, startToExit, writeConfig } from './start-process.ts';

const ADMIN_TOKEN = 'production-admin-token-0123456789';
const MASTER_KEY = 'a'.repeat(64);
const NETWORKS = [{ name: 'local', chainId: 'eip155:31337', upstreams: ['http://127.0.0.1:9'] }];
const JWT_VERIFIER = {
  type: 'jwt',
  keys: [
    {
      kty: 'EC',
      crv: 'P-256',
      x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU',
      y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0',
      kid: 'k1',
    },
  ],
};
const AUTH = {
  masterKey: MASTER_KEY,
  verifiers: { app: JWT_VERIFIER },
  allowedRedirectOrigins: ['https://app.example.com'],
};

describe('portico start refuses at start, in one line naming the field', () => {
  const dir = tempDir();
  after(() => dir.cleanup());
  const refused = async (config: Record<string, unknown>, env: NodeJS.ProcessEnv = {}) => {
    const path = writeConfig(dir.path, { port: 0, dataDir: dir.path, networks: NETWORKS, ...config });
    const result = await startToExit(['--config', path], env);
    assert.equal(result.status, 2, result.stderr);
    const lines = result.stderr.trim().split('\n');
    const last = lines[lines.length - 1];
    assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
    return last;
  };

  test('an auth service with no redirect allow-list', async () => {
    const { allowedRedirectOrigins: _, ...auth } = AUTH;
    assert.equal(await refused({ auth }), `portico start: ${MISSING_ALLOW_LIST}`);
  });

  test('a missing master key; a master key file is read', async () => {
    const { masterKey: _, ...auth } = AUTH;
    assert.equal(await refused({ auth }), `portico start: ${MISSING_MASTER_KEY}`);
    const keyFile = join(dir.path, 'master.key');
    writeFileSync(keyFile, 'short\n');
    assert.equal(
      await refused({ auth: { ...auth, masterKeyFile: keyFile } }),
      'portico start: auth.masterKeyFile must be 64 hex characters or a passphrase of at least 32 characters',
    );
    assert.equal(
      await refused({ auth: { ...auth, masterKeyFile: join(dir.path, 'absent.key') } }),
      `portico start: auth.masterKeyFile: cannot read ${join(dir.path, 'absent.key')} (ENOENT)`,
    );
  });

  test('no verifiers, or the development login as a verifier', async () => {
    assert.equal(await refused({ auth: { ...AUTH, verifiers: {} } }), `portico start: ${MISSING_VERIFIERS}`);
    assert.equal(
      await refused({ auth: { ...AUTH, verifiers: { dev: { type: 'dev' } } } }),
      'portico start: auth.verifiers.dev.type: dev is the development login, which portico start refuses (use portico dev)',
    );
  });

  test('an auth service with neither dataDir nor shared stores', async () => {
    assert.equal(await refused({ dataDir: undefined, auth: AUTH }), `portico start: ${MISSING_AUTH_STORE}`);
  });

  test('wallet auto-approve', async () => {
    assert.equal(
      await refused({ auth: AUTH, wallet: { clientId: 'c', apiKey: 'k', autoApprove: true } }),
      'portico start: wallet.autoApprove is for development only (portico dev --wallet-auto-approve); portico start refuses it',
    );
  });

  test('a typo in a field name, with the closest known name', async () => {
    const line = await refused({ dashbaord: { enabled: true } });
    assert.match(
      line,
      /^portico start: config has unknown field\(s\): dashbaord \(allowed: .*dashboard.*\); did you mean dashboard \(for dashbaord\)\?$/,
    );
    const inAuth = await refused({ auth: { ...AUTH, allowedRedirectOrigin: [] } });
    assert.match(
      inAuth,
      /auth has unknown field\(s\): allowedRedirectOrigin .*did you mean allowedRedirectOrigins/,
    );
  });

  test('$VAR from the environment, and a missing one named', async () => {
    assert.equal(
      await refused({ auth: { ...AUTH, masterKey: `\${NO_SUCH_KEY_VAR}` } }),
      `portico start: auth.masterKey uses \${NO_SUCH_KEY_VAR} but that environment variable is not set`,
    );
  });

  test('the dashboard without an admin token', async () => {
    assert.equal(
      await refused({ dashboard: { enabled: true } }),
      'portico start: dashboard.enabled needs adminToken (the dashboard signs in with it), or PORTICO_ADMIN_TOKEN',
    );
  });

  test('a port in use names the port and the field; no dataDir and an open /metrics warn', async () => {
    const blocker = createServer();
    await new Promise<void>((ok) => blocker.listen(0, '127.0.0.1', ok));
    const port = (blocker.address() as { port: number }).port;
    try {
      const path = writeConfig(dir.path, { port, networks: NETWORKS });
      const result = await startToExit(['--config', path]);
      assert.equal(result.status, 2);
      const lines = result.stderr.trim().split('\n');
      assert.deepEqual(lines, [
        'warning: no dataDir: API keys and usage live in memory and are lost when the process stops (set dataDir, or stores.kind: shared)',
        'warning: GET /metrics is open to anyone who can reach the gateway (set metrics.requireAdminToken: true, or metrics.enabled: false)',
        `portico start: port ${port} is already in use; choose another with port: in the config`,
      ]);
      const gatewayPort = await freePort();
      const authTaken = writeConfig(dir.path, {
        port: gatewayPort,
        dataDir: dir.path,
        metrics: { enabled: false },
        networks: NETWORKS,
        auth: { ...AUTH, port },
      });
      const authResult = await startToExit(['--config', authTaken]);
      assert.equal(authResult.status, 2);
      assert.equal(
        authResult.stderr.trim(),
        `portico start: port ${port} is already in use; choose another with auth.port: in the config`,
      );
    } finally {
      blocker.close();
    }
  });
});

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
    const devLogin = await fetch(`${out.auth.sdkUrl}/api/dev-login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'a@b.c' }),
    });
    assert.equal(devLogin.status, 404);
    assert.deepEqual(await devLogin.json(), { error: 'Development login is off' });
    const faucet = await fetch(`${out.gatewayUrl}/dev/fund`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ address: '0x0000000000000000000000000000000000000001' }),
    });
    assert.notEqual(faucet.status, 200, 'no faucet');
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

test('a config that is not YAML is one line naming the file, the line and the column', async () => {
  const dir = tempDir();
  try {
    const path = join(dir.path, 'portico.yaml');
    writeFileSync(path, 'port: 0\nnetworks:\n  - name: a\n   chainId: x\n');
    const result = await startToExit(['--config', path]);
    assert.equal(result.status, 2);
    assert.equal(
      result.stderr.trim(),
      `portico start: cannot read config ${path}: Sequence item without - indicator at line 4, column 1`,
    );
  } finally {
    dir.cleanup();
  }
});

test('the auth service’s own refusals are one line: a master key that does not open the stored signing key, a bad legacyNetwork', async () => {
  const dir = tempDir();
  try {
    const config = (auth: Record<string, unknown>) =>
      writeConfig(dir.path, {
        port: 0,
        dataDir: dir.path,
        metrics: { enabled: false },
        networks: NETWORKS,
        auth: { ...AUTH, port: 0, ...auth },
      });
    const first = startInBackground(['--config', config({})]);
    await first.waitFor(/Auth service\s+\S+/);
    assert.equal(await first.stop(), 0);
    const wrongKey = await startToExit(['--config', config({ masterKey: 'f'.repeat(64) })]);
    assert.equal(wrongKey.status, 2);
    assert.match(
      wrongKey.stderr.trim(),
      /^portico start: auth: cannot open the stored signing key \(wrong master key\?\): [^\n]+$/,
    );
    const network = await startToExit(['--config', config({ legacyNetwork: 'moonnet' })]);
    assert.equal(network.status, 2);
    assert.match(network.stderr.trim(), /^portico start: auth: legacyNetwork must be one of [^\n]+$/);
  } finally {
    dir.cleanup();
  }
});

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
