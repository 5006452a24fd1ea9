// The attempt limits' rules on their own: the options' checks, the wait after each failure (and
// the same rule as the SQL the store runs), and `AttemptLimiter` over the SQLite store: counting
// per user and per address, the quick-failure check per user only, a refused attempt not counted,
// and a right guess. Time is the limiter's injected clock, moved by the test.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { tempDir } from '@portico/testkit';
import {
  AttemptLimiter,
  type AttemptLimits,
  addressSubject,
  checkAttemptLimits,
  DEFAULT_ATTEMPT_LIMITS,
  TooManyAttemptsError,
  userSubject,
  waitAfter,
  waitSql,
} from '../src/attempts.ts';
import { SqliteStore } from '../src/store/sqlite.ts';

/** Small numbers: the third failure waits 10 s, then 20, 40, and 45 (the lockout) after. */
const LIMITS: AttemptLimits = {
  failureFactor: 3,
  waitIncrementSeconds: 10,
  maxWaitSeconds: 45,
  quickFailureMs: 1000,
  quickFailureWaitSeconds: 5,
  resetAfterSeconds: 3600,
};
const T0 = Date.UTC(2026, 0, 1);

describe('attempt limit options', () => {
  it('Keycloak’s defaults, each replaceable alone', () => {
    assert.deepEqual(DEFAULT_ATTEMPT_LIMITS, {
      failureFactor: 30,
      waitIncrementSeconds: 60,
      maxWaitSeconds: 900,
      quickFailureMs: 1000,
      quickFailureWaitSeconds: 60,
      resetAfterSeconds: 43_200,
    });
    assert.deepEqual(checkAttemptLimits(undefined), DEFAULT_ATTEMPT_LIMITS);
    assert.deepEqual(checkAttemptLimits({ failureFactor: 5 }), {
      ...DEFAULT_ATTEMPT_LIMITS,
      failureFactor: 5,
    });
    assert.deepEqual(checkAttemptLimits(LIMITS), LIMITS);
  });

  it('every option is a whole number of 1 or more; the quick-failure check may be 0 (off)', () => {
    for (const name of Object.keys(DEFAULT_ATTEMPT_LIMITS) as (keyof AttemptLimits)[]) {
      for (const bad of [1.5, Number.NaN, -1, 2 ** 53, '5' as unknown as number]) {
        assert.throws(() => checkAttemptLimits({ ...LIMITS, [name]: bad }), {
          message: `auth: attemptLimits.${name} must be a whole number, 1 or more`,
        });
      }
      if (name === 'quickFailureMs')
        assert.equal(checkAttemptLimits({ ...LIMITS, quickFailureMs: 0 }).quickFailureMs, 0);
      else
        assert.throws(() => checkAttemptLimits({ ...LIMITS, [name]: 0 }), {
          message: `auth: attemptLimits.${name} must be a whole number, 1 or more`,
        });
      assert.equal(checkAttemptLimits({ ...LIMITS, waitIncrementSeconds: 1, [name]: 1 })[name], 1);
    }
  });

  it('the longest wait is at least the first', () => {
    assert.throws(() => checkAttemptLimits({ ...LIMITS, maxWaitSeconds: 9 }), {
      message: 'auth: attemptLimits.maxWaitSeconds must be at least waitIncrementSeconds',
    });
    assert.equal(checkAttemptLimits({ ...LIMITS, maxWaitSeconds: 10 }).maxWaitSeconds, 10);
  });
});

describe('the wait after a failure', () => {
  it('none before the failure factor (a quick one waits a little), then doubling up to the lockout', () => {
    assert.equal(waitAfter(LIMITS, 1, false), 0);
    assert.equal(waitAfter(LIMITS, 2, false), 0);
    assert.equal(waitAfter(LIMITS, 2, true), 5);
    assert.equal(waitAfter(LIMITS, 3, false), 10);
    assert.equal(waitAfter(LIMITS, 3, true), 10);
    assert.equal(waitAfter(LIMITS, 4, false), 20);
    assert.equal(waitAfter(LIMITS, 5, false), 40);
    assert.equal(waitAfter(LIMITS, 6, false), 45);
    assert.equal(waitAfter(LIMITS, 1000, false), 45);
  });

  it('a quick failure never waits past the lockout', () => {
    assert.equal(waitAfter({ ...LIMITS, quickFailureWaitSeconds: 100 }, 1, true), 45);
  });

  it('the doubling stops after 30 (a huge lockout is not reached by overflow)', () => {
    const huge = { ...LIMITS, waitIncrementSeconds: 1, maxWaitSeconds: 2 ** 40 };
    assert.equal(waitAfter(huge, 3 + 29, false), 2 ** 29);
    assert.equal(waitAfter(huge, 3 + 30, false), 2 ** 30);
    assert.equal(waitAfter(huge, 3 + 35, false), 2 ** 30);
  });

  it('the SQL says the same, case by case, in milliseconds', () => {
    assert.equal(
      waitSql(LIMITS, 'f', 'q'),
      '(CASE WHEN f = 3 THEN 10000 WHEN f = 4 THEN 20000 WHEN f = 5 THEN 40000 WHEN f >= 6 THEN 45000 WHEN q = 1 THEN 5000 ELSE 0 END)',
    );
    // The first wait already the lockout: one case.
    assert.equal(
      waitSql({ ...LIMITS, maxWaitSeconds: 10, quickFailureWaitSeconds: 20 }, 'f', 'q'),
      '(CASE WHEN f >= 3 THEN 10000 WHEN q = 1 THEN 10000 ELSE 0 END)',
    );
  });

  it('the SQL stops after 30 doublings too', () => {
    const sql = waitSql({ ...LIMITS, waitIncrementSeconds: 1, maxWaitSeconds: 2 ** 40 }, 'f', 'q');
    const cases = sql.match(/WHEN f/g) ?? [];
    assert.equal(cases.length, 31);
    assert.ok(
      sql.includes(`WHEN f = 32 THEN ${2 ** 29 * 1000} WHEN f >= 33 THEN ${2 ** 30 * 1000} WHEN q`),
      sql,
    );
  });
});

describe('AttemptLimiter on the SQLite store', { timeout: 600_000 }, () => {
  const dir = tempDir('portico-attempt-rules-');
  let store: SqliteStore;
  let clock = T0;
  let limiter: AttemptLimiter;
  let n = 0;
  /** A fresh user and address, so the cases do not share counts. */
  const fresh = () => ({ userId: `u${++n}`, address: `10.0.0.${n}` });
  const failures = async (subject: string) => (await store.getAttempts(subject))?.failures ?? 0;

  before(() => {
    store = new SqliteStore(dir.path);
    limiter = new AttemptLimiter(store, LIMITS, () => clock);
  });
  after(async () => {
    await store?.close();
    dir.cleanup();
  });

  it('counts each attempt; below the failure factor a wrong one starts no wait', async () => {
    const who = fresh();
    clock = T0;
    for (let i = 1; i <= 2; i++) {
      clock += 5000;
      assert.deepEqual(await limiter.begin(who), { allowed: true, notBefore: clock, locks: '' });
    }
    assert.equal(await failures(userSubject(who.userId)), 2);
    assert.equal(await failures(addressSubject(who.address)), 2);
    assert.equal(userSubject('x'), 'user:x');
    assert.equal(addressSubject('1.2.3.4'), 'address:1.2.3.4');
  });

  it('the attempt that reaches the factor would make both wait; during the wait even a right one is refused, uncounted', async () => {
    const who = fresh();
    clock = T0;
    await limiter.begin(who);
    clock += 5000;
    await limiter.begin(who);
    clock += 5000;
    const third = await limiter.begin(who);
    assert.deepEqual(third, { allowed: true, notBefore: clock + 10_000, locks: 'user, address' });
    const waitEnds = clock + 10_000;
    clock += 2500;
    const gate = await limiter.begin(who);
    assert.equal(gate.allowed, false);
    assert.ok(!gate.allowed);
    const { error } = gate;
    assert.ok(error instanceof TooManyAttemptsError);
    assert.equal(error.name, 'TooManyAttemptsError');
    assert.equal(error.code, 'TOO_MANY_ATTEMPTS');
    assert.equal(error.status, 429);
    assert.equal(error.notBefore, waitEnds);
    assert.equal(error.retryAfterSeconds, 8); // 7.5 s, rounded up
    assert.deepEqual(error.details, { retryAfter: 8 });
    assert.equal(
      error.message,
      `Too many failed attempts: try again after ${new Date(waitEnds).toISOString()} (in 8 s)`,
    );
    assert.equal(await failures(userSubject(who.userId)), 3);
    assert.equal(await failures(addressSubject(who.address)), 3);
    // After the wait the next wrong one doubles it.
    clock = waitEnds;
    assert.deepEqual(await limiter.begin(who), {
      allowed: true,
      notBefore: clock + 20_000,
      locks: 'user, address',
    });
  });

  it('a second failure within quickFailureMs waits, for the user only (many users share an address)', async () => {
    const who = fresh();
    clock = T0;
    await limiter.begin(who);
    clock += 999;
    assert.deepEqual(await limiter.begin(who), { allowed: true, notBefore: clock + 5000, locks: 'user' });
    // The same user from another address is refused; that address gets its count back.
    const elsewhere = `${who.address}.2`;
    clock += 1000;
    const gate = await limiter.begin({ userId: who.userId, address: elsewhere });
    assert.ok(!gate.allowed);
    assert.equal(gate.error.notBefore, T0 + 999 + 5000);
    assert.equal(gate.error.retryAfterSeconds, 4);
    assert.equal(await failures(addressSubject(elsewhere)), 0);
    assert.equal(await failures(userSubject(who.userId)), 2);
    // Another user at the first address, right after, is not slowed by it.
    clock += 1;
    assert.deepEqual(await limiter.begin({ userId: `${who.userId}-b`, address: elsewhere }), {
      allowed: true,
      notBefore: clock,
      locks: '',
    });
  });

  it('an address waits across users: another user from it is refused, and that user is not counted', async () => {
    const address = fresh().address;
    clock = T0;
    for (let i = 0; i < 2; i++) {
      clock += 5000;
      await limiter.begin({ userId: `a${n}-${i}`, address });
    }
    clock += 5000;
    assert.deepEqual(await limiter.begin({ userId: `a${n}-2`, address }), {
      allowed: true,
      notBefore: clock + 10_000,
      locks: 'address',
    });
    const addressWait = clock + 10_000;
    clock += 1000;
    const victim = `a${n}-victim`;
    const gate = await limiter.begin({ userId: victim, address });
    assert.ok(!gate.allowed);
    assert.equal(gate.error.notBefore, addressWait);
    assert.equal(gate.error.retryAfterSeconds, 9);
    assert.equal(await failures(userSubject(victim)), 0);
    // The address was not counted again while it waits.
    assert.equal(await failures(addressSubject(address)), 3);
  });

  it('refused by the address only: the wait named is the address’s, not the one the user’s count would start', async () => {
    // The address waits 10 s from its factor; the user is at its own factor's edge, so counting it
    // (it is counted, then given back) would start a 10 s wait 5 s later.
    const userId = `r${++n}`;
    const address = `10.5.0.${n}`;
    clock = T0;
    for (let i = 0; i < 2; i++) {
      clock += 1100;
      await limiter.begin({ userId, address: `10.6.${n}.${i}` });
    }
    for (let i = 0; i < 3; i++) {
      clock += 1100;
      await limiter.begin({ userId: `${userId}-other-${i}`, address });
    }
    const addressWait = clock + 10_000;
    clock += 5000;
    const gate = await limiter.begin({ userId, address });
    assert.ok(!gate.allowed);
    assert.equal(gate.error.notBefore, addressWait);
    assert.equal(await failures(userSubject(userId)), 2);
  });

  it('refused by one subject only: the wait named is that subject’s, not the one the other attempt would start', async () => {
    // The user waits 5 s (a quick failure); the address is at its factor's edge, so counting it
    // would start a 10 s wait.
    const userId = `q${++n}`;
    const address = `10.1.0.${n}`;
    clock = T0;
    await limiter.begin({ userId: 'other-1', address });
    clock += 5000;
    await limiter.begin({ userId, address });
    clock += 10;
    const quick = await limiter.begin({ userId, address: `10.2.0.${n}` });
    assert.deepEqual(quick, { allowed: true, notBefore: clock + 5000, locks: 'user' });
    clock += 10;
    const gate = await limiter.begin({ userId, address });
    assert.ok(!gate.allowed);
    assert.equal(gate.error.notBefore, T0 + 5010 + 5000);
    // The address got its count back.
    assert.equal(await failures(addressSubject(address)), 2);
  });

  it('both waiting: the later wait is named', async () => {
    const userId = `b${++n}`;
    const address = `10.3.0.${n}`;
    // The user locks first (three failures from three addresses, not quick), then the address
    // (three other users).
    clock = T0;
    for (let i = 0; i < 3; i++) {
      clock += 1100;
      await limiter.begin({ userId, address: `10.4.${n}.${i}` });
    }
    const userWait = clock + 10_000;
    for (let i = 0; i < 3; i++) {
      clock += 1100;
      await limiter.begin({ userId: `${userId}-other-${i}`, address });
    }
    const addressWait = clock + 10_000;
    assert.equal((await store.getAttempts(userSubject(userId)))?.notBefore, userWait);
    assert.equal((await store.getAttempts(addressSubject(address)))?.notBefore, addressWait);
    clock += 1;
    const gate = await limiter.begin({ userId, address });
    assert.ok(!gate.allowed);
    assert.equal(gate.error.notBefore, addressWait);
  });

  it('a right guess clears the user’s failures and gives the address this attempt back only', async () => {
    const who = fresh();
    clock = T0;
    for (let i = 0; i < 2; i++) {
      clock += 5000;
      await limiter.begin(who);
    }
    await limiter.begin({ userId: `${who.userId}-x`, address: who.address });
    assert.equal(await failures(addressSubject(who.address)), 3);
    await limiter.succeeded(who);
    assert.equal(await store.getAttempts(userSubject(who.userId)), undefined);
    assert.equal(await failures(addressSubject(who.address)), 2);
  });
});
