// Balances of the embedded stores are written to SQLite before a debit resolves (so before the
// request is forwarded), debits of one event-loop turn share one transaction, refunds are written
// too, and a debit that cannot be written is neither charged nor served. SQLite files in a temp dir.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, test } from 'node:test';
import {
  type BatchWriter,
  GroupCommit,
  openEmbeddedStores,
  openSqlite,
  SqliteCreditLedger,
  SqliteUsageRecorder,
  StoreUnavailableError,
} from '@portico/gateway';
import { tempDir } from '@portico/testkit';

const dir = tempDir('portico-durable-credits-');
after(() => dir.cleanup());

/** A second connection to the same file, as a restarted process would open it. */
function spentOnDisk(path: string, keyId: string): number {
  const db = openSqlite(path);
  try {
    const row = db
      .prepare('SELECT SUM(credits) AS credits FROM credits_spent WHERE key_id = ?')
      .get(keyId) as {
      credits: number | null;
    };
    return row.credits ?? 0;
  } finally {
    db.close();
  }
}

test('a debit is on disk by the time it resolves, and a restart starts from it', async () => {
  const path = join(dir.path, 'restart.db');
  const db = openSqlite(path);
  const ledger = new SqliteCreditLedger(db, new GroupCommit(db));
  const debit = await ledger.debit('key_a', 1000, 80);
  assert.deepEqual(debit, { ok: true, remaining: 920 });
  // No close, no flush: what another connection sees now is what survives a SIGKILL now.
  assert.equal(spentOnDisk(path, 'key_a'), 80);
  db.close();

  const reopened = openSqlite(path);
  const after = new SqliteCreditLedger(reopened, new GroupCommit(reopened));
  assert.equal(await after.spent('key_a'), 80);
  const refused = await after.debit('key_a', 1000, 921);
  assert.equal(refused.ok, false);
  assert.equal(refused.remaining, 920);
  reopened.close();
});

test('the debits of one event-loop turn are written in one transaction', async () => {
  const db = openSqlite(join(dir.path, 'group.db'));
  const commits = new GroupCommit(db);
  const ledger = new SqliteCreditLedger(db, commits);
  let transactions = 0;
  const counter: BatchWriter = { pending: 0, write: () => transactions++, committed() {}, failed() {} };
  commits.add(counter);

  const debits = await Promise.all(Array.from({ length: 64 }, () => ledger.debit('key_b', 1_000_000, 10)));
  assert.equal(transactions, 1);
  assert.ok(debits.every((d) => d.ok));
  assert.equal(await ledger.spent('key_b'), 640);

  await ledger.debit('key_b', 1_000_000, 10);
  assert.equal(transactions, 2);
  db.close();
});

test('a refund is written too: after a restart the key has its credits back', async () => {
  const path = join(dir.path, 'refund.db');
  const db = openSqlite(path);
  const ledger = new SqliteCreditLedger(db, new GroupCommit(db));
  await ledger.debit('key_c', 1000, 300);
  await ledger.refund('key_c', 300);
  assert.equal(spentOnDisk(path, 'key_c'), 0);
  db.close();
});

test('a debit that cannot be written is refused with 503 and leaves the balance as it was', async () => {
  const path = join(dir.path, 'readonly.db');
  const db = openSqlite(path);
  const ledger = new SqliteCreditLedger(db, new GroupCommit(db));
  await ledger.debit('key_d', 1000, 100);
  db.exec('PRAGMA query_only = ON'); // every write now fails, as on a full or read-only disk
  await assert.rejects(ledger.debit('key_d', 1000, 100), (error: unknown) => {
    assert.ok(error instanceof StoreUnavailableError);
    assert.equal(error.store, 'sqlite');
    assert.equal(error.httpStatus, 503);
    return true;
  });
  assert.equal(await ledger.spent('key_d'), 100);

  // A refund that cannot be written now is kept and written once the disk takes writes again.
  await ledger.refund('key_d', 100);
  assert.equal(await ledger.spent('key_d'), 0);
  assert.equal(spentOnDisk(path, 'key_d'), 100);
  db.exec('PRAGMA query_only = OFF');
  await ledger.debit('key_d', 1000, 1);
  assert.equal(spentOnDisk(path, 'key_d'), 1);
  db.close();
});

test('a cost that is not a count of credits is refused before it reaches the balance', async () => {
  const db = openSqlite(':memory:');
  const ledger = new SqliteCreditLedger(db, new GroupCommit(db));
  for (const cost of [Number.NaN, -1, 1.5, Number.POSITIVE_INFINITY])
    await assert.rejects(ledger.debit('key_e', 1000, cost), RangeError);
  assert.equal(await ledger.spent('key_e'), 0);
  db.close();
});

test('a database of the previous version starts its balances from the usage it recorded', async () => {
  const stores = openEmbeddedStores(dir.path);
  stores.usage.record('key_f', 'eth_call', 80);
  await stores.close();
  // Simulate the previous schema: no credits_spent table, user_version one step back.
  const old = openSqlite(join(dir.path, 'gateway.db'));
  old.exec('DROP TABLE credits_spent');
  old.exec('PRAGMA user_version = 3');
  old.close();
  const upgraded = openEmbeddedStores(dir.path);
  assert.equal(await upgraded.ledger.spent('key_f'), 80);
  await upgraded.close();
});

test('a usage row SQLite refuses is dropped and reported, and the debits committed with it still go through', async () => {
  const path = join(dir.path, 'bad-row.db');
  const db = openSqlite(path);
  const commits = new GroupCommit(db);
  const ledger = new SqliteCreditLedger(db, commits);
  const errors: Error[] = [];
  const usage = new SqliteUsageRecorder(db, 60_000, commits, (error) => errors.push(error));
  usage.record('key_g', 'eth_call', 80);
  usage.record('key_g', 'broken', Number.NaN); // NaN is bound as NULL: NOT NULL constraint
  const debit = ledger.debit('key_g', 1000, 80);
  await usage.flush(); // one transaction: the debit and the usage rows
  assert.deepEqual(await debit, { ok: true, remaining: 920 });
  assert.equal(spentOnDisk(path, 'key_g'), 80);
  assert.equal(errors.length, 1);
  assert.match(errors[0].message, /NOT NULL/);
  assert.deepEqual(
    (await usage.usage({ keyId: 'key_g' })).map((r) => [r.method, r.credits]),
    [['eth_call', 80]],
  );
  await usage.close();
  db.close();
});

test('usage that cannot be written while the disk refuses writes is kept and written once it takes them again', async () => {
  const db = openSqlite(join(dir.path, 'usage-readonly.db'));
  const errors: Error[] = [];
  const usage = new SqliteUsageRecorder(db, 60_000, new GroupCommit(db), (error) => errors.push(error));
  usage.record('key_h', 'eth_call', 80);
  usage.record('key_h', 'eth_call', 80, -32000);
  db.exec('PRAGMA query_only = ON');
  await assert.rejects(usage.flush(), StoreUnavailableError);
  assert.ok(errors.length >= 1);
  db.exec('PRAGMA query_only = OFF');
  assert.deepEqual(
    (await usage.usage({ keyId: 'key_h' })).map((r) => [r.method, r.requests, r.credits]),
    [['eth_call', 2, 160]],
  );
  assert.deepEqual(
    (await usage.errors({ keyId: 'key_h' })).map((e) => [e.code, e.count]),
    [[-32000, 1]],
  );
  await usage.close();
  db.close();
});
