// Attempts that race: two instances' clocks are never in step, and two requests read the clock in
// one order and reach the store in the other. An attempt that started no wait must not make a
// concurrent attempt whose clock reads a moment earlier wait: both right answers go through. A real
// wait still holds against an earlier clock. An attempt refused because one subject waits leaves no
// wait on the other. On SQLite and on PostgreSQL (the statement is the same, its placeholders
// differ).
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { type FreshDatabase, freshDatabase, serviceUrl, tempDir } from '@portico/testkit';
import { AttemptLimiter, type AttemptLimits } from '../src/attempts.ts';
import { PostgresStore } from '../src/store/postgres.ts';
import { SqliteStore } from '../src/store/sqlite.ts';
import type { AuthStore } from '../src/store.ts';

const LIMITS: AttemptLimits = {
  failureFactor: 3,
  waitIncrementSeconds: 60,
  maxWaitSeconds: 300,
  quickFailureMs: 1000,
  quickFailureWaitSeconds: 60,
  resetAfterSeconds: 43_200,
};
const T = 1_800_000_000_000;

function limiterAt(store: AuthStore, at: number) {
  return new AttemptLimiter(store, LIMITS, () => at);
}

function clockOrderCases(open: () => Promise<AuthStore>) {
  it('an attempt whose clock reads 1 ms earlier than one already counted is let through', async () => {
    const store = await open();
    const subjects = { userId: 'ada', address: '203.0.113.7' };
    const first = await limiterAt(store, T).begin(subjects);
    assert.equal(first.allowed, true);
    const second = await limiterAt(store, T - 1).begin(subjects);
    assert.equal(second.allowed, true, 'no wait was started, so none applies');
    await store.close();
  });

  it('a wait that failures started still holds against an earlier clock', async () => {
    const store = await open();
    const subjects = { userId: 'bob', address: '203.0.113.8' };
    // Three failures, a minute apart (not quick): the third starts the 60 s wait.
    for (let i = 0; i < 3; i++) {
      const gate = await limiterAt(store, T + i * 60_000).begin(subjects);
      assert.equal(gate.allowed, true, `attempt ${i + 1}`);
    }
    const during = await limiterAt(store, T + 2 * 60_000 + 30_000).begin(subjects);
    assert.equal(during.allowed, false, 'inside the wait');
    const earlier = await limiterAt(store, T + 2 * 60_000 - 1).begin(subjects);
    assert.equal(earlier.allowed, false, 'an earlier clock does not slip under the wait');
    const afterIt = await limiterAt(store, T + 3 * 60_000 + 1).begin(subjects);
    assert.equal(afterIt.allowed, true, 'after the wait');
    await store.close();
  });

  it('a guess the user’s wait refused starts no wait for its address', async () => {
    const store = await open();
    const shared = '198.51.100.20';
    // Two other users fail once each from the shared address: one short of its failure factor.
    for (const [i, userId] of ['xena', 'yuri'].entries()) {
      assert.equal((await limiterAt(store, T + i * 60_000).begin({ userId, address: shared })).allowed, true);
    }
    // Zoe fails three times from elsewhere, a minute apart: she waits.
    for (let i = 0; i < 3; i++) {
      const gate = await limiterAt(store, T + (2 + i) * 60_000).begin({
        userId: 'zoe',
        address: '198.51.100.99',
      });
      assert.equal(gate.allowed, true);
    }
    const at = T + 4 * 60_000 + 1000;
    const zoe = await limiterAt(store, at).begin({ userId: 'zoe', address: shared });
    assert.equal(zoe.allowed, false, 'Zoe waits');
    const walt = await limiterAt(store, at + 1).begin({ userId: 'walt', address: shared });
    assert.equal(walt.allowed, true, 'the shared address was not made to wait by a guess that never ran');
    await store.close();
  });
}

describe('attempt limits and clock order: SQLite', () => {
  const dirs: ReturnType<typeof tempDir>[] = [];
  after(() => {
    for (const dir of dirs) dir.cleanup();
  });
  clockOrderCases(async () => {
    const dir = tempDir('portico-attempt-clock-');
    dirs.push(dir);
    return new SqliteStore(dir.path);
  });
});

const pgUrl = serviceUrl('DATABASE_URL');
describe('attempt limits and clock order: PostgreSQL', { skip: pgUrl.skip }, () => {
  const databases: FreshDatabase[] = [];
  after(async () => {
    for (const database of databases) await database.drop();
  });
  clockOrderCases(async () => {
    const database = await freshDatabase(pgUrl.url!);
    databases.push(database);
    return PostgresStore.open(database.url);
  });
});
