import { StoreUnavailableError } from '../rpc/errors.ts';
import type { BatchWriter, GroupCommit } from '../stores/group-commit.ts';
import { type SqliteDatabase, scalar } from '../stores/sqlite.ts';
import { utcDay } from './day.ts';
import type { CreditLedger, DebitResult } from './ledger.ts';
import { MemoryCreditLedger } from './memory-ledger.ts';

type Delta = { keyId: string; day: string; credits: number };
type Waiter = {
  keyId: string;
  cost: number;
  now: number;
  resolve: () => void;
  reject: (error: Error) => void;
};

/** When a refund could not be written, how long until the next attempt. */
const RETRY_MS = 1000;

const notRecorded = () =>
  new StoreUnavailableError(
    'sqlite',
    'metering is unavailable: the debit could not be written to the SQLite database; the request was not served, retry shortly',
  );

/**
 * Daily balances of a single gateway process that survive a crash. The check-and-debit runs in
 * memory (one event loop: nothing interleaves), and the debit is written to SQLite
 * (`credits_spent`, one row per key and UTC day) before `debit` resolves, so before the request is
 * forwarded: an answered call stays charged after SIGKILL. The debits of one event-loop turn share
 * one transaction (group commit). Refunds are written the same way; if the process dies before a
 * refund is written the key is charged for a call it did not get, never the other way round.
 */
export class SqliteCreditLedger implements CreditLedger, BatchWriter {
  private readonly memory: MemoryCreditLedger;
  private readonly statements;
  /** Net credits per key and day not yet written (debits minus refunds). */
  private deltas = new Map<string, Delta>();
  private refunds = new Map<string, Delta>();
  private waiters: Waiter[] = [];
  /** What the transaction in progress took, to settle or undo. */
  private batch: { refunds: Map<string, Delta>; waiters: Waiter[] } | undefined;

  constructor(
    db: SqliteDatabase,
    private readonly commits: GroupCommit,
  ) {
    this.statements = {
      spent: db.prepare('SELECT credits FROM credits_spent WHERE key_id = ? AND day = ?'),
      add: db.prepare(
        `INSERT INTO credits_spent (key_id, day, credits) VALUES (?1, ?2, MAX(0, ?3))
         ON CONFLICT (key_id, day) DO UPDATE SET credits = MAX(0, credits + ?3)`,
      ),
    };
    this.memory = new MemoryCreditLedger(
      (keyId, day) => scalar<number | undefined>(this.statements.spent, keyId, day) ?? 0,
    );
    commits.add(this);
  }

  debit(keyId: string, dailyLimit: number, cost: number, now = Date.now()): Promise<DebitResult> {
    // A cost that is not a count of credits would poison the balance (NaN) and the transaction.
    if (!Number.isSafeInteger(cost) || cost < 0)
      return Promise.reject(new RangeError(`not a credit cost: ${cost}`));
    const result = this.memory.debitNow(keyId, dailyLimit, cost, now);
    if (!result.ok || cost === 0) return Promise.resolve(result);
    add(this.deltas, keyId, utcDay(now), cost);
    return new Promise((resolve, reject) => {
      this.waiters.push({ keyId, cost, now, resolve: () => resolve(result), reject });
      this.commits.schedule();
    });
  }

  /** Resolves once the refund is written, or kept for the next commit if that failed. */
  refund(keyId: string, cost: number, now = Date.now()): Promise<void> {
    if (cost === 0) return Promise.resolve();
    this.memory.refundNow(keyId, cost, now);
    const day = utcDay(now);
    add(this.deltas, keyId, day, -cost);
    add(this.refunds, keyId, day, cost);
    return new Promise((resolve) => {
      this.waiters.push({ keyId, cost: 0, now, resolve, reject: () => resolve() });
      this.commits.schedule();
    });
  }

  spent(keyId: string, now = Date.now()) {
    return this.memory.spent(keyId, now);
  }

  get pending() {
    return this.deltas.size;
  }

  write() {
    for (const delta of this.take().values())
      if (delta.credits !== 0) this.statements.add.run(delta.keyId, delta.day, delta.credits);
  }

  /** Moves what is pending into the batch of the transaction in progress. */
  private take() {
    const deltas = this.deltas;
    this.batch = { refunds: this.refunds, waiters: this.waiters };
    this.deltas = new Map();
    this.refunds = new Map();
    this.waiters = [];
    return deltas;
  }

  committed() {
    const batch = this.batch;
    this.batch = undefined;
    for (const waiter of batch?.waiters ?? []) waiter.resolve();
  }

  failed() {
    // The transaction may have failed before reaching this writer: then all that is pending failed.
    if (!this.batch) this.take();
    const batch = this.batch!;
    this.batch = undefined;
    // Refunds are already given in memory: they are written with a later commit (retried in a second).
    for (const refund of batch.refunds.values()) {
      add(this.deltas, refund.keyId, refund.day, -refund.credits);
      add(this.refunds, refund.keyId, refund.day, refund.credits);
    }
    if (batch.refunds.size) setTimeout(() => this.commits.schedule(), RETRY_MS).unref();
    // Debits that were not written are not charged, and their requests are not served.
    for (const waiter of batch.waiters) {
      if (waiter.cost > 0) this.memory.refundNow(waiter.keyId, waiter.cost, waiter.now);
      waiter.reject(notRecorded());
    }
  }

  async close() {
    this.commits.commitNow();
  }
}

function add(map: Map<string, Delta>, keyId: string, day: string, credits: number) {
  const id = `${keyId}\0${day}`;
  const delta = map.get(id);
  if (delta) delta.credits += credits;
  else map.set(id, { keyId, day, credits });
}
