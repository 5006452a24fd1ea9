// The SQLite credit ledger at the edges of its states: a key's day changing (and a clock going
// back to the day just left) while a debit or a refund waits for its commit, a clean close with
// nothing or something left to write, spending exactly to the limit, the messages of its errors.
// Time is frozen (`now` parameters); what survives a crash is read by a second connection.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, test } from 'node:test';
import {
  type BatchWriter,
  GroupCommit,
  openSqlite,
  SqliteCreditLedger,
  StoreUnavailableError,
} from '@portico/gateway';
import { tempDir } from '@portico/testkit';
import { diskReader, NOON } from './ledger-disk.ts';

const dir = tempDir('portico-ledger-states-');
after(() => dir.cleanup());

const TOMORROW = NOON + 86_400_000;
const AHEAD = { reserveAhead: true };

/** A ledger on a fresh file, a second connection reading it, and a count of the commits. */
function open(name: string, options: { reserveAhead?: boolean } = {}) {
  const path = join(dir.path, `${name}.db`);
  const db = openSqlite(path);
  const commits = new GroupCommit(db);
  const ledger = new SqliteCreditLedger(db, commits, options);
  const count = { transactions: 0 };
  const counter: BatchWriter = { pending: 0, write: () => count.transactions++, committed() {}, failed() {} };
  commits.add(counter);
  const reader = diskReader(path);
  const disk = reader.credits;
  const close = () => {
    reader.close();
    db.close();
  };
  return { db, commits, ledger, count, disk, close };
}

/** How a promise stands once the commits asked for in this turn have run (one setImmediate later). */
async function afterThisTurn(promise: Promise<unknown>) {
  let state = 'pending';
  promise.then(
    () => {
      state = 'resolved';
    },
    () => {
      state = 'rejected';
    },
  );
  await new Promise((resolve) => setImmediate(resolve));
  return state;
}

test('a debit may spend exactly up to the daily limit, not one credit beyond', async () => {
  const { ledger, close } = open('to-the-limit');
  assert.deepEqual(await ledger.debit('key_a', 100, 60, NOON), { ok: true, remaining: 40 });
  assert.deepEqual(await ledger.debit('key_a', 100, 40, NOON), { ok: true, remaining: 0 });
  assert.equal(ledger.debitNow('key_a', 100, 1, NOON)?.ok, false);
  close();
});

test('the errors say what went wrong: the cost refused, the debit not written', async () => {
  const db = openSqlite(':memory:');
  const ledger = new SqliteCreditLedger(db, new GroupCommit(db));
  assert.throws(() => ledger.debitNow('key_b', 1000, 1.5, NOON), {
    name: 'RangeError',
    message: 'not a credit cost: 1.5',
  });
  db.exec('PRAGMA query_only = ON');
  await assert.rejects(ledger.debit('key_b', 1000, 10, NOON), (error: unknown) => {
    assert.ok(error instanceof StoreUnavailableError, 'a store error');
    assert.match(error.message, /could not be written to the SQLite database/);
    return true;
  });
  db.close();
});

test('a key whose day changes with nothing left to give back writes nothing and holds one balance', async () => {
  const { ledger, count, disk, close } = open('day-exact');
  await ledger.debit('key_c', 1000, 80, NOON);
  const before = count.transactions;
  assert.equal(await ledger.spent('key_c', TOMORROW), 0);
  assert.equal(ledger.pending, 0, 'yesterday is on disk exactly');
  assert.equal(ledger.held, 1, 'yesterday dropped at once');
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(count.transactions, before);
  assert.equal(disk('key_c'), 80);
  close();
});

test('reserving ahead: an earlier day is held until its unused reservation is written back', async () => {
  const { ledger, disk, close } = open('day-ahead', AHEAD);
  for (let i = 0; i < 4; i++) await ledger.debit('key_d', 100_000, 10, NOON); // reserves 10 + 20 + 40
  assert.equal(disk('key_d'), 70);
  assert.equal(await ledger.spent('key_d', TOMORROW), 0);
  assert.equal(ledger.held, 2, "today's balance and yesterday's, not written back yet");
  assert.equal(ledger.pending, 1);
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(disk('key_d'), 40);
  assert.equal(ledger.held, 1);
  close();
});

test('a debit held when its key moves to the next day is still written and answered', async () => {
  const { ledger, disk, close } = open('held-day-change');
  await ledger.debit('key_e', 1000, 100, NOON);
  // In one turn: a refund and a debit of the same cost (on disk 100, spent 100 again), then the
  // next day's request retires the balance while the debit waits for its commit.
  const refund = ledger.refund('key_e', 30, NOON);
  const debit = ledger.debit('key_e', 1000, 30, NOON);
  assert.equal(await ledger.spent('key_e', TOMORROW), 0);
  assert.equal(await afterThisTurn(debit), 'resolved');
  assert.deepEqual(await debit, { ok: true, remaining: 900 });
  await refund;
  assert.equal(disk('key_e'), 100);
  close();
});

test('a clock back to the day just left: a debit held meanwhile is still written and answered', async () => {
  const { ledger, disk, close } = open('held-clock-back');
  const debit = ledger.debit('key_f', 1000, 30, NOON);
  assert.equal(await ledger.spent('key_f', TOMORROW), 0);
  assert.equal(await ledger.spent('key_f', NOON), 30);
  assert.equal(await afterThisTurn(debit), 'resolved');
  assert.equal(disk('key_f'), 30);
  close();
});

test('a clock back to the day just left: a debit held inside the reservation is still answered', async () => {
  const { ledger, disk, close } = open('held-inside-clock-back', AHEAD);
  await ledger.debit('key_g', 100_000, 10, NOON); // reserves 10
  // Held for a grant (to 30), then a refund brings the spending back to the 10 reserved.
  const debit = ledger.debit('key_g', 100_000, 10, NOON);
  await ledger.refund('key_g', 10, NOON);
  assert.equal(await ledger.spent('key_g', TOMORROW), 0);
  assert.equal(await ledger.spent('key_g', NOON), 10);
  assert.equal(await afterThisTurn(debit), 'resolved');
  assert.ok(disk('key_g') >= 10, 'never below what was answered');
  close();
});

test('reserving ahead: a clock back to the day just left, its reservation unchanged, writes nothing', async () => {
  const { ledger, disk, close } = open('clock-back-nothing', AHEAD);
  for (let i = 0; i < 4; i++) await ledger.debit('key_h', 100_000, 10, NOON); // reserves 70
  await ledger.spent('key_h', TOMORROW);
  assert.equal(ledger.pending, 1, "yesterday's unused reservation to give back");
  await ledger.spent('key_h', NOON);
  assert.equal(ledger.pending, 0, 'revived with its reservation: nothing to write');
  assert.equal(disk('key_h'), 70);
  close();
});

test('a clock back to the day just left writes a refund made before it', async () => {
  const { ledger, disk, close } = open('refund-clock-back');
  await ledger.debit('key_i', 1000, 100, NOON);
  const refund = ledger.refund('key_i', 100, NOON);
  assert.equal(await ledger.spent('key_i', TOMORROW), 0);
  assert.equal(await ledger.spent('key_i', NOON), 0);
  assert.equal(await afterThisTurn(refund), 'resolved');
  assert.equal(disk('key_i'), 0, 'a crash now keeps nothing of the refunded call');
  close();
});

test('a clean close with every balance already on disk writes nothing', async () => {
  const { ledger, count, disk, close } = open('close-nothing');
  await ledger.debit('key_j', 1000, 80, NOON);
  await ledger.debit('key_k', 1000, 20, NOON);
  const before = count.transactions;
  await ledger.close();
  assert.equal(count.transactions, before);
  assert.equal(disk('key_j'), 80);
  close();
});

test('reserving ahead: a clean close writes the exact spending of a key whose grant was waiting', async () => {
  const { ledger, disk, close } = open('close-waiting', AHEAD);
  await ledger.debit('key_l', 100_000, 10, NOON); // reserves 10
  // Held for a grant (to 30); a refund brings the spending back to the 10 reserved.
  const debit = ledger.debit('key_l', 100_000, 10, NOON);
  await ledger.refund('key_l', 10, NOON);
  await ledger.close();
  assert.deepEqual(await debit, { ok: true, remaining: 100_000 - 20 });
  assert.equal(disk('key_l'), 10, 'on disk exactly what was spent, not the grant');
  close();
});

test('reserving ahead: debits of one turn that fit in the grant asked for share it, no larger one', async () => {
  const { ledger, disk, close } = open('one-grant-per-turn', AHEAD);
  await ledger.debit('key_m', 100_000, 10, NOON); // reserves 10
  // The first needs a grant (doubled to 20, to 30); the second fits in it.
  await Promise.all([ledger.debit('key_m', 100_000, 10, NOON), ledger.debit('key_m', 100_000, 10, NOON)]);
  assert.equal(disk('key_m'), 30);
  close();
});

test('a refund of nothing writes nothing', async () => {
  const { ledger, count, close } = open('refund-nothing');
  await ledger.debit('key_n', 1000, 80, NOON);
  const before = count.transactions;
  await ledger.refund('key_n', 0, NOON);
  assert.equal(ledger.pending, 0);
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(count.transactions, before);
  close();
});
