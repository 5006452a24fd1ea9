// The passkey MFA factor (`mfaSettings.passkeysFactor`, beyond the seed) at the service's API, with
// the software authenticator of ./soft-authenticator.ts standing in for the user's device: set up
// on the login page's setup step (a registration checked before anything is enabled), then, on a
// new device, the recovery step's challenge answered by the passkey releases a share that rebuilds
// the same coreKitKey with the service's share; a replayed answer, another account's passkey,
// a wrong challenge and a challenge of another step are refused under the attempt limits and
// audited as `mfa.factor` with factor `passkey`. The signature counter (SQLite and PostgreSQL): an
// answer whose counter does not move past the recorded one (a cloned authenticator) is refused, two
// answers with one counter at once pass once, and an authenticator that does not count (0) passes.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  Auth,
  decodeB64Params,
  MemoryStorage,
  type MfaSettings,
  PASSKEY_FACTOR_WARNING,
  type SessionPayload,
} from '@portico/auth';
import {
  combineShares,
  decryptJson,
  type KeyShare,
  signStoreMessage,
  storeKeyOf,
} from '@portico/auth/protocol';
import { type AuthServer, startAuthServer } from '@portico/auth-server';
import { type FreshDatabase, freshDatabase, serviceUrl, tempDir } from '@portico/testkit';
import { CLIENT_ID, type JwksIssuer, park, post, startJwksIssuer } from './helpers.ts';
import { type Bend, SoftAuthenticator } from './soft-authenticator.ts';

const ADMIN = 'admin-token-for-the-passkey-factor-test';
const SETTINGS: MfaSettings = {
  deviceShareFactor: { enable: true, priority: 1, mandatory: true },
  passkeysFactor: { enable: true, priority: 2 },
  backUpShareFactor: { enable: false },
  passwordFactor: { enable: false },
  socialBackupFactor: { enable: false },
};

type Json = Record<string, unknown>;

async function sessionOf(base: string, sessionId: string): Promise<SessionPayload> {
  const res = await post(base, '/api/session/get', { key: storeKeyOf(sessionId) });
  assert.equal(res.status, 200);
  return decryptJson<SessionPayload>(sessionId, res.body.data!);
}

function factorCall(base: string, sessionId: string, payload: Json) {
  const path = '/api/mfa/factor';
  return post(base, path, {
    key: storeKeyOf(sessionId),
    payload,
    signature: signStoreMessage(sessionId, `${path}:${JSON.stringify(payload)}`),
  });
}

/** The service under test and the issuer of its JWT logins. */
interface Harness {
  base: string;
  issuer: JwksIssuer;
}

/** A page login (the login page's JWT path) of `sub` with the passkey factor enabled by the app. */
async function pageLoginAt(h: Harness, sub: string) {
  const loginId = await park(
    h.base,
    { mfaSettings: SETTINGS },
    {
      loginProvider: 'jwt',
      mfaLevel: 'mandatory',
      extraLoginOptions: { id_token: await h.issuer.sign({ sub }), verifierIdField: 'sub' },
    },
  );
  const res = await post(h.base, '/api/login/authorize', { loginId });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return {
    loginId,
    body: res.body as unknown as { mfa?: { step: string; factors: unknown[] }; url?: string },
  };
}

/** Sets up MFA (device + passkey) for `sub` with `authenticator`: the session of that login. */
async function setUpAt(h: Harness, sub: string, authenticator: SoftAuthenticator) {
  const { loginId, body } = await pageLoginAt(h, sub);
  assert.equal(body.mfa?.step, 'setup');
  const options = await post(h.base, '/api/mfa/passkey', { loginId, mode: 'register' });
  assert.equal(options.status, 200, JSON.stringify(options.body));
  const { challengeId, options: creation } = options.body as unknown as {
    challengeId: string;
    options: never;
  };
  const response = authenticator.create(creation);
  const done = await post(h.base, '/api/mfa/setup', {
    loginId,
    factors: ['deviceShareFactor', 'passkeysFactor'],
    passkeyCredential: JSON.stringify({ challengeId, response }),
  });
  assert.equal(done.status, 200, JSON.stringify(done.body));
  return done.body.sessionId!;
}

/** A recovery on a new device: the session (first factor only) and a fresh passkey challenge. */
async function recoverAt(h: Harness, sub: string) {
  const { loginId, body } = await pageLoginAt(h, sub);
  assert.deepEqual(body.mfa, { step: 'recover', factors: ['passkeysFactor'] });
  const challenge = await post(h.base, '/api/mfa/passkey', { loginId, mode: 'login' });
  assert.equal(challenge.status, 200, JSON.stringify(challenge.body));
  const { challengeId, options } = challenge.body as unknown as {
    challengeId: string;
    options: { challenge: string; allowCredentials: Array<{ id: string }> };
  };
  const result = await post(h.base, '/api/mfa/recover', { loginId });
  assert.equal(result.status, 200);
  const sessionId = decodeB64Params<{ sessionId: string }>(result.body.url!)!.sessionId;
  return { sessionId, challengeId, options };
}

describe('the passkey MFA factor (software authenticator)', { timeout: 120_000 }, () => {
  const dir = tempDir('portico-auth-passkey-factor-');
  let issuer: JwksIssuer;
  let server: AuthServer;
  let base: string;
  let device: SoftAuthenticator;
  let coreKitKey = '';

  const h = {} as Harness;
  const pageLogin = (sub: string) => pageLoginAt(h, sub);
  const setUp = (sub: string, authenticator: SoftAuthenticator) => setUpAt(h, sub, authenticator);
  const recover = (sub: string) => recoverAt(h, sub);

  before(async () => {
    issuer = await startJwksIssuer();
    h.issuer = issuer;
    server = await startAuthServer({
      dataDir: dir.path,
      masterKey: 'b'.repeat(64),
      adminToken: ADMIN,
      // Failures come back to back here: no quick-failure wait (the other limits stay).
      attemptLimits: { quickFailureMs: 0, failureFactor: 5 },
      verifiers: { jwt: { type: 'jwt', keys: [issuer.publicJwk] } },
    });
    base = server.sdkUrl;
    h.base = base;
    device = new SoftAuthenticator(new URL(base).hostname, new URL(base).origin);
    // The user's key before MFA (a login that never prompts).
    const plain = await park(
      base,
      {},
      {
        loginProvider: 'jwt',
        mfaLevel: 'none',
        extraLoginOptions: { id_token: await issuer.sign({ sub: 'pat' }), verifierIdField: 'sub' },
      },
    );
    const res = await post(base, '/api/login/jwt', { loginId: plain });
    coreKitKey = (await sessionOf(base, res.body.sessionId!)).coreKitKey!;
  });
  after(async () => {
    await server?.close();
    await issuer?.close();
    dir.cleanup();
  });

  it('the library warns at init that the service holds the passkey factor’s share', async () => {
    const warnings: string[] = [];
    await Auth.create(
      { clientId: CLIENT_ID, network: 'sapphire_devnet', sdkUrl: base, mfaSettings: SETTINGS },
      { storage: new MemoryStorage(), onWarning: (m) => warnings.push(m) },
    );
    assert.ok(warnings.includes(`[portico/auth] ${PASSKEY_FACTOR_WARNING}`), JSON.stringify(warnings));
  });

  it('setup refuses a missing passkey and a challenge of another login; a made passkey enables the factor', async () => {
    const { loginId } = await pageLogin('pat');
    const missing = await post(base, '/api/mfa/setup', {
      loginId,
      factors: ['deviceShareFactor', 'passkeysFactor'],
    });
    assert.equal(missing.status, 400);
    assert.match(missing.error.message, /passkeyCredential/);
    const other = await pageLogin('someone-else');
    const foreign = await post(base, '/api/mfa/passkey', { loginId: other.loginId, mode: 'register' });
    const { challengeId, options } = foreign.body as unknown as { challengeId: string; options: never };
    const crossed = await post(base, '/api/mfa/setup', {
      loginId,
      factors: ['deviceShareFactor', 'passkeysFactor'],
      passkeyCredential: JSON.stringify({ challengeId, response: device.create(options) }),
    });
    assert.equal(crossed.status, 400);
    assert.match(crossed.error.message, /unknown, used or expired/);

    const sessionId = await setUp('pat', device);
    const state = await sessionOf(base, sessionId);
    assert.deepEqual(state.mfa?.factors.slice().sort(), ['deviceShareFactor', 'passkeysFactor']);
    assert.equal(state.coreKitKey, coreKitKey, 'the login that enabled MFA still carries the key');
  });

  it('on a new device the passkey answers the recovery challenge: its share rebuilds the same key', async () => {
    const { sessionId, challengeId, options } = await recover('pat');
    const state = await sessionOf(base, sessionId);
    assert.equal(state.coreKitKey, undefined, 'a first-factor session carries no key');
    assert.equal(options.allowCredentials.length, 1);
    const answer = JSON.stringify({ challengeId, response: device.get(options) });
    const res = await factorCall(base, sessionId, { passkeyAssertion: answer });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const share = (res.body as unknown as { share: KeyShare }).share;
    assert.equal(await combineShares(state.mfa!.serviceShare, share), coreKitKey);

    // The same answer again: its challenge is used up.
    const replay = await factorCall(base, sessionId, { passkeyAssertion: answer });
    assert.equal(replay.status, 401);
    assert.equal(replay.error.code, 'MFA_FACTOR_INVALID');
    assert.match(replay.error.message, /unknown, used or expired/);
  });

  it('refuses another account’s passkey, a wrong challenge and a setup challenge; audited as factor passkey', async () => {
    const other = new SoftAuthenticator(new URL(base).hostname, new URL(base).origin);
    await setUp('quinn', other);
    // Quinn's passkey answering Pat's challenge.
    const a = await recover('pat');
    const foreign = await factorCall(base, a.sessionId, {
      passkeyAssertion: JSON.stringify({ challengeId: a.challengeId, response: other.get(a.options) }),
    });
    assert.equal(foreign.status, 401);
    assert.match(foreign.error.message, /not this account's passkey/);
    // Pat's passkey signing another challenge than the one issued.
    const b = await recover('pat');
    const wrong = await factorCall(base, b.sessionId, {
      passkeyAssertion: JSON.stringify({
        challengeId: b.challengeId,
        response: device.get(b.options, { challenge: 'AAAAAAAAAAAAAAAAAAAAAA' }),
      }),
    });
    assert.equal(wrong.status, 401);
    assert.match(wrong.error.message, /challenge/i);
    // A challenge issued for Quinn's recovery cannot serve Pat's session.
    const q = await recover('quinn');
    const c = await recover('pat');
    const crossed = await factorCall(base, c.sessionId, {
      passkeyAssertion: JSON.stringify({ challengeId: q.challengeId, response: device.get(q.options) }),
    });
    assert.equal(crossed.status, 401);
    assert.match(crossed.error.message, /unknown, used or expired/);

    const audit = await fetch(`${base}/admin/audit?event=mfa.factor&limit=100`, {
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    const entries = ((await audit.json()) as { entries: Array<{ detail: Json }> }).entries;
    const passkey = entries.filter((e) => e.detail.factor === 'passkey');
    assert.ok(passkey.some((e) => e.detail.outcome === 'success'));
    assert.ok(passkey.filter((e) => e.detail.outcome === 'failure').length >= 4);

    // The attempt limits hold for passkey answers too: past failureFactor (5) Pat waits, and
    // during the wait even a right answer is refused.
    for (let i = 0; i < 2; i++) {
      const d = await recover('pat');
      await factorCall(base, d.sessionId, { passkeyAssertion: 'not an answer' });
    }
    const e = await recover('pat');
    const right = JSON.stringify({ challengeId: e.challengeId, response: device.get(e.options) });
    const waiting = await factorCall(base, e.sessionId, { passkeyAssertion: right });
    assert.equal(waiting.status, 429, JSON.stringify(waiting.body));
    assert.equal(waiting.error.code, 'TOO_MANY_ATTEMPTS');
  });
});

/** A check of `sub`'s passkey: a fresh recovery challenge answered by `authenticator` with `bend`. */
async function answerAt(h: Harness, sub: string, authenticator: SoftAuthenticator, bend: Bend = {}) {
  const { sessionId, challengeId, options } = await recoverAt(h, sub);
  const response = authenticator.get(options, bend);
  return factorCall(h.base, sessionId, { passkeyAssertion: JSON.stringify({ challengeId, response }) });
}

function counterTests(
  name: string,
  open: (issuer: JwksIssuer) => Promise<{ server: AuthServer; done(): Promise<void> }>,
  skip: string | boolean = false,
) {
  describe(`the passkey factor's signature counter (${name})`, { skip, timeout: 120_000 }, () => {
    const h = {} as Harness;
    let started: { server: AuthServer; done(): Promise<void> };
    const origin = () => [new URL(h.base).hostname, new URL(h.base).origin] as const;
    before(async () => {
      h.issuer = await startJwksIssuer();
      started = await open(h.issuer);
      h.base = started.server.sdkUrl;
    });
    after(async () => {
      await started?.server.close();
      await started?.done();
      await h.issuer?.close();
    });

    it('a moving counter passes; the same counter again and one that goes back are refused and audited', async () => {
      const device = new SoftAuthenticator(...origin());
      await setUpAt(h, 'rae', device);
      const first = await answerAt(h, 'rae', device, { counter: 3 });
      assert.equal(first.status, 200, JSON.stringify(first.body));
      // A clone of the authenticator answers with the counter it copied.
      const cloned = await answerAt(h, 'rae', device, { counter: 3 });
      assert.equal(cloned.status, 401, JSON.stringify(cloned.body));
      assert.equal(cloned.error.code, 'MFA_FACTOR_INVALID');
      assert.match(cloned.error.message, /counter/);
      const moved = await answerAt(h, 'rae', device, { counter: 7 });
      assert.equal(moved.status, 200, JSON.stringify(moved.body));
      const back = await answerAt(h, 'rae', device, { counter: 5 });
      assert.equal(back.status, 401, JSON.stringify(back.body));
      assert.match(back.error.message, /counter/);
      const zero = await answerAt(h, 'rae', device, { counter: 0 });
      assert.equal(zero.status, 401, 'a counting authenticator cannot fall back to 0');
      const next = await answerAt(h, 'rae', device, { counter: 8 });
      assert.equal(next.status, 200, JSON.stringify(next.body));

      const audit = await fetch(`${h.base}/admin/audit?event=mfa.factor&limit=100`, {
        headers: { authorization: `Bearer ${ADMIN}` },
      });
      const entries = ((await audit.json()) as { entries: Array<{ detail: Json }> }).entries;
      const refused = entries.filter(
        (e) =>
          e.detail.factor === 'passkey' &&
          e.detail.outcome === 'failure' &&
          /counter/.test(String(e.detail.reason)),
      );
      assert.equal(refused.length, 3, JSON.stringify(entries));
    });

    it('two answers with the same counter at once: one passes', async () => {
      const device = new SoftAuthenticator(...origin());
      await setUpAt(h, 'sam', device);
      const [a, b] = await Promise.all([recoverAt(h, 'sam'), recoverAt(h, 'sam')]);
      const answer = (r: typeof a) =>
        factorCall(h.base, r.sessionId, {
          passkeyAssertion: JSON.stringify({
            challengeId: r.challengeId,
            response: device.get(r.options, { counter: 1 }),
          }),
        });
      const answers = await Promise.all([answer(a), answer(b)]);
      const passed = answers.filter((r) => r.status === 200);
      // The other is refused by the counter, never by the attempt limiter (two clocks read out of
      // order once made it wait for the first): never both through.
      assert.equal(passed.length, 1, JSON.stringify(answers.map((r) => r.body)));
      const refused = answers.find((r) => r.status !== 200)!;
      assert.equal(refused.status, 401, JSON.stringify(refused.body));
      assert.match(refused.error.message, /counter/);
    });

    it('an authenticator that does not count (always 0) passes every time', async () => {
      const device = new SoftAuthenticator(...origin());
      await setUpAt(h, 'tay', device);
      for (let i = 0; i < 3; i++) {
        const res = await answerAt(h, 'tay', device, { counter: 0 });
        assert.equal(res.status, 200, JSON.stringify(res.body));
      }
    });
  });
}

/** A service with the JWT verifier of `issuer` on `store` (SQLite in a data dir, or PostgreSQL). */
const serverOf = (issuer: JwksIssuer, store: { dataDir: string; databaseUrl?: string }) =>
  startAuthServer({
    ...store,
    masterKey: 'b'.repeat(64),
    adminToken: ADMIN,
    attemptLimits: { quickFailureMs: 0, failureFactor: 10 },
    verifiers: { jwt: { type: 'jwt', keys: [issuer.publicJwk] } },
  });

counterTests('SQLite', async (issuer) => {
  const dir = tempDir('portico-auth-passkey-counter-');
  return { server: await serverOf(issuer, { dataDir: dir.path }), done: async () => dir.cleanup() };
});

const pgUrl = serviceUrl('DATABASE_URL');
counterTests(
  'PostgreSQL',
  async (issuer) => {
    const dir = tempDir('portico-auth-passkey-counter-pg-');
    const database: FreshDatabase = await freshDatabase(pgUrl.url!);
    return {
      server: await serverOf(issuer, { dataDir: dir.path, databaseUrl: database.url }),
      done: async () => {
        await database.drop();
        dir.cleanup();
      },
    };
  },
  pgUrl.skip,
);
