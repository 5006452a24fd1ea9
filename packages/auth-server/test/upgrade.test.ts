import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Auth, MemoryStorage, type Network } from '@portico/auth';
import { getAppScopedKey } from '@portico/auth/protocol';
import { type AuthServer, startAuthServer } from '@portico/auth-server';
import { tempDir } from '@portico/testkit';
import Database from 'libsql';
import { SqliteStore } from '../src/store.ts';
import { type JwksIssuer, startJwksIssuer } from './helpers.ts';

/**
 * What the released library and service (commit 324f052, before keys were separated by network)
 * left behind, recorded by running that commit: the service's rows (a user's coreKitKey, an MFA
 * record, the idToken signing key), each session as stored, the app's storage, and what the
 * library held after login.
 */
interface Recorded {
  clientId: string;
  masterKey: string;
  sessions: Record<
    'plain' | 'mfa',
    {
      verifier: string;
      verifierId: string;
      storage: Record<string, string>;
      session: string;
      expected: { coreKitKey: string; privKey: string; ed25519PrivKey: string; isMfaEnabled: boolean };
      backupPhrase?: string;
    }
  >;
  serviceRows: {
    auth_core_keys: Array<{ id: string; wrapped: string; created_at: number }>;
    auth_values: Array<{ name: string; value: string }>;
    auth_sessions: Array<{ key: string; data: string; expires_at: number }>;
  };
}
const RECORDED = JSON.parse(
  readFileSync(new URL('./fixtures/before-issue-15.json', import.meta.url), 'utf8'),
) as Recorded;

/** A data folder holding the released service's rows, as after an upgrade in place. */
function upgradedDataDir(path: string): void {
  new SqliteStore(path).close();
  const db = new Database(join(path, 'auth.db'));
  for (const r of RECORDED.serviceRows.auth_core_keys) {
    db.prepare('INSERT INTO auth_core_keys (id, wrapped, created_at) VALUES (?, ?, ?)').run(
      r.id,
      r.wrapped,
      r.created_at,
    );
  }
  for (const r of RECORDED.serviceRows.auth_values) {
    db.prepare('INSERT INTO auth_values (name, value) VALUES (?, ?)').run(r.name, r.value);
  }
  // Sessions as live as when the upgrade happened (their recorded expiry has long passed).
  for (const r of RECORDED.serviceRows.auth_sessions) {
    db.prepare('INSERT INTO auth_sessions (key, data, expires_at) VALUES (?, ?, ?)').run(
      r.key,
      r.data,
      Date.now() + 86_400_000,
    );
  }
  db.close();
}

describe('existing users after the upgrade: keys by network', { timeout: 60_000 }, () => {
  let issuer: JwksIssuer;
  const dirs: Array<{ path: string; cleanup(): void }> = [];
  const servers: AuthServer[] = [];

  before(async () => {
    issuer = await startJwksIssuer();
  });
  after(async () => {
    for (const s of servers) await s.close();
    for (const d of dirs) d.cleanup();
    await issuer?.close();
  });

  async function upgradedService(legacyNetwork?: Network): Promise<AuthServer> {
    const dir = tempDir('portico-auth-upgrade-');
    dirs.push(dir);
    upgradedDataDir(dir.path);
    const server = await startAuthServer({
      dataDir: dir.path,
      masterKey: RECORDED.masterKey,
      legacyNetwork,
      verifiers: { jwt: { type: 'jwt', keys: [issuer.publicJwk] } },
    });
    servers.push(server);
    return server;
  }

  async function login(server: AuthServer, network: Network, sub: string) {
    const auth = await Auth.create(
      { clientId: RECORDED.clientId, network, sdkUrl: server.sdkUrl },
      { storage: new MemoryStorage() },
    );
    const outcome = auth.login({
      loginProvider: 'jwt',
      mfaLevel: 'none',
      extraLoginOptions: { id_token: await issuer.sign({ sub }) },
    });
    return { auth, outcome };
  }

  it('sapphire_mainnet, the legacy network, keeps the key a user had; other networks get unrelated keys', async () => {
    const server = await upgradedService();
    const { plain } = RECORDED.sessions;
    const keys = new Map<Network, string>();
    for (const network of ['sapphire_mainnet', 'sapphire_devnet', 'mainnet'] as const) {
      const { auth, outcome } = await login(server, network, plain.verifierId);
      await outcome;
      const s = auth.state;
      keys.set(network, s.coreKitKey ?? '');
      // The app key is still the reference derivation of the coreKitKey (openlogin-subkey).
      assert.equal(s.privKey, getAppScopedKey(s.coreKitKey ?? '', RECORDED.clientId));
    }
    assert.equal(keys.get('sapphire_mainnet'), plain.expected.coreKitKey);
    assert.equal(new Set(keys.values()).size, 3, 'three networks, three keys');
  });

  it('legacyNetwork hands the old keys to the network an operator’s apps used', async () => {
    const server = await upgradedService('sapphire_devnet');
    const { plain } = RECORDED.sessions;
    const devnet = await login(server, 'sapphire_devnet', plain.verifierId);
    await devnet.outcome;
    assert.equal(devnet.auth.state.coreKitKey, plain.expected.coreKitKey);
    const mainnet = await login(server, 'sapphire_mainnet', plain.verifierId);
    await mainnet.outcome;
    assert.notEqual(mainnet.auth.state.coreKitKey, plain.expected.coreKitKey);
  });

  it('a user who had set MFA up still needs a second factor on the legacy network, and rebuilds the old key', async () => {
    const server = await upgradedService();
    const { mfa } = RECORDED.sessions;
    const { auth, outcome } = await login(server, 'sapphire_mainnet', mfa.verifierId);
    await assert.rejects(outcome, /MFA_REQUIRED|This device has no MFA share/);
    await auth.completeMfa({ backupPhrase: mfa.backupPhrase });
    assert.equal(auth.state.coreKitKey, mfa.expected.coreKitKey);
    assert.equal(auth.getUserInfo().isMfaEnabled, true);
    // On another network the same person is a new user: no MFA there yet.
    const other = await login(server, 'sapphire_devnet', mfa.verifierId);
    await other.outcome;
    assert.equal(other.auth.getUserInfo().isMfaEnabled, false);
  });

  it('a session stored by the released library restores after the upgrade, with the same keys', async () => {
    const server = await upgradedService();
    const { plain } = RECORDED.sessions;
    const storage = new MemoryStorage();
    for (const [key, value] of Object.entries(plain.storage)) storage.set(key, value);
    const auth = await Auth.create(
      { clientId: RECORDED.clientId, network: 'sapphire_mainnet', sdkUrl: server.sdkUrl },
      { storage },
    );
    assert.equal(auth.state.coreKitKey, plain.expected.coreKitKey);
    assert.equal(auth.getPrivKey(), plain.expected.privKey);
    assert.equal(auth.getEd25519PrivKey(), plain.expected.ed25519PrivKey);
    assert.equal(auth.getUserInfo().verifierId, plain.verifierId);
    assert.ok((auth.sessionExpiresAt ?? 0) > Date.now(), 'the upgraded instance tracks its expiry too');
    await auth.logout();
  });

  it('an MFA session stored by the released library restores and rebuilds the key with a second factor', async () => {
    const server = await upgradedService();
    const { mfa } = RECORDED.sessions;
    const storage = new MemoryStorage();
    for (const [key, value] of Object.entries(mfa.storage)) storage.set(key, value);
    const auth = await Auth.create(
      { clientId: RECORDED.clientId, network: 'sapphire_mainnet', sdkUrl: server.sdkUrl },
      { storage },
    );
    const deviceBefore = await auth.mfaDeviceId();
    assert.ok(deviceBefore, 'the released library had stored a device share');
    await auth.completeMfa({ backupPhrase: mfa.backupPhrase });
    assert.equal(auth.state.coreKitKey, mfa.expected.coreKitKey);
    assert.equal(auth.getPrivKey(), mfa.expected.privKey);
    assert.equal(auth.getUserInfo().isMfaEnabled, true);
    // The session's MFA grant survived too: the service registered a new device share for this device.
    const deviceAfter = await auth.mfaDeviceId();
    assert.ok(deviceAfter);
    assert.notEqual(deviceAfter, deviceBefore);
  });
});
