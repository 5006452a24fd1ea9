// Sessions that survive and can be ended: renewal while the app is used (sliding, capped by
// maxSessionTime), a new sessionId on each renewal, reuse of an old one ending the sign-in (audited),
// the user's sessions listed and ended from the library, the operator ending all of them, and a
// service restart keeping the user signed in. On SQLite (one instance) and on PostgreSQL (two
// instances sharing it, calls alternating between them). Time is the services' clock, moved by the
// test; the library's own clock only measures the windows the service states.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Auth, type AuthError, MemoryStorage } from '@portico/auth';
import { encryptJsonTo, randomPrivKey, signStoreMessage, storeKeyOf } from '@portico/auth/protocol';
import { type AuthServer, type StartAuthServerOptions, startAuthServer } from '@portico/auth-server';
import { type FreshDatabase, freshDatabase, serviceUrl, tempDir } from '@portico/testkit';
import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import { KeyService } from '../src/keys.ts';
import { CLIENT_ID, errorOf, type JwksIssuer, startJwksIssuer } from './helpers.ts';

const ADMIN = 'admin-token-for-the-session-tests-0123';
const HOUR = 3600;
const pgUrl = serviceUrl('DATABASE_URL');

interface Setup {
  /** Options both instances share (store, clock, verifiers). */
  options: () => StartAuthServerOptions;
  /** The second instance: a second service on the same PostgreSQL, or the same one on SQLite. */
  two: boolean;
  cleanup: () => Promise<void>;
}

/** What the options of every instance share: master key, JWT verifier, clock, admin token, cap. */
const baseOptions = (issuer: JwksIssuer, clock: () => number): StartAuthServerOptions => ({
  masterKey: 'f'.repeat(64),
  verifiers: { jwt: { type: 'jwt', keys: [issuer.publicJwk] } },
  clock,
  adminToken: ADMIN,
  maxSessionTime: 5 * HOUR,
});

function sessionSuite(
  name: string,
  skip: boolean | string | undefined,
  setup: (base: StartAuthServerOptions) => Promise<Setup>,
) {
  describe(name, { skip, timeout: 120_000 }, () => {
    let issuer: JwksIssuer;
    let env: Setup;
    let a: AuthServer;
    let b: AuthServer;
    let clock = Date.now();

    before(async () => {
      issuer = await startJwksIssuer();
      env = await setup(baseOptions(issuer, () => clock));
      a = await startAuthServer(env.options());
      b = env.two ? await startAuthServer(env.options()) : a;
    });
    after(async () => {
      if (b !== a) await b?.close();
      await a?.close();
      await issuer?.close();
      await env?.cleanup();
    });

    const userIdOf = (sub: string) => KeyService.idOf('jwt', sub, { network: 'sapphire_devnet' });

    /** The app on one device: its own storage, talking to `server`. */
    const open = (
      server: AuthServer,
      storage = new MemoryStorage(),
      fetcher?: typeof fetch,
      deviceName?: string,
    ) =>
      Auth.create(
        { clientId: CLIENT_ID, network: 'sapphire_devnet', sdkUrl: server.sdkUrl, sessionTime: HOUR },
        { storage, fetch: fetcher, deviceName },
      );

    async function signIn(
      server: AuthServer,
      sub: string,
      storage = new MemoryStorage(),
      deviceName?: string,
    ) {
      const auth = await open(server, storage, undefined, deviceName);
      await auth.login({ loginProvider: 'jwt', extraLoginOptions: { id_token: await issuer.sign({ sub }) } });
      return { auth, storage };
    }

    async function post(server: AuthServer, path: string, body: unknown) {
      const res = await fetch(`${server.sdkUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const json = (await res.json()) as Record<string, unknown>;
      return { status: res.status, body: json, error: errorOf(json) };
    }

    /** A session call signed by `sessionId`, as a copy of it would be made by anyone holding it. */
    const signed = (server: AuthServer, path: string, sessionId: string, payload: object) =>
      post(server, path, {
        key: storeKeyOf(sessionId),
        payload,
        signature: signStoreMessage(sessionId, `${path}:${JSON.stringify(payload)}`),
      });

    const read = (server: AuthServer, sessionId: string) =>
      post(server, '/api/session/get', { key: storeKeyOf(sessionId) });

    const admin = async (server: AuthServer, path: string, body?: unknown) => {
      const res = await fetch(`${server.sdkUrl}${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return (await res.json()) as Record<string, unknown>;
    };

    it('renews while used: a new sessionId and another sessionTime each time, never past maxSessionTime', async () => {
      const { auth, storage } = await signIn(a, 'ada');
      const key = auth.getPrivKey();
      const first = auth.state.sessionId!;
      const loginToken = auth.getUserInfo().idToken;
      const renewedIds = [first];
      // Five renewals 50 minutes apart: 4 h 10 min in all, each past the first session's hour.
      for (let i = 0; i < 5; i++) {
        clock += 50 * 60_000;
        const res = await read(i % 2 ? a : b, renewedIds.at(-1)!);
        assert.equal(res.status, 200, 'the current sessionId still reads');
        await auth.refreshSession();
        renewedIds.push(auth.state.sessionId!);
      }
      assert.equal(new Set(renewedIds).size, 6, 'every renewal made a new sessionId');
      assert.equal(auth.getPrivKey(), key, 'the same key throughout');
      for (const old of renewedIds.slice(0, -1)) assert.equal((await read(b, old)).status, 404);
      const current = await read(a, renewedIds.at(-1)!);
      assert.equal(current.status, 200);
      // maxSessionTime is 5 h from the login: 4 h 10 min are gone, the renewal granted the 50 min left.
      assert.equal(current.body.expiresIn, 50 * 60);
      assert.equal(current.body.idleTime, HOUR);
      // Each renewal brings an idToken for its window, signed by the service; a reload reads it.
      const idToken = auth.getUserInfo().idToken!;
      assert.notEqual(idToken, loginToken);
      const { payload } = await jwtVerify(idToken, createRemoteJWKSet(new URL(b.jwksUrl)), {
        audience: CLIENT_ID,
      });
      assert.equal(payload.exp! - payload.iat!, 50 * 60);
      assert.equal(payload.verifierId, 'ada');
      assert.deepEqual(payload.wallets, decodeJwt(loginToken!).wallets);
      assert.equal((await open(a, storage)).getUserInfo().idToken, idToken);
      clock += 50 * 60_000;
      await assert.rejects(auth.refreshSession(), (err: AuthError) => err.code === 'SESSION_EXPIRED');
      assert.equal(auth.getPrivKey(), '');
      assert.equal(auth.state.error, 'Session expired, please login again!');
    });

    it('a session without a chain (made before renewal existed) is not renewed, and stays', async () => {
      const sessionId = randomPrivKey();
      const key = storeKeyOf(sessionId);
      const data = encryptJsonTo(key, { privKey: 'ab'.repeat(32), userInfo: { verifierId: 'old' } });
      const put = await post(a, '/api/session', {
        key,
        data,
        signature: signStoreMessage(sessionId, data),
        timeout: 600,
      });
      assert.equal(put.status, 201);
      const storage = new MemoryStorage();
      await storage.set(`portico-auth:${CLIENT_ID}`, sessionId);
      clock += 500_000; // past half its window: still no renewal on load
      const auth = await open(b, storage);
      assert.equal(auth.state.sessionId, sessionId);
      await assert.rejects(auth.refreshSession(), (err: AuthError) => err.code === 'SERVICE_ERROR');
      assert.equal(auth.getPrivKey(), 'ab'.repeat(32));
    });

    it('a session not used within sessionTime ends', async () => {
      const { auth } = await signIn(a, 'ben');
      clock += HOUR * 1000 + 1000;
      await assert.rejects(auth.refreshSession(), (err: AuthError) => err.code === 'SESSION_EXPIRED');
    });

    it('a page load past half the window renews; a reload and a service restart keep the user signed in', async () => {
      const { auth, storage } = await signIn(a, 'cleo');
      const key = auth.getPrivKey();
      const first = auth.state.sessionId;
      clock += 20 * 60_000;
      const reload = await open(b, storage);
      assert.equal(reload.state.sessionId, first, 'before half the window: the same session');
      assert.equal(reload.getPrivKey(), key);
      clock += 20 * 60_000;
      const later = await open(b, storage);
      assert.notEqual(later.state.sessionId, first, 'past half the window: renewed on load');
      assert.equal(await storage.get(`portico-auth:${CLIENT_ID}`), later.state.sessionId);
      assert.equal(later.getPrivKey(), key);

      // The service restarts (same store, same master key, same address).
      const port = Number(new URL(a.sdkUrl).port);
      const single = b === a;
      await a.close();
      a = await startAuthServer({ ...env.options(), port });
      if (single) b = a;
      // Node's fetch may send the first request on a keep-alive connection the old process closed;
      // browsers retry such a request by themselves, and so does this fetch (once).
      const retrying: typeof fetch = (input, init) => fetch(input, init).catch(() => fetch(input, init));
      const afterRestart = await open(a, storage, retrying);
      assert.equal(afterRestart.getPrivKey(), key);
      assert.equal(afterRestart.getUserInfo().verifierId, 'cleo');
      await afterRestart.refreshSession();
      assert.equal(afterRestart.getPrivKey(), key);
    });

    it('a copied sessionId is useless after the next renewal, and presenting it later ends the sign-in (audited)', async () => {
      const { auth } = await signIn(a, 'dora');
      const copied = auth.state.sessionId!;
      clock += 40 * 60_000;
      await auth.refreshSession();
      assert.equal((await read(b, copied)).status, 404, 'the copy reads nothing');
      const newKey = storeKeyOf(auth.state.sessionId!);

      // Within the grace (another tab renewing at the same moment): refused, nothing ends.
      const racing = await signed(b, '/api/session/refresh', copied, {
        newKey: storeKeyOf(copied),
        data: 'x',
      });
      assert.deepEqual([racing.status, racing.error.code], [409, 'SESSION_ROTATED']);
      assert.equal((await post(a, '/api/session/get', { key: newKey })).status, 200);

      clock += 60_000;
      const reused = await signed(b, '/api/session/refresh', copied, {
        newKey: storeKeyOf(copied),
        data: 'x',
      });
      assert.deepEqual([reused.status, reused.error.code], [401, 'SESSION_REUSED']);
      assert.equal((await post(a, '/api/session/get', { key: newKey })).status, 404, 'the sign-in has ended');
      await assert.rejects(auth.refreshSession(), (err: AuthError) => err.code === 'SESSION_EXPIRED');
      assert.equal(auth.getPrivKey(), '');

      const audit = await admin(a, `/admin/audit?event=session.reused&user=${userIdOf('dora')}`);
      assert.deepEqual(
        (audit.entries as Array<{ detail: Record<string, unknown> }>).map((e) => [
          e.detail.outcome,
          e.detail.clientId,
        ]),
        [['refused', CLIENT_ID]],
      );
    });

    it('two tabs sharing storage: the second takes the sessionId the first renewed to', async () => {
      const storage = new MemoryStorage();
      const { auth: tab1 } = await signIn(a, 'edda', storage);
      const tab2 = await open(b, storage);
      clock += 40 * 60_000;
      await tab1.refreshSession();
      const loginIdToken = tab2.state.userInfo?.idToken;
      await tab2.refreshSession();
      assert.equal(tab2.state.sessionId, tab1.state.sessionId);
      assert.equal(tab2.getPrivKey(), tab1.getPrivKey());
      assert.ok(tab1.state.userInfo?.idToken, 'the renewal gave a fresh idToken');
      assert.notEqual(tab1.state.userInfo?.idToken, loginIdToken);
      assert.equal(
        tab2.state.userInfo?.idToken,
        tab1.state.userInfo?.idToken,
        'the tab that took the renewed session shows its idToken, not the login one',
      );
      assert.equal((await read(a, tab1.state.sessionId!)).status, 200, 'nothing was taken for reuse');
    });

    it('lists the user’s sessions in this app and ends one from another device', async () => {
      const phone = await signIn(a, 'fay', new MemoryStorage(), 'Fay’s phone\u0007');
      const laptop = await signIn(b, 'fay');
      await signIn(a, 'gus'); // another user
      clock += 1000;
      await phone.auth.refreshSession(); // the list survives renewals

      const listed = await laptop.auth.listSessions();
      assert.equal(listed.length, 2);
      assert.deepEqual(listed.map((s) => s.current).sort(), [false, true]);
      assert.ok(listed.every((s) => s.clientId === CLIENT_ID && s.expiresAt > s.createdAt));
      const phoneEntry = listed.find((s) => !s.current)!;
      assert.equal(phoneEntry.lastUsedAt, clock);
      // Named by deviceName (control characters dropped), else the user agent (Node 21+ has one).
      assert.equal(phoneEntry.device, 'Fay’s phone');
      const userAgent = (globalThis as { navigator?: { userAgent?: string } }).navigator?.userAgent;
      assert.equal(listed.find((s) => s.current)!.device, userAgent);
      assert.equal(
        JSON.stringify(listed).includes(phone.auth.state.sessionId!),
        false,
        'ids are not sessionIds',
      );

      assert.equal(await laptop.auth.endSession(phoneEntry.id), true);
      assert.equal(await laptop.auth.endSession(phoneEntry.id), false, 'already ended');
      await assert.rejects(phone.auth.refreshSession(), (err: AuthError) => err.code === 'SESSION_EXPIRED');
      const left = await laptop.auth.listSessions();
      assert.deepEqual(
        left.map((s) => s.current),
        [true],
      );
      // Ending its own session logs out here.
      assert.equal(await laptop.auth.endSession(left[0]!.id), true);
      assert.equal(laptop.auth.getPrivKey(), '');
      await assert.rejects(laptop.auth.listSessions(), (err: AuthError) => err.code === 'NO_USER_FOUND');
    });

    it('the operator ends all of a user’s sessions through the admin API', async () => {
      const one = await signIn(a, 'hal');
      const two = await signIn(b, 'hal');
      const other = await signIn(a, 'ida');
      const user = userIdOf('hal');
      const listed = await admin(b, `/admin/sessions?user=${user}`);
      assert.equal((listed.sessions as unknown[]).length, 2);
      assert.deepEqual(await admin(a, '/admin/sessions/revoke', { user }), { ended: 2 });
      for (const { auth } of [one, two]) {
        await assert.rejects(auth.refreshSession(), (err: AuthError) => err.code === 'SESSION_EXPIRED');
      }
      await other.auth.refreshSession();
      assert.notEqual(other.auth.getPrivKey(), '');
      const audit = await admin(b, `/admin/audit?event=session.revoked&user=${user}`);
      assert.deepEqual(
        (audit.entries as Array<{ detail: { by: string } }>).map((e) => e.detail.by),
        ['operator', 'operator'],
      );
      const chain = await admin(a, '/admin/audit/verify');
      assert.equal(chain.broken, undefined);
    });
  });
}

sessionSuite('sessions on SQLite', false, async (base) => {
  const dir = tempDir('portico-auth-sessions-');
  return {
    options: () => ({ ...base, dataDir: dir.path }),
    two: false,
    cleanup: async () => dir.cleanup(),
  };
});

sessionSuite('sessions on two instances sharing PostgreSQL', pgUrl.skip, async (base) => {
  const dir = tempDir('portico-auth-sessions-pg-');
  const database: FreshDatabase = await freshDatabase(pgUrl.url!);
  return {
    options: () => ({ ...base, dataDir: dir.path, databaseUrl: database.url }),
    two: true,
    cleanup: async () => {
      await database.drop();
      dir.cleanup();
    },
  };
});
