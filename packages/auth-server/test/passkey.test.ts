// Passkey logins (WebAuthn) at the service's API, with a software authenticator written in this
// test that stands in for a device (./soft-authenticator.ts: P-256 from @noble/curves, CBOR and
// authenticator data built by hand). A passkey registered without a session is a fresh account
// and signs in to it again; a passkey linked by a signed-in user signs in to that user's account
// with the same keys; the ceremony's refusals (wrong challenge, a challenge answered twice, an
// expired one, another login's, wrong origin, wrong RP ID, unknown credential, a counter that goes
// back, no user verification); the audit trail; the per-address rate limit; and challenges shared
// by two instances on PostgreSQL (issued by one, answered at the other, never twice).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeB64Params, type SessionPayload } from '@portico/auth';
import { decryptJson, signStoreMessage, storeKeyOf } from '@portico/auth/protocol';
import { type AuthServer, startAuthServer } from '@portico/auth-server';
import { type FreshDatabase, freePort, freshDatabase, serviceUrl, tempDir } from '@portico/testkit';
import { KeyService } from '../src/keys.ts';
import { type JwksIssuer, park, post, startJwksIssuer } from './helpers.ts';
import { SoftAuthenticator } from './soft-authenticator.ts';

const ADMIN = 'admin-token-for-the-passkey-tests-0001';
const MASTER = 'a'.repeat(64);

/** The keys a login's session carries (decrypted with its sessionId). */
async function sessionKeys(base: string, sessionId: string): Promise<SessionPayload> {
  const res = await post(base, '/api/session/get', { key: storeKeyOf(sessionId) });
  assert.equal(res.status, 200);
  return decryptJson<SessionPayload>(sessionId, res.body.data!);
}

function sessionIdOf(url: string): string {
  const result = decodeB64Params<{ sessionId?: string; error?: string }>(url);
  assert.ok(result?.sessionId, `no sessionId in ${url}`);
  return result.sessionId;
}

type Json = Record<string, unknown>;

/** Parks a passkey login and asks for a challenge: `{ loginId, challengeId, options }`. */
async function begin(base: string, mode: 'login' | 'register', loginId?: string) {
  const id = loginId ?? (await park(base, {}, { loginProvider: 'passkey' }));
  const res = await post(base, '/api/login/passkey/options', { loginId: id, mode });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const body = res.body as unknown as { challengeId: string; options: Json & { challenge: string } };
  return { loginId: id, challengeId: body.challengeId, options: body.options };
}

function verify(base: string, loginId: string, challengeId: string, response: unknown) {
  return post(base, '/api/login/passkey/verify', { loginId, challengeId, response });
}

/** A JWT login through the API: its sessionId. */
async function jwtLogin(base: string, issuer: JwksIssuer, sub: string): Promise<string> {
  const loginId = await park(
    base,
    {},
    {
      loginProvider: 'jwt',
      extraLoginOptions: { id_token: await issuer.sign({ sub }), verifierIdField: 'sub' },
    },
  );
  const res = await post(base, '/api/login/jwt', { loginId });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.sessionId!;
}

async function audit(base: string, event: string): Promise<Array<{ detail: Json; userId?: string }>> {
  const res = await fetch(`${base}/admin/audit?event=${event}&limit=1000`, {
    headers: { authorization: `Bearer ${ADMIN}` },
  });
  const body = (await res.json()) as { entries: Array<{ detail: Json; user?: string }> };
  return body.entries.map((e) => ({ detail: e.detail, userId: e.user }));
}

describe('passkey logins (software authenticator)', { timeout: 120_000 }, () => {
  const dir = tempDir('portico-auth-passkey-');
  let issuer: JwksIssuer;
  let server: AuthServer;
  let base: string;
  let device: SoftAuthenticator;
  let clock = Date.now();

  before(async () => {
    issuer = await startJwksIssuer();
    server = await startAuthServer({
      dataDir: dir.path,
      masterKey: MASTER,
      adminToken: ADMIN,
      clock: () => clock,
      verifiers: {
        jwt: { type: 'jwt', keys: [issuer.publicJwk] },
        passkey: { type: 'passkey', timeoutSeconds: 120 },
      },
    });
    base = server.sdkUrl;
    device = new SoftAuthenticator(new URL(base).hostname, new URL(base).origin);
  });
  after(async () => {
    await server?.close();
    await issuer?.close();
    dir.cleanup();
  });

  it('the login page is offered the passkey screen; registration makes a fresh account that the passkey signs in to again', async () => {
    const loginId = await park(base, {}, { loginProvider: 'passkey' });
    const step = await post(base, '/api/login/authorize', { loginId });
    assert.deepEqual(step.body, { passkey: { link: false, register: true } });
    const reg = await begin(base, 'register', loginId);
    assert.equal((reg.options.rp as Json).id, new URL(base).hostname);
    assert.equal((reg.options.authenticatorSelection as Json).residentKey, 'required');
    const made = await verify(base, loginId, reg.challengeId, device.create(reg.options as never));
    assert.equal(made.status, 200, JSON.stringify(made.body));
    const first = await sessionKeys(base, sessionIdOf(made.body.url!));
    assert.equal(first.userInfo?.verifier, 'passkey');
    assert.equal(first.userInfo?.typeOfLogin, 'passkey');
    assert.match(first.privKey!, /^[0-9a-f]{64}$/);

    const again = await begin(base, 'login');
    const signedIn = await verify(base, again.loginId, again.challengeId, device.get(again.options));
    assert.equal(signedIn.status, 200, JSON.stringify(signedIn.body));
    const second = await sessionKeys(base, sessionIdOf(signedIn.body.url!));
    assert.equal(second.privKey, first.privKey);
    assert.equal(second.coreKitKey, first.coreKitKey);
    assert.equal(second.userInfo?.verifierId, first.userInfo?.verifierId);

    // Another fresh registration is another account.
    const other = new SoftAuthenticator(new URL(base).hostname, new URL(base).origin);
    const reg2 = await begin(base, 'register');
    const made2 = await verify(base, reg2.loginId, reg2.challengeId, other.create(reg2.options as never));
    const third = await sessionKeys(base, sessionIdOf(made2.body.url!));
    assert.notEqual(third.privKey, first.privKey);
  });

  it('a signed-in user links a passkey; signing in with it alone gives the same keys as the JWT verifier', async () => {
    const sessionId = await jwtLogin(base, issuer, 'linker');
    const jwtKeys = await sessionKeys(base, sessionId);
    const loginId = await park(base, {}, { loginProvider: 'passkey' });
    const payload = { loginId };
    const linked = await post(base, '/api/passkey/link', {
      key: storeKeyOf(sessionId),
      payload,
      signature: signStoreMessage(sessionId, `/api/passkey/link:${JSON.stringify(payload)}`),
    });
    assert.equal(linked.status, 200, JSON.stringify(linked.body));
    const step = await post(base, '/api/login/authorize', { loginId });
    assert.deepEqual(step.body, { passkey: { link: true, register: true } });
    const phone = new SoftAuthenticator(new URL(base).hostname, new URL(base).origin);
    const reg = await begin(base, 'register', loginId);
    // The user handle the browser sees names the account without its id or email (a MAC under the master key).
    const handle = Buffer.from((reg.options.user as { id: string }).id, 'base64url');
    assert.equal(handle.length, 32);
    assert.notEqual(handle.toString('hex'), KeyService.idOf('jwt', 'linker'));
    assert.equal((reg.options.user as { name: string }).name, 'linker');
    const made = await verify(base, loginId, reg.challengeId, phone.create(reg.options as never));
    assert.equal(made.status, 200, JSON.stringify(made.body));
    const afterLink = await sessionKeys(base, sessionIdOf(made.body.url!));
    assert.equal(afterLink.privKey, jwtKeys.privKey);

    const signIn = await begin(base, 'login');
    const done = await verify(base, signIn.loginId, signIn.challengeId, phone.get(signIn.options));
    assert.equal(done.status, 200, JSON.stringify(done.body));
    const viaPasskey = await sessionKeys(base, sessionIdOf(done.body.url!));
    assert.equal(viaPasskey.privKey, jwtKeys.privKey);
    assert.equal(viaPasskey.coreKitKey, jwtKeys.coreKitKey);
    assert.equal(viaPasskey.ed25519PrivKey, jwtKeys.ed25519PrivKey);
    assert.equal(viaPasskey.userInfo?.verifier, 'jwt');
    assert.equal(viaPasskey.userInfo?.verifierId, 'linker');

    // The link needs the session's signature, and a live session.
    const loginId2 = await park(base, {}, { loginProvider: 'passkey' });
    const forged = await post(base, '/api/passkey/link', {
      key: storeKeyOf(sessionId),
      payload: { loginId: loginId2 },
      signature: signStoreMessage(sessionId, `/api/passkey/link:${JSON.stringify(payload)}`),
    });
    assert.equal(forged.status, 401);
    const step2 = await post(base, '/api/login/authorize', { loginId: loginId2 });
    assert.deepEqual(step2.body, { passkey: { link: false, register: true } });
  });

  it('a linked passkey stopped at the MFA setup prompt resumes as the linked account; an MFA account still needs its second factor', async () => {
    const linkTo = async (sessionId: string, params: Json = {}) => {
      const loginId = await park(base, {}, { loginProvider: 'passkey', ...params });
      const payload = { loginId };
      const res = await post(base, '/api/passkey/link', {
        key: storeKeyOf(sessionId),
        payload,
        signature: signStoreMessage(sessionId, `/api/passkey/link:${JSON.stringify(payload)}`),
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return loginId;
    };
    const jwtKeys = await sessionKeys(base, await jwtLogin(base, issuer, 'prompted'));
    const device2 = new SoftAuthenticator(new URL(base).hostname, new URL(base).origin);
    const linkId = await linkTo(await jwtLogin(base, issuer, 'prompted'));
    const reg = await begin(base, 'register', linkId);
    assert.equal(
      (await verify(base, linkId, reg.challengeId, device2.create(reg.options as never))).status,
      200,
    );
    // mfaLevel optional: the passkey login stops for the setup screen; skipping it finishes the
    // login of the account the passkey was linked to (not a passkey account of the same id).
    const loginId = await park(base, {}, { loginProvider: 'passkey', mfaLevel: 'optional' });
    const c = await begin(base, 'login', loginId);
    const stopped = await verify(base, loginId, c.challengeId, device2.get(c.options));
    assert.equal(stopped.status, 200, JSON.stringify(stopped.body));
    assert.equal((stopped.body as unknown as { mfa: { step: string } }).mfa.step, 'setup');
    const skipped = await post(base, '/api/mfa/skip', { loginId });
    assert.equal(skipped.status, 200, JSON.stringify(skipped.body));
    const resumed = await sessionKeys(base, skipped.body.sessionId!);
    assert.equal(resumed.privKey, jwtKeys.privKey);
    assert.equal(resumed.userInfo?.verifier, 'jwt');

    // An account with MFA on: the passkey is a first factor, the session carries no key.
    const mfaLogin = await park(
      base,
      {},
      {
        loginProvider: 'jwt',
        mfaLevel: 'mandatory',
        extraLoginOptions: { id_token: await issuer.sign({ sub: 'with-mfa' }), verifierIdField: 'sub' },
      },
    );
    assert.equal((await post(base, '/api/login/jwt', { loginId: mfaLogin })).status, 200);
    const enabled = await post(base, '/api/mfa/setup', {
      loginId: mfaLogin,
      factors: ['deviceShareFactor', 'passwordFactor'],
      password: 'correct horse battery',
    });
    assert.equal(enabled.status, 200, JSON.stringify(enabled.body));
    const mfaDevice = new SoftAuthenticator(new URL(base).hostname, new URL(base).origin);
    const link2 = await linkTo(enabled.body.sessionId!);
    const reg2 = await begin(base, 'register', link2);
    const afterSetup = await verify(base, link2, reg2.challengeId, mfaDevice.create(reg2.options as never));
    assert.equal(afterSetup.status, 200, JSON.stringify(afterSetup.body));
    const d = await begin(base, 'login');
    const firstFactor = await verify(base, d.loginId, d.challengeId, mfaDevice.get(d.options));
    assert.equal(firstFactor.status, 200, JSON.stringify(firstFactor.body));
    // This device has no device share: the page's recovery screen asks for the password.
    assert.deepEqual(firstFactor.body, { mfa: { step: 'recover', factors: ['passwordFactor'] } });
  });

  it('refuses a wrong challenge, a challenge answered twice, an expired one and another login’s', async () => {
    // The authenticator signs another challenge than the one issued.
    const a = await begin(base, 'login');
    const wrong = await verify(
      base,
      a.loginId,
      a.challengeId,
      device.get(a.options, { challenge: 'AAAAAAAAAAAAAAAAAAAAAA' }),
    );
    assert.equal(wrong.status, 401);
    assert.match(wrong.error.message, /challenge/i);
    // That challenge was used up by the failed answer too.
    const retry = await verify(base, a.loginId, a.challengeId, device.get(a.options));
    assert.equal(retry.status, 400);
    assert.match(retry.error.message, /unknown, used or expired/);

    // A right answer, then the same answer again: the challenge is gone.
    const b = await begin(base, 'login');
    const answer = device.get(b.options);
    assert.equal((await verify(base, b.loginId, b.challengeId, answer)).status, 200);
    const b2 = await begin(base, 'login');
    const replay = await verify(base, b2.loginId, b.challengeId, answer);
    assert.equal(replay.status, 400);
    assert.match(replay.error.message, /unknown, used or expired/);
    // The same signed answer against a fresh challenge: its clientData names the old one.
    const replayed = await verify(base, b2.loginId, b2.challengeId, answer);
    assert.equal(replayed.status, 401);
    assert.match(replayed.error.message, /challenge/i);

    // Past the verifier's timeout (120 s) the challenge has expired.
    const c = await begin(base, 'login');
    clock += 121_000;
    const late = await verify(base, c.loginId, c.challengeId, device.get(c.options));
    assert.equal(late.status, 400);
    assert.match(late.error.message, /unknown, used or expired/);

    // A challenge issued for one login cannot finish another.
    const d = await begin(base, 'login');
    const e = await begin(base, 'login');
    const crossed = await verify(base, e.loginId, d.challengeId, device.get(d.options));
    assert.equal(crossed.status, 400);
    assert.match(crossed.error.message, /another login/);
    // ...nor use it up: its own login still can.
    const own = await verify(base, d.loginId, d.challengeId, device.get(d.options));
    assert.equal(own.status, 200, JSON.stringify(own.body));
  });

  it('refuses a wrong origin, a wrong RP ID, an unknown credential, a counter that goes back and no user verification', async () => {
    const a = await begin(base, 'login');
    const evil = await verify(
      base,
      a.loginId,
      a.challengeId,
      device.get(a.options, { origin: 'https://evil.example' }),
    );
    assert.equal(evil.status, 401);
    assert.match(evil.error.message, /origin/i);

    const b = await begin(base, 'login');
    const rp = await verify(base, b.loginId, b.challengeId, device.get(b.options, { rpId: 'evil.example' }));
    assert.equal(rp.status, 401);
    assert.match(rp.error.message, /RP ID/i);

    // A credential this service never registered (made for the RP, but never sent to it).
    const stranger = new SoftAuthenticator(new URL(base).hostname, new URL(base).origin);
    stranger.create({ challenge: 'AAAA', user: { id: 'AAAA' } });
    const c = await begin(base, 'login');
    const unknown = await verify(base, c.loginId, c.challengeId, stranger.get(c.options));
    assert.equal(unknown.status, 401);
    assert.match(unknown.error.message, /Unknown passkey/);

    const d = await begin(base, 'login');
    const cloned = await verify(base, d.loginId, d.challengeId, device.get(d.options, { counter: 1 }));
    assert.equal(cloned.status, 401);
    assert.match(cloned.error.message, /counter/i);

    const e = await begin(base, 'login');
    const noUv = await verify(base, e.loginId, e.challengeId, device.get(e.options, { userVerified: false }));
    assert.equal(noUv.status, 401);
    assert.match(noUv.error.message, /verif/i);

    // A registration answered from another origin is not stored.
    const f = await begin(base, 'register');
    const regEvil = await verify(
      base,
      f.loginId,
      f.challengeId,
      stranger.create(f.options as never, { origin: 'https://evil.example' }),
    );
    assert.equal(regEvil.status, 401);
    const g = await begin(base, 'login');
    const notStored = await verify(base, g.loginId, g.challengeId, stranger.get(g.options));
    assert.equal(notStored.status, 401);
    assert.match(notStored.error.message, /Unknown passkey/);
  });

  it('the audit trail records registrations (new, link) and logins, refusals with their reason', async () => {
    const registered = await audit(base, 'passkey.registered');
    const modes = registered.filter((e) => e.detail.outcome === 'success').map((e) => e.detail.mode);
    assert.ok(modes.includes('new') && modes.includes('link'), JSON.stringify(modes));
    const linked = registered.find((e) => e.detail.mode === 'link')!;
    assert.equal(linked.detail.verifier, 'jwt');
    assert.match(String(linked.detail.credential), /^[A-Za-z0-9_-]+$/);
    const logins = await audit(base, 'passkey.login');
    assert.ok(logins.some((e) => e.detail.outcome === 'success' && e.detail.verifier === 'jwt'));
    const reasons = logins.filter((e) => e.detail.outcome === 'failure').map((e) => String(e.detail.reason));
    assert.ok(reasons.some((r) => /Unknown passkey/.test(r)));
    assert.ok(reasons.some((r) => /origin/i.test(r)));
    for (const e of [...registered, ...logins]) {
      assert.equal(JSON.stringify(e.detail).includes('privKey'), false);
      assert.equal(e.detail.address !== undefined, true);
    }
    const check = await fetch(`${base}/admin/audit/verify`, {
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    assert.equal(((await check.json()) as { broken?: unknown }).broken, undefined);
  });

  it('the login page lists the passkey verifier as a provider', async () => {
    const loginId = await park(base, {}, {});
    const view = await post(base, '/api/login/request', { loginId });
    assert.deepEqual((view.body as unknown as { providers: unknown }).providers, [
      { id: 'passkey', name: 'Passkey', typeOfLogin: 'passkey' },
    ]);
  });

  it('refuses a passkey ceremony for a provider that is not a passkey verifier', async () => {
    const loginId = await park(base, {}, { loginProvider: 'passkey' });
    const res = await post(base, '/api/login/passkey/options', { loginId, mode: 'login', provider: 'jwt' });
    assert.equal(res.status, 400);
    assert.match(res.error.message, /not a passkey verifier/);
  });
});

describe('passkey sign-ins under the per-address rate limit', { timeout: 60_000 }, () => {
  const dir = tempDir('portico-auth-passkey-rate-');
  let server: AuthServer;
  before(async () => {
    server = await startAuthServer({
      dataDir: dir.path,
      masterKey: MASTER,
      verifiers: { passkey: { type: 'passkey' } },
      rateLimits: { tokensPerMinute: 3 },
    });
  });
  after(async () => {
    await server?.close();
    dir.cleanup();
  });

  it('answers 429 past tokensPerMinute on /api/login/passkey/verify', async () => {
    const base = server.sdkUrl;
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await post(base, '/api/login/passkey/verify', {
        loginId: '1'.repeat(64),
        challengeId: '0'.repeat(48),
        response: { id: 'x' },
      });
      statuses.push(res.status);
    }
    // Three well-formed ones refused on their merits (no such login), the fourth by the rate limit.
    assert.deepEqual(statuses, [404, 404, 404, 429]);
  });
});

const pgUrl = serviceUrl('DATABASE_URL');

describe('passkey challenges and credentials on PostgreSQL, two instances', {
  skip: pgUrl.skip,
  timeout: 120_000,
}, () => {
  const dir = tempDir('portico-auth-passkey-pg-');
  let database: FreshDatabase;
  let a: AuthServer;
  let b: AuthServer;
  let portA: string;
  let portB: string;
  // Both instances are one relying party: the public URL they share.
  const publicUrl = 'https://auth.portico.test';

  before(async () => {
    database = await freshDatabase(pgUrl.url!);
    const options = {
      databaseUrl: database.url,
      masterKey: MASTER,
      publicUrl,
      verifiers: { passkey: { type: 'passkey' as const } },
    };
    const [pa, pb] = [await freePort(), await freePort()];
    a = await startAuthServer({ ...options, port: pa, dataDir: `${dir.path}/a` });
    b = await startAuthServer({ ...options, port: pb, dataDir: `${dir.path}/b` });
    portA = `http://127.0.0.1:${pa}`;
    portB = `http://127.0.0.1:${pb}`;
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await database?.drop();
    dir.cleanup();
  });

  it('a challenge issued by one instance is answered at the other, once; the passkey works on both', async () => {
    // The services answer on their own ports; the browser's origin is the public URL.
    assert.equal(a.sdkUrl, publicUrl);
    const device = new SoftAuthenticator('auth.portico.test', publicUrl);
    const reg = await begin(portA, 'register');
    const made = await verify(portB, reg.loginId, reg.challengeId, device.create(reg.options as never));
    assert.equal(made.status, 200, JSON.stringify(made.body));
    // Answered again: the login it finished is gone, and so is its challenge.
    const again = await verify(portA, reg.loginId, reg.challengeId, device.create(reg.options as never));
    assert.equal(again.status, 404);

    const login = await begin(portB, 'login');
    // The registered credential (the replay above made a second one, never stored).
    const answer = device.get(login.options, {}, device.credentials[0]);
    const [x, y] = await Promise.all([
      verify(portA, login.loginId, login.challengeId, answer),
      verify(portB, login.loginId, login.challengeId, answer),
    ]);
    // Answered twice at once on two instances: one wins.
    assert.deepEqual([x.status, y.status].sort(), [200, 400], JSON.stringify([x.body, y.body]));
    const first = await sessionKeys(portA, sessionIdOf(made.body.url!));
    const winner = x.status === 200 ? x : y;
    const second = await sessionKeys(portB, sessionIdOf(winner.body.url!));
    assert.equal(second.privKey, first.privKey);
  });
});

/** A port free a moment ago (the instances below listen on known ports behind one public URL). */
