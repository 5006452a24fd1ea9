// Balances of the embedded stores survive a crash exactly: every paid debit is written by the group
// commit of its event-loop turn before the call goes on, and a refund before the refusal is
// answered, so what SQLite holds for a key is what it was answered plus at most what was in
// flight; the debits of one turn share one transaction. The ledger that reserves ahead (kept for
// the benchmark) is covered too: never below what was spent, a bounded overcharge after a crash.
// SQLite files in a temp dir; a "crash" is a second connection opened on the file while the first
// is left as it is.
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
import { DAY, diskReader, NOON } from './ledger-disk.ts';

const dir = tempDir('portico-durable-credits-');
after(() => dir.cleanup());

/** A ledger on a fresh file, with a count of the transactions its group commit runs. */
function open(name: string, options: { reserveAhead?: boolean } = {}) {
  const path = join(dir.path, `${name}.db`);
  const db = openSqlite(path);
  const commits = new GroupCommit(db);
  const ledger = new SqliteCreditLedger(db, commits, options);
  const count = { transactions: 0 };
  const counter: BatchWriter = { pending: 0, write: () => count.transactions++, committed() {}, failed() {} };
  commits.add(counter);
  return { path, db, commits, ledger, count };
}

/**
 * A ledger on a fresh file whose commits fail while `state.broken` is set: a writer added before
 * the ledger throws in its `write` (so the ledger's own write is never reached, as when another
 * writer or BEGIN fails), the transaction rolls back and the ledger is told it failed.
 */
function openBreakable(name: string, options: { reserveAhead?: boolean } = {}) {
  const path = join(dir.path, `${name}.db`);
  const db = openSqlite(path);
  const commits = new GroupCommit(db);
  const state = { broken: false };
  const before: BatchWriter = {
    get pending() {
      return state.broken ? 1 : 0;
    },
    write() {
      if (state.broken) throw new Error('disk full');
    },
    committed() {},
    failed() {},
  };
  commits.add(before);
  const ledger = new SqliteCreditLedger(db, commits, options);
  return { path, db, ledger, state };
}

const NOT_WRITTEN = (error: unknown) => {
  assert.ok(error instanceof StoreUnavailableError);
  assert.equal(error.httpStatus, 503);
  return true;
};

/** The ledger that reserves credits ahead (kept for the benchmark; a crash keeps its reservations). */
const AHEAD = { reserveAhead: true };

/** A small deterministic generator (the same costs on every run). */
function costs(seed: number, lowest: number, highest: number) {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return lowest + (state % (highest - lowest + 1));
  };
}

test('what is on disk is exactly what was spent, after every debit and every refund', async () => {
  const { path, db, ledger } = open('invariant');
  const disk = diskReader(path);
  const cost = costs(7, 1, 400);
  for (let i = 0; i < 400; i++) {
    const spend = cost();
    const debit = await ledger.debit('key_a', 50_000, spend, NOON + i * 37);
    assert.equal(disk.credits('key_a'), await ledger.spent('key_a', NOON), `after debit ${i}`);
    if (debit.ok && i % 5 === 0) {
      await ledger.refund('key_a', spend, NOON + i * 37);
      assert.equal(disk.credits('key_a'), await ledger.spent('key_a', NOON), `after refund ${i}`);
    }
  }
  disk.close();
  db.close();
});

test('reserving ahead: what is on disk is never below what was spent, after every debit and every refund', async () => {
  const { path, db, ledger } = open('invariant-ahead', AHEAD);
  const disk = diskReader(path);
  const cost = costs(7, 1, 400);
  for (let i = 0; i < 400; i++) {
    const spend = cost();
    const debit = await ledger.debit('key_a', 50_000, spend, NOON + i * 37);
    assert.ok(disk.credits('key_a') >= (await ledger.spent('key_a', NOON)), `after debit ${i}`);
    if (debit.ok && i % 5 === 0) {
      await ledger.refund('key_a', spend, NOON + i * 37);
      assert.ok(disk.credits('key_a') >= (await ledger.spent('key_a', NOON)), `after refund ${i}`);
    }
  }
  disk.close();
  db.close();
});

test('a paid debit is held until its turn is committed; a free one and a refusal are not', async () => {
  const { path, db, ledger, count } = open('held');
  const disk = diskReader(path);
  assert.equal(ledger.debitNow('key_q', 1000, 80, NOON), undefined, 'a paid debit waits for the disk');
  const debit = ledger.debit('key_q', 1000, 80, NOON);
  assert.equal(disk.credits('key_q'), 0, 'not answered before the commit');
  assert.deepEqual(await debit, { ok: true, remaining: 920 });
  assert.equal(disk.credits('key_q'), 80, 'answered once it is on disk');
  assert.equal(ledger.debitNow('key_q', 1000, 80, NOON), undefined, 'nothing reserved beyond it');
  assert.deepEqual(ledger.debitNow('key_q', 1000, 0, NOON), { ok: true, remaining: 920 });
  assert.equal(ledger.debitNow('key_q', 1000, 921, NOON)?.ok, false);
  // The refund of a call that was refused is on disk before the refusal is answered.
  await ledger.refund('key_q', 80, NOON);
  assert.equal(disk.credits('key_q'), 0);
  // Debits of one turn and refunds share one transaction per turn.
  const before = count.transactions;
  await Promise.all([
    ...Array.from({ length: 10 }, () => ledger.debit('key_q', 1000, 80, NOON)),
    ledger.debit('key_r', 1000, 30, NOON),
  ]);
  assert.equal(count.transactions, before + 1);
  assert.equal(disk.credits('key_q'), 800);
  assert.equal(disk.credits('key_r'), 30);
  disk.close();
  db.close();
});

test('a disk that refuses writes refuses every paid debit with 503 and charges nothing; a refund is written once it takes writes again', async () => {
  const { path, db, ledger } = open('readonly-exact');
  const disk = diskReader(path);
  await ledger.debit('key_s', 10_000, 100, NOON);
  await ledger.debit('key_s', 10_000, 100, NOON);
  db.exec('PRAGMA query_only = ON');
  try {
    await assert.rejects(ledger.debit('key_s', 10_000, 10, NOON), StoreUnavailableError);
    assert.equal(await ledger.spent('key_s', NOON), 200, 'nothing charged for it');
    await ledger.refund('key_s', 100, NOON); // resolves although it could not be written yet
    assert.equal(await ledger.spent('key_s', NOON), 100);
    assert.equal(disk.credits('key_s'), 200);
  } finally {
    db.exec('PRAGMA query_only = OFF');
  }
  assert.deepEqual(await ledger.debit('key_s', 10_000, 10, NOON), { ok: true, remaining: 10_000 - 110 });
  assert.equal(disk.credits('key_s'), 110, 'the refund went with the next commit');
  disk.close();
  db.close();
});

test('debits racing in one turn never spend more than the daily limit', async () => {
  const { db, ledger, count } = open('race');
  const results = await Promise.all(Array.from({ length: 40 }, () => ledger.debit('key_b', 1000, 30, NOON)));
  assert.equal(results.filter((r) => r.ok).length, 33);
  assert.equal(await ledger.spent('key_b', NOON), 990);
  assert.deepEqual(
    results.find((r) => !r.ok),
    { ok: false, remaining: 10, resetsAt: new Date(Date.UTC(2026, 4, 13)) },
  );
  assert.equal(count.transactions, 1, 'the debits held in one turn wait for one commit');
  db.close();
});

test('a restart without close starts from exactly what was answered', async () => {
  const first = open('restart');
  const cost = costs(11, 10, 90);
  let answered = 0;
  for (let i = 0; i < 300; i++) {
    const spend = cost();
    // Some one per turn, some several in the same turn, as requests arrive.
    const turn = await Promise.all(
      Array.from({ length: 1 + (i % 4) }, () => first.ledger.debit('key_c', 1_000_000, spend, NOON)),
    );
    answered += turn.filter((d) => d.ok).length * spend;
  }
  assert.equal(await first.ledger.spent('key_c', NOON), answered);
  // No close: the first connection is left as a SIGKILL would leave it.
  const reopened = openSqlite(first.path);
  const after = new SqliteCreditLedger(reopened, new GroupCommit(reopened));
  const restartedFrom = await after.spent('key_c', NOON);
  assert.equal(restartedFrom, answered, 'neither a credit given back nor one kept');
  assert.equal(restartedFrom, diskReader(first.path).credits('key_c'));
  const refused = await after.debit('key_c', 1_000_000, 1_000_000 - restartedFrom + 1, NOON);
  assert.deepEqual(refused, {
    ok: false,
    remaining: 1_000_000 - restartedFrom,
    resetsAt: new Date(Date.UTC(2026, 4, 13)),
  });
  reopened.close();
  first.db.close();
});

test('reserving ahead: a clean close gives back what was reserved and not spent: on disk is exactly what was spent', async () => {
  const { path, ledger, db } = open('close', AHEAD);
  for (let i = 0; i < 50; i++) await ledger.debit('key_d', 100_000, 70, NOON);
  await ledger.refund('key_d', 70, NOON);
  await Promise.all([ledger.debit('key_e', 100_000, 5, NOON), ledger.debit('key_e', 100_000, 5, NOON)]);
  const disk = diskReader(path);
  assert.ok(disk.credits('key_d') > 49 * 70, 'a reservation larger than the spending before close');
  await ledger.close();
  assert.equal(disk.credits('key_d'), 49 * 70);
  assert.equal(disk.credits('key_e'), 10);
  disk.close();
  db.close();

  const reopened = openSqlite(path);
  const after = new SqliteCreditLedger(reopened, new GroupCommit(reopened));
  assert.equal(await after.spent('key_d', NOON), 49 * 70);
  reopened.close();
});

test('closing the embedded stores (a clean stop) leaves each key exactly what it spent', async () => {
  const dataDir = join(dir.path, 'stores');
  const stores = openEmbeddedStores(dataDir);
  for (let i = 0; i < 20; i++) await stores.ledger.debit('key_stop', 1_000_000, 80, NOON);
  await stores.ledger.refund('key_stop', 80, NOON);
  await stores.close();
  const reopened = openEmbeddedStores(dataDir);
  assert.equal(await reopened.ledger.spent('key_stop', NOON), 19 * 80);
  await reopened.close();
});

test('reserving ahead: debits inside a committed reservation are decided at once and write nothing', async () => {
  const { db, ledger, count } = open('inside', AHEAD);
  assert.equal(ledger.debitNow('key_f', 100_000, 10, NOON), undefined, 'nothing reserved yet');
  for (let i = 0; i < 8; i++) await ledger.debit('key_f', 100_000, 10, NOON);
  const written = count.transactions;
  let decided = 0;
  for (;;) {
    const debit = ledger.debitNow('key_f', 100_000, 10, NOON);
    if (debit === undefined) break;
    assert.deepEqual(debit, { ok: true, remaining: 100_000 - 80 - 10 * ++decided });
  }
  assert.ok(decided > 0, 'the last reservation had room left');
  assert.equal(await ledger.spent('key_f', NOON), 80 + 10 * decided);
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(count.transactions, written, 'nothing was written for them');
  // Past the reservation only the async debit can decide, and it writes a larger one.
  assert.deepEqual(await ledger.debit('key_f', 100_000, 10, NOON), {
    ok: true,
    remaining: 100_000 - 90 - 10 * decided,
  });
  assert.equal(count.transactions, written + 1);
  db.close();
});

test('a refusal and a free call are decided at once, whatever is reserved', async () => {
  const { db, ledger, count } = open('refusal');
  assert.deepEqual(ledger.debitNow('key_g', 100, 101, NOON), {
    ok: false,
    remaining: 100,
    resetsAt: new Date(Date.UTC(2026, 4, 13)),
  });
  assert.deepEqual(ledger.debitNow('key_g', 100, 0, NOON), { ok: true, remaining: 100 });
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(count.transactions, 0);
  db.close();
});

test('reserving ahead: a busy key writes far fewer transactions than it has debits', async () => {
  const { db, ledger, count } = open('busy', AHEAD);
  for (let i = 0; i < 5000; i++) await ledger.debit('key_h', 1e12, 80, NOON);
  for (let i = 0; i < 100; i++)
    await Promise.all(Array.from({ length: 64 }, () => ledger.debit('key_h', 1e12, 80, NOON)));
  assert.equal(await ledger.spent('key_h', NOON), (5000 + 6400) * 80);
  assert.ok(count.transactions <= 20, `${count.transactions} transactions for 11 400 debits`);
  db.close();
});

test('reserving ahead: a crash costs a key at most one grant: the larger of the cost and 1 % of its daily limit', async () => {
  const { path, db, ledger } = open('bound', AHEAD);
  const disk = diskReader(path);
  const limit = 200_000;
  const cost = costs(3, 1, 900);
  // Costs below 1 % of the limit, at paces from many per turn to one every few seconds.
  for (let i = 0, now = NOON; i < 600; i++) {
    now += [0, 0, 3, 250, 1500, 6000][i % 6];
    const debit = await ledger.debit('key_i', limit, cost(), now);
    if (!debit.ok) break;
    const left = disk.credits('key_i') - (await ledger.spent('key_i', now));
    assert.ok(left >= 0 && left <= limit / 100, `debit ${i}: ${left} credits reserved beyond the spending`);
    assert.ok(disk.credits('key_i') <= limit, 'never reserved beyond the daily limit');
  }
  // A call dearer than 1 % of the limit reserves no more than itself.
  await ledger.debit('key_j', limit, 1000, NOON);
  await ledger.debit('key_j', limit, 5000, NOON);
  assert.equal(disk.credits('key_j') - (await ledger.spent('key_j', NOON)), 0);
  disk.close();
  db.close();
});

test('reserving ahead: a disk that refuses writes refuses a debit needing a new reservation with 503 and charges nothing; debits inside the reservation go on', async () => {
  const { path, db, ledger } = open('readonly', AHEAD);
  for (let i = 0; i < 4; i++) await ledger.debit('key_k', 10_000, 10, NOON); // reserves 10 + 20 + 40
  const disk = diskReader(path);
  const reserved = disk.credits('key_k');
  db.exec('PRAGMA query_only = ON'); // every write now fails, as on a full or read-only disk
  try {
    assert.deepEqual(await ledger.debit('key_k', 10_000, 10, NOON), { ok: true, remaining: 10_000 - 50 });
    const spent = await ledger.spent('key_k', NOON);
    const beyond = reserved - spent + 1;
    const held = [ledger.debit('key_k', 10_000, beyond, NOON), ledger.debit('key_k', 10_000, 1, NOON)];
    for (const debit of held)
      await assert.rejects(debit, (error: unknown) => {
        assert.ok(error instanceof StoreUnavailableError);
        assert.equal(error.store, 'sqlite');
        assert.equal(error.httpStatus, 503);
        return true;
      });
    assert.equal(await ledger.spent('key_k', NOON), spent, 'nothing charged for them');
    assert.equal(disk.credits('key_k'), reserved);
    assert.deepEqual(await ledger.debit('key_k', 10_000, reserved - spent, NOON), {
      ok: true,
      remaining: 10_000 - reserved,
    });
  } finally {
    db.exec('PRAGMA query_only = OFF');
  }
  assert.deepEqual(await ledger.debit('key_k', 10_000, 100, NOON), {
    ok: true,
    remaining: 10_000 - reserved - 100,
  });
  assert.ok(disk.credits('key_k') >= reserved + 100);
  disk.close();
  db.close();
});

test('reserving ahead: a new day starts with nothing reserved, and the last day gives back what it did not use', async () => {
  const { path, db, ledger } = open('days', AHEAD);
  const disk = diskReader(path);
  for (let i = 0; i < 6; i++) await ledger.debit('key_l', 100_000, 25, NOON);
  assert.ok(disk.credits('key_l') > 150);
  const tomorrow = NOON + 86_400_000;
  assert.deepEqual(await ledger.debit('key_l', 100_000, 25, tomorrow), { ok: true, remaining: 100_000 - 25 });
  assert.equal(disk.credits('key_l'), 150, 'yesterday written as its exact spending');
  assert.ok(disk.credits('key_l', '2026-05-13') >= 25);
  assert.equal(await ledger.spent('key_l', tomorrow), 25);
  disk.close();
  db.close();
});

test('a cost that is not a count of credits is refused before it reaches the balance', async () => {
  const db = openSqlite(':memory:');
  const ledger = new SqliteCreditLedger(db, new GroupCommit(db));
  for (const cost of [Number.NaN, -1, 1.5, Number.POSITIVE_INFINITY]) {
    await assert.rejects(ledger.debit('key_m', 1000, cost), RangeError);
    assert.throws(() => ledger.debitNow('key_m', 1000, cost), RangeError);
    await assert.rejects(ledger.refund('key_m', cost), RangeError);
  }
  assert.equal(await ledger.spent('key_m'), 0);
  db.close();
});

test('a database of the previous version starts its balances from the usage it recorded', async () => {
  const stores = openEmbeddedStores(dir.path);
  stores.usage.record('key_n', 'eth_call', 80);
  await stores.close();
  // Simulate the previous schema: no credits_spent table, user_version one step back.
  const old = openSqlite(join(dir.path, 'gateway.db'));
  old.exec('DROP TABLE credits_spent');
  old.exec('ALTER TABLE usage DROP COLUMN refused');
  old.exec('PRAGMA user_version = 3');
  old.close();
  const upgraded = openEmbeddedStores(dir.path);
  assert.equal(await upgraded.ledger.spent('key_n'), 80);
  await upgraded.close();
});

test('a usage row SQLite refuses is dropped and reported, and the reservation committed with it still goes through', async () => {
  const { path, db, commits, ledger } = open('bad-row');
  const errors: Error[] = [];
  const usage = new SqliteUsageRecorder(db, 60_000, commits, (error) => errors.push(error));
  usage.record('key_o', 'eth_call', 80);
  usage.record('key_o', 'broken', Number.NaN); // NaN is bound as NULL: NOT NULL constraint
  const debit = ledger.debit('key_o', 1000, 80, NOON);
  await usage.flush(); // one transaction: the reservation and the usage rows
  assert.deepEqual(await debit, { ok: true, remaining: 920 });
  assert.equal(diskReader(path).credits('key_o'), 80);
  assert.equal(errors.length, 1);
  assert.match(errors[0].message, /NOT NULL/);
  assert.deepEqual(
    (await usage.usage({ keyId: 'key_o' })).map((r) => [r.method, r.credits]),
    [['eth_call', 80]],
  );
  await usage.close();
  db.close();
});

test('usage that cannot be written while the disk refuses writes is kept and written once it takes them again', async () => {
  const db = openSqlite(join(dir.path, 'usage-readonly.db'));
  const errors: Error[] = [];
  const usage = new SqliteUsageRecorder(db, 60_000, new GroupCommit(db), (error) => errors.push(error));
  usage.record('key_p', 'eth_call', 80);
  usage.record('key_p', 'eth_call', 80, -32000);
  db.exec('PRAGMA query_only = ON');
  await assert.rejects(usage.flush(), StoreUnavailableError);
  assert.ok(errors.length >= 1);
  db.exec('PRAGMA query_only = OFF');
  assert.deepEqual(
    (await usage.usage({ keyId: 'key_p' })).map((r) => [r.method, r.requests, r.credits]),
    [['eth_call', 2, 160]],
  );
  assert.deepEqual(
    (await usage.errors({ keyId: 'key_p' })).map((e) => [e.code, e.count]),
    [[-32000, 1]],
  );
  await usage.close();
  db.close();
});

test('a commit that fails before reaching the ledger (another writer, or BEGIN) refuses the held debits with 503 and charges nothing', async () => {
  const { path, db, ledger, state } = openBreakable('fails-elsewhere');
  state.broken = true;
  const disk = diskReader(path);
  await ledger.debit('key_q', 1000, 100, NOON).catch(() => {});
  assert.equal(disk.credits('key_q'), 0);
  const held = [ledger.debit('key_q', 1000, 30, NOON), ledger.debit('key_q', 1000, 20, NOON)];
  for (const debit of held) await assert.rejects(debit, NOT_WRITTEN);
  assert.equal(await ledger.spent('key_q', NOON), 0, 'nothing charged for debits that were not written');
  assert.equal(ledger.pending, 0, 'nothing left to write: the refused debits are not retried');
  state.broken = false;
  assert.deepEqual(await ledger.debit('key_q', 1000, 10, NOON), { ok: true, remaining: 990 });
  assert.equal(disk.credits('key_q'), 10);
  disk.close();
  db.close();
});
test('a refund whose commit fails is written by the next commit, even one for another key', async () => {
  const { path, db, ledger, state } = openBreakable('refund-fails');
  const disk = diskReader(path);
  assert.deepEqual(await ledger.debit('key_w', 1000, 100, NOON), { ok: true, remaining: 900 });
  state.broken = true;
  await ledger.refund('key_w', 100, NOON); // resolves although it could not be written
  assert.equal(await ledger.spent('key_w', NOON), 0);
  assert.equal(disk.credits('key_w'), 100, 'not written yet');
  state.broken = false;
  // The next commit is another key's: key_w's refund goes with it, so a crash now keeps nothing.
  assert.deepEqual(await ledger.debit('key_x', 1000, 10, NOON), { ok: true, remaining: 990 });
  assert.equal(disk.credits('key_w'), 0, 'the refund went with the next commit');
  assert.equal(disk.credits('key_x'), 10);
  assert.equal(ledger.pending, 0);
  disk.close();
  db.close();
});

test('reserving ahead: an earlier day whose give-back commit fails is written as its exact spending by a later commit', async () => {
  const { path, db, ledger, state } = openBreakable('retired-fails', AHEAD);
  const disk = diskReader(path);
  for (let i = 0; i < 6; i++) await ledger.debit('key_y', 100_000, 25, NOON);
  const reserved = disk.credits('key_y');
  assert.ok(reserved > 150, 'today reserved more than it spent');
  const tomorrow = NOON + 86_400_000;
  state.broken = true;
  // Tomorrow retires today's balance; the commit that would give back its unused reservation fails.
  await assert.rejects(ledger.debit('key_y', 100_000, 25, tomorrow), NOT_WRITTEN);
  assert.equal(disk.credits('key_y'), reserved, 'nothing given back yet');
  state.broken = false;
  assert.deepEqual(await ledger.debit('key_y', 100_000, 25, tomorrow), { ok: true, remaining: 100_000 - 25 });
  assert.equal(disk.credits('key_y'), 150, 'today written as its exact spending by the next commit');
  assert.ok(disk.credits('key_y', '2026-05-13') >= 25);
  assert.equal(ledger.held, 1, 'and dropped from memory once written');
  disk.close();
  db.close();
});

test('reserving ahead: a grant whose commit fails leaves the reservation on disk as it was; debits inside it go on, and the next grant is a new one', async () => {
  const { path, db, ledger, state } = openBreakable('grant-fails', AHEAD);
  const disk = diskReader(path);
  const limit = 100_000; // grants up to 1 000
  // Debits of 10 at one moment: grants of 10, 20, 40 (reserved 70), then 20 more inside it.
  for (let i = 0; i < 5; i++) await ledger.debit('key_z', limit, 10, NOON);
  assert.equal(disk.credits('key_z'), 70);
  state.broken = true;
  // 30 does not fit in the 20 left: a grant of 80 (to 130) is asked for, and its commit fails.
  await assert.rejects(ledger.debit('key_z', limit, 30, NOON), NOT_WRITTEN);
  assert.equal(await ledger.spent('key_z', NOON), 50, 'nothing charged for it');
  state.broken = false;
  // The next commit is another key's: key_z's reservation on disk stays what was committed.
  assert.deepEqual(await ledger.debit('key_zz', limit, 10, NOON), { ok: true, remaining: limit - 10 });
  assert.equal(disk.credits('key_z'), 70, 'the committed reservation kept, not cut to the spending');
  assert.deepEqual(ledger.debitNow('key_z', limit, 20, NOON), { ok: true, remaining: limit - 70 });
  // Past it, a new grant is written (doubled from the 80 that failed, as it was asked for just
  // now), not the reservation that failed.
  assert.deepEqual(await ledger.debit('key_z', limit, 30, NOON), { ok: true, remaining: limit - 100 });
  assert.equal(disk.credits('key_z'), 70 + 160);
  disk.close();
  db.close();
});

test('reserving ahead: a clock that goes back to a day just left revives its balance, with its reservation and exact spending', async () => {
  const { path, db, ledger } = open('clock-back', AHEAD);
  const disk = diskReader(path);
  for (let i = 0; i < 6; i++) await ledger.debit('key_r', 100_000, 25, NOON);
  const reserved = disk.credits('key_r');
  assert.ok(reserved > 150);
  const tomorrow = NOON + 86_400_000;
  // Tomorrow retires today's balance (its unused reservation to be given back with the next
  // commit); the clock goes back before that commit runs.
  assert.equal(await ledger.spent('key_r', tomorrow), 0);
  assert.equal(await ledger.spent('key_r', NOON), 150, 'spent is what was spent, not what was reserved');
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(disk.credits('key_r'), reserved, 'the revived day keeps its reservation');
  assert.deepEqual(ledger.debitNow('key_r', 100_000, reserved - 150, NOON), {
    ok: true,
    remaining: 100_000 - reserved,
  });
  assert.equal(ledger.pending, 0, 'a debit inside the kept reservation writes nothing');
  disk.close();
  db.close();
});

test('reserving ahead: earlier days are dropped from memory once their unused reservation is written back', async () => {
  const { path, db, ledger } = open('retired-dropped', AHEAD);
  const disk = diskReader(path);
  const keys = Array.from({ length: 20 }, (_, i) => `key_t${i}`);
  let day = NOON;
  for (let d = 0; d < 3; d++, day += 86_400_000) {
    for (const key of keys) await ledger.debit(key, 100_000, 5, day);
    for (const key of keys) await ledger.debit(key, 100_000, 5, day);
  }
  assert.equal(ledger.held, keys.length, 'one balance per key, whatever the number of days');
  assert.equal(disk.credits('key_t0', DAY), 10, 'the first day written back as its exact spending');
  disk.close();
  db.close();
});

test('reserving ahead: a grant used up within a second doubles, one that lasted over 4 s halves, in between it stays', async () => {
  const { path, db, ledger } = open('grant-sizes', AHEAD);
  const disk = diskReader(path);
  const limit = 100_000; // grants up to 1 000
  /** Debits of 10 until one needs a new grant at `at`; the reservation on disk after it. */
  const spendPastReservation = async (at: number) => {
    const before = disk.credits('key_u');
    while (disk.credits('key_u') === before) await ledger.debit('key_u', limit, 10, at);
    return disk.credits('key_u');
  };
  let t = NOON;
  assert.equal(await spendPastReservation(t), 10, 'the first grant is the cost');
  assert.equal(await spendPastReservation(t), 30, 'used up at once: doubled to 20');
  assert.equal(await spendPastReservation(t), 70, 'doubled to 40');
  t += 1000;
  assert.equal(await spendPastReservation(t), 110, 'lasted exactly 1 s: stays 40');
  t += 4000;
  assert.equal(await spendPastReservation(t), 150, 'lasted exactly 4 s: stays 40');
  t += 4001;
  assert.equal(await spendPastReservation(t), 170, 'lasted over 4 s: halved to 20');
  t += 999;
  assert.equal(await spendPastReservation(t), 210, 'used up within a second: doubled to 40');
  disk.close();
  db.close();
});
