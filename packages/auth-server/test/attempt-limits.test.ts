// Attempt limits on typed second factors (password, backup phrase, social-backup login), on two
// service instances sharing PostgreSQL: failures count together, per user and per client address
// (X-Forwarded-For through `trustProxy`), the wait doubles up to the lockout, a right guess during
// a wait is refused, and the wait ends by time or by the operator (admin API). Time is the
// services' shared clock, moved by the test.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  Auth,
  type AuthInitParams,
  MemoryStorage,
  type MfaSettings,
  type SessionPayload,
} from '@portico/auth';
import { decryptJson, signStoreMessage, storeKeyOf } from '@portico/auth/protocol';
import { type AuthServer, startAuthServer } from '@portico/auth-server';
import { type FreshDatabase, freshDatabase, serviceUrl, tempDir } from '@portico/testkit';
import { KeyService } from '../src/keys.ts';
import { CLIENT_ID, errorOf, type JwksIssuer, park, startJwksIssuer } from './helpers.ts';

const PASSWORD = 'correct horse battery';
const ADMIN = 'admin-token-for-the-attempt-limit-test';
const SETTINGS: MfaSettings = {
  deviceShareFactor: { enable: true, priority: 1, mandatory: false },
  backUpShareFactor: { enable: true, priority: 2, mandatory: false },
  socialBackupFactor: { enable: false },
  passwordFactor: { enable: true, priority: 3, mandatory: false },
};
const pgUrl = serviceUrl('DATABASE_URL');

describe('attempt limits on two instances sharing PostgreSQL', { skip: pgUrl.skip, timeout: 600_000 }, () => {
  const dir = tempDir('portico-auth-attempts-');
  let issuer: JwksIssuer;
  let database: FreshDatabase;
  let a: AuthServer;
  let b: AuthServer;
  let clock = Date.now();

  before(async () => {
    issuer = await startJwksIssuer();
    database = await freshDatabase(pgUrl.url!);
    const options = {
      databaseUrl: database.url,
      masterKey: 'e'.repeat(64),
      verifiers: {
        jwt: { type: 'jwt' as const, keys: [issuer.publicJwk] },
        social: { type: 'jwt' as const, keys: [issuer.publicJwk] },
      },
      clock: () => clock,
      trustProxy: true,
      adminToken: ADMIN,
      attemptLimits: { failureFactor: 3, waitIncrementSeconds: 60, maxWaitSeconds: 300 },
    };
    a = await startAuthServer({ ...options, dataDir: `${dir.path}/a` });
    b = await startAuthServer({ ...options, dataDir: `${dir.path}/b` });
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await issuer?.close();
    await database?.drop();
    dir.cleanup();
  });

  const init = (): AuthInitParams => ({
    clientId: CLIENT_ID,
    network: 'sapphire_devnet',
    sdkUrl: a.sdkUrl,
    useCoreKitKey: true,
    mfaSettings: SETTINGS,
  });
  const userIdOf = (sub: string) => KeyService.idOf('jwt', sub, { network: 'sapphire_devnet' });

  async function post(server: AuthServer, path: string, body: unknown, address = '198.51.100.1') {
    const res = await fetch(`${server.sdkUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': `203.0.113.9, ${address}` },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as Record<string, unknown>;
    return { status: res.status, body: json, error: errorOf(json) };
  }

  /** A user with MFA on: device, backup phrase, password (and social backup with `friend`). */
  async function enrol(sub: string, friend?: string): Promise<string> {
    const settings = friend
      ? { ...SETTINGS, socialBackupFactor: { enable: true, priority: 4, mandatory: false } }
      : SETTINGS;
    const auth = await Auth.create({ ...init(), mfaSettings: settings }, { storage: new MemoryStorage() });
    const out = await auth.login(
      {
        loginProvider: 'jwt',
        extraLoginOptions: { id_token: await issuer.sign({ sub }) },
        mfaLevel: 'mandatory',
      },
      {
        setup: {
          factors: [
            'deviceShareFactor',
            'backUpShareFactor',
            'passwordFactor',
            ...(friend ? (['socialBackupFactor'] as const) : []),
          ],
          password: PASSWORD,
          socialBackup: friend
            ? { verifier: 'social', id_token: await issuer.sign({ sub: friend }) }
            : undefined,
        },
      },
    );
    return (out as { backupPhrase?: string } | undefined)?.backupPhrase ?? '';
  }

  /** A login that passed the first factor only, on `server`. */
  async function session(server: AuthServer, sub: string): Promise<string> {
    const loginId = await park(
      server.sdkUrl,
      {},
      {
        loginProvider: 'jwt',
        extraLoginOptions: { id_token: await issuer.sign({ sub }) },
      },
    );
    const res = await post(server, '/api/login/jwt', { loginId });
    assert.equal(res.status, 200, res.error.message);
    return res.body.sessionId as string;
  }

  /** Tries a typed factor with the session, from `address`; the clock moves 2 s first. */
  async function attempt(
    server: AuthServer,
    sessionId: string,
    payload: object,
    address?: string,
    path = '/api/mfa/factor',
  ) {
    clock += 2000;
    return post(
      server,
      path,
      {
        key: storeKeyOf(sessionId),
        payload,
        signature: signStoreMessage(sessionId, `${path}:${JSON.stringify(payload)}`),
      },
      address,
    );
  }

  it('a first-factor-only session holds no sealed password share to guess against offline', async () => {
    await enrol('nora');
    const sessionId = await session(a, 'nora');
    const res = await post(a, '/api/session/get', { key: storeKeyOf(sessionId) });
    const payload = decryptJson<SessionPayload>(sessionId, res.body.data as string);
    assert.ok(payload.mfa?.serviceShare, 'the service share is there');
    assert.equal(payload.mfa?.passwordShare, undefined);
    assert.equal(payload.coreKitKey, undefined);
  });

  it('counts failures of both instances together; a right password during the wait is refused', async () => {
    await enrol('olga');
    const [onA, onB] = [await session(a, 'olga'), await session(b, 'olga')];
    const address = '198.51.100.10';
    const first = await attempt(a, onA, { password: 'guess-1' }, address);
    assert.deepEqual(
      [first.status, first.error.message, first.error.retryAfter],
      [401, 'Wrong password', undefined],
    );
    assert.equal((await attempt(b, onB, { password: 'guess-2' }, address)).status, 401);
    const third = await attempt(a, onA, { password: 'guess-3' }, address);
    assert.equal(third.status, 401);
    assert.match(
      third.error.message,
      /^Wrong password\. Too many failed attempts: try again after .+ \(in 60 s\)$/,
    );
    assert.equal(third.error.retryAfter, 60);

    const right = await attempt(b, onB, { password: PASSWORD }, address);
    assert.equal(right.status, 429);
    assert.equal(right.error.code, 'TOO_MANY_ATTEMPTS');
    assert.match(
      right.error.message,
      /^Too many failed attempts: try again after \d{4}-\d\d-\d\dT.+Z \(in 58 s\)$/,
    );
    assert.equal(right.body.share, undefined);

    clock += 60_000;
    const later = await attempt(b, onB, { password: PASSWORD }, address);
    assert.equal(later.status, 200, later.error.message);
    assert.ok(later.body.share);
  });

  it('the wait doubles with each further failure up to the lockout, for phrases as for passwords', async () => {
    await enrol('pia');
    const sessionId = await session(a, 'pia');
    const waits: unknown[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await attempt(
        a,
        sessionId,
        { backupPhrase: 'abandon '.repeat(23).concat('art') },
        `198.51.100.${20 + i}`,
      );
      waits.push(res.error.retryAfter);
      if (typeof res.error.retryAfter === 'number') clock += res.error.retryAfter * 1000;
    }
    assert.deepEqual(waits, [undefined, undefined, 60, 120, 240, 300]);
  });

  it('the social-backup login counts too: a right one during the wait is refused', async () => {
    await enrol('yara', 'yara-friend');
    const sessionId = await session(a, 'yara');
    const social = async (sub: string) => ({ verifier: 'social', id_token: await issuer.sign({ sub }) });
    const answers: Array<[number, unknown]> = [];
    for (let i = 0; i < 3; i++) {
      const res = await attempt(
        i % 2 ? b : a,
        sessionId,
        await social(`mallory-${i}`),
        `198.51.100.${150 + i}`,
        '/api/mfa/social',
      );
      answers.push([res.status, res.error.retryAfter]);
    }
    assert.deepEqual(answers, [
      [403, undefined],
      [403, undefined],
      [403, 60],
    ]);
    const right = await attempt(
      b,
      sessionId,
      await social('yara-friend'),
      '198.51.100.160',
      '/api/mfa/social',
    );
    assert.equal(right.status, 429);
    assert.equal(right.error.code, 'TOO_MANY_ATTEMPTS');
    assert.equal(right.body.share, undefined);
    clock += 60_000;
    const later = await attempt(
      a,
      sessionId,
      await social('yara-friend'),
      '198.51.100.160',
      '/api/mfa/social',
    );
    assert.equal(later.status, 200, later.error.message);
    assert.ok(later.body.share);
  });

  it('limits an address across users', async () => {
    const address = '198.51.100.50';
    for (const sub of ['quinn', 'rosa', 'sam']) {
      await enrol(sub);
      await attempt(a, await session(a, sub), { password: 'wrong password' }, address);
    }
    await enrol('tess');
    const tess = await session(b, 'tess');
    assert.equal((await attempt(b, tess, { password: PASSWORD }, address)).status, 429);
    assert.equal((await attempt(b, tess, { password: PASSWORD }, '198.51.100.51')).status, 200);
  });

  it('a second failure within a second waits (the quick-failure check)', async () => {
    await enrol('uma');
    const sessionId = await session(a, 'uma');
    await attempt(a, sessionId, { password: 'one' }, '198.51.100.60');
    clock -= 1500; // the next attempt comes 0.5 s after this one
    const quick = await attempt(a, sessionId, { password: 'two' }, '198.51.100.61');
    assert.equal(quick.error.retryAfter, 60);
  });

  it('parallel guesses cannot slip past the limit: each is counted before its factor is checked', async () => {
    await enrol('wes');
    const [onA, onB] = [await session(a, 'wes'), await session(b, 'wes')];
    clock += 2000;
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        attempt(i % 2 ? a : b, i % 2 ? onA : onB, { password: `parallel-${i}` }, `198.51.100.${100 + i}`),
      ),
    );
    const checked = answers.filter((r) => r.status === 401).length;
    assert.ok(
      checked >= 1 && checked <= 3,
      `${checked} guesses were checked; at most failureFactor (3) may be`,
    );
    assert.equal(answers.filter((r) => r.status === 429).length, 12 - checked);
  });

  it('the operator sees the lockout and unlocks the user through the admin API', async () => {
    await enrol('vera');
    const sessionId = await session(a, 'vera');
    for (let i = 0; i < 3; i++)
      await attempt(a, sessionId, { password: `nope-${i}` }, `198.51.100.${70 + i}`);
    assert.equal((await attempt(a, sessionId, { password: PASSWORD }, '198.51.100.79')).status, 429);

    const admin = (path: string, init: RequestInit = {}, token = ADMIN) =>
      fetch(`${b.sdkUrl}${path}`, {
        ...init,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      });
    assert.equal((await admin('/admin/lockouts', {}, 'wrong-token')).status, 401);
    const lockouts = (await (await admin('/admin/lockouts')).json()) as {
      lockouts: Array<{ subject: string }>;
    };
    const userId = userIdOf('vera');
    assert.ok(lockouts.lockouts.some((l) => l.subject === `user:${userId}`));
    const unlock = await admin('/admin/unlock', { method: 'POST', body: JSON.stringify({ user: userId }) });
    assert.deepEqual(await unlock.json(), { unlocked: 1 });
    const right = await attempt(a, sessionId, { password: PASSWORD }, '198.51.100.79');
    assert.equal(right.status, 200, right.error.message);

    // Both instances appended to one audit chain in PostgreSQL; it holds, and names the unlock.
    const chain = (await (await admin('/admin/audit/verify')).json()) as {
      entries: number;
      broken?: unknown;
    };
    assert.equal(chain.broken, undefined);
    assert.ok(chain.entries > 20);
    const unlocked = (await (await admin('/admin/audit?event=attempts.unlocked')).json()) as {
      entries: Array<{ user: string; detail: { by: string } }>;
    };
    assert.deepEqual(
      unlocked.entries.map((e) => [e.user, e.detail.by]),
      [[userId, 'operator']],
    );
    // Each lockout names what it locked: the user, the address, or both.
    const locked = (await (await admin('/admin/audit?event=attempts.locked')).json()) as {
      entries: Array<{ user: string; detail: { subject?: string } }>;
    };
    const lockedOf = (sub: string) =>
      locked.entries.filter((e) => e.user === userIdOf(sub)).map((e) => e.detail.subject);
    assert.deepEqual(lockedOf('olga'), ['user, address']);
    assert.deepEqual(lockedOf('pia'), ['user', 'user', 'user', 'user']);
    assert.deepEqual(lockedOf('sam'), ['address']);
    assert.deepEqual(lockedOf('vera'), ['user']);
  });
});
