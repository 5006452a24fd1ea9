// The auth service's audit trail: real events (logins, a refused replay, logout) appended to the
// store, read through the admin API without a token or key in them, and `portico auth audit
// verify` naming the first broken entry after a row is edited or deleted in the store.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Auth, MemoryStorage } from '@portico/auth';
import { type AuthServer, loadDevJwtKey, startAuthServer } from '@portico/auth-server';
import { tempDir } from '@portico/testkit';
import Database from 'libsql';
import { runAuth } from '../src/commands/auth.ts';

const CLIENT_ID = 'BPi5PB_UiIZ-cPz1GtV5i1I2iOSOHuimiXBI0e-Oe_u6X3oVAbCiAZOTEBtTXw4tsluTITPqA8zMsfxIKMjiqNQ';
const ADMIN = 'audit-admin-token-0123456789abcdef';

describe('audit trail: admin API and portico auth audit verify', { timeout: 120_000 }, () => {
  const dir = tempDir('portico-auth-audit-');
  const authDir = join(dir.path, 'auth');
  let server: AuthServer;
  const secrets: string[] = [];

  before(async () => {
    const key = await loadDevJwtKey(join(dir.path, 'dev-jwt-key.json'));
    server = await startAuthServer({
      dataDir: authDir,
      masterKey: 'f'.repeat(64),
      devJwt: { key },
      adminToken: ADMIN,
    });
  });
  after(async () => {
    await server?.close();
    dir.cleanup();
  });

  const token = async (sub: string) => {
    const res = await fetch(`${server.sdkUrl}/dev/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ sub }),
    });
    const idToken = ((await res.json()) as { id_token: string }).id_token;
    secrets.push(idToken);
    return idToken;
  };
  const login = async (idToken: string) => {
    const auth = await Auth.create(
      { clientId: CLIENT_ID, network: 'sapphire_devnet', sdkUrl: server.sdkUrl },
      { storage: new MemoryStorage() },
    );
    await auth.login({
      loginProvider: 'jwt',
      extraLoginOptions: { id_token: idToken, verifierIdField: 'sub' },
    });
    secrets.push(auth.state.sessionId!, auth.state.privKey!, auth.state.coreKitKey!);
    return auth;
  };
  const admin = async (path: string) => {
    const res = await fetch(`${server.sdkUrl}${path}`, { headers: { authorization: `Bearer ${ADMIN}` } });
    assert.equal(res.status, 200);
    return (await res.json()) as {
      entries: Array<{ seq: number; event: string; user?: string; detail: Record<string, unknown> }>;
    };
  };
  const verify = async () => {
    const lines: string[] = [];
    const code = await runAuth(['audit', 'verify', '--auth-dir', authDir], (line) => lines.push(line));
    return { code, output: lines.join('\n') };
  };

  it('records logins, a refused replay and a logout, with no token, session id or key in them', async () => {
    const alice = await login(await token('alice'));
    const replayed = await token('bob');
    await login(replayed);
    await assert.rejects(login(replayed), /Duplicate token found/);
    await alice.logout();

    const { entries } = await admin('/admin/audit');
    assert.deepEqual(
      entries.map((e) => [e.event, e.detail.outcome]),
      [
        ['login', 'success'],
        ['login', 'success'],
        ['login', 'failure'],
        ['session.revoked', 'success'],
      ],
    );
    assert.deepEqual(entries[0].detail, {
      clientId: CLIENT_ID,
      network: 'sapphire_devnet',
      outcome: 'success',
      verifier: 'jwt',
    });
    assert.equal(entries[2].detail.reason, 'Duplicate token found');
    const text = JSON.stringify(entries);
    for (const secret of secrets)
      assert.ok(!text.includes(secret), 'no token, session id or key in the audit trail');

    const failures = await admin('/admin/audit?event=login&limit=1&after=2');
    assert.deepEqual(
      failures.entries.map((e) => e.seq),
      [3],
    );
    // The first user's login and logout (a logout names the session's user).
    const byUser = await admin(`/admin/audit?user=${entries[0].user}`);
    assert.deepEqual(
      byUser.entries.map((e) => e.seq),
      [1, 4],
    );
  });

  it('verify passes on the untouched chain and names the first entry edited or deleted', async () => {
    assert.deepEqual(await verify(), { code: 0, output: 'audit trail intact: 4 entries' });
    const db = new Database(join(authDir, 'auth.db'));
    try {
      const original = (db.prepare('SELECT detail FROM auth_audit WHERE seq = 2').get() as { detail: string })
        .detail;
      db.prepare('UPDATE auth_audit SET detail = ? WHERE seq = 2').run(
        original.replace('success', 'failure'),
      );
      assert.deepEqual(await verify(), {
        code: 1,
        output: 'audit trail broken at entry 2: entry 2 was changed after it was written',
      });
      db.prepare('UPDATE auth_audit SET detail = ? WHERE seq = 2').run(original);
      assert.equal((await verify()).code, 0);
      db.prepare('DELETE FROM auth_audit WHERE seq = 2').run();
      assert.deepEqual(await verify(), {
        code: 1,
        output: 'audit trail broken at entry 2: entry 2 is missing (the next one is 3): deleted',
      });
    } finally {
      db.close();
    }
    const viaApi = (await (
      await fetch(`${server.sdkUrl}/admin/audit/verify`, { headers: { authorization: `Bearer ${ADMIN}` } })
    ).json()) as { broken?: { seq: number } };
    assert.equal(viaApi.broken?.seq, 2);
  });
});
