// `portico start` refuses what only development may do, and configs it cannot read, at start:
// one line naming the field, no stack trace (split from start-production.test.ts: each case starts
// a process, and together they took most of that file's time).
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { freePort, tempDir } from '@portico/testkit';
import {
  MISSING_ALLOW_LIST,
  MISSING_AUTH_STORE,
  MISSING_MASTER_KEY,
  MISSING_VERIFIERS,
} from '../src/start/auth-options.ts';
import { AUTH, JWT_VERIFIER, NETWORKS } from './production-config.ts';
import { startInBackground, startToExit, writeConfig } from './start-process.ts';

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

  test('a passkey verifier whose userVerification is neither required nor preferred', async () => {
    const passkey = { type: 'passkey', userVerification: 'sometimes' };
    assert.equal(
      await refused({ auth: { ...AUTH, verifiers: { app: JWT_VERIFIER, passkey } } }),
      'portico start: auth.verifiers.passkey.userVerification must be required or preferred',
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
