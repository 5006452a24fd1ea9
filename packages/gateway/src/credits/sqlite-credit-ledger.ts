import { StoreUnavailableError } from '../rpc/errors.ts';
import type { BatchWriter, GroupCommit } from '../stores/group-commit.ts';
import { type SqliteDatabase, scalar } from '../stores/sqlite.ts';
import { nextUtcMidnight, utcDay } from './day.ts';
import type { CreditLedger, DebitResult } from './ledger.ts';

/**
 * A grant is at most the daily limit divided by this (or the call's cost, if dearer): 1 %. It is
 * also the most a crash can cost a key, for the rest of that day only. At the cap a key needs at
 * most about a hundred writes for its whole day, so a larger share would save nothing that
 * matters, while a smaller one would make busy keys with small limits write often.
 */
const MAX_GRANT_DIVISOR = 100;
/**
 * A grant used up sooner than this is doubled: the key is busy and should write less often. A
 * commit costs some 10–20 µs of the event loop; one a second per busy key is noise, and doubling
 * gets there in a few steps (from one call's cost to a second's worth in about log2(rate) grants).
 */
const FAST_MS = 1000;
/**
 * A grant that lasted longer than this is halved: the key has slowed down and should hold less.
 * Between the two the grant stays, so a key at a steady pace settles on one write every 1–4 s
 * rather than swinging between a grant and its double.
 */
const SLOW_MS = 4000;

/** A debit that waits for the commit of the reservation that covers it. */
type Waiter = { cost: number; resolve: () => void; reject: (error: Error) => void };

/** One key's balance for one UTC day. */
type Balance = {
  keyId: string;
  day: string;
  /** Credits spent, exact (debits waiting for their reservation included, refunds taken off). */
  spent: number;
  /** Credits reserved on disk (`credits_spent`, committed): never below what was answered. */
  reserved: number;
  /** The reservation to write with the next commit (≥ spent); `reserved` when nothing waits. */
  target: number;
  /** Size of the last grant (0: none yet) and when it was asked for, to size the next one. */
  grant: number;
  grantedAt: number;
  /** Debits held until `target` is committed. */
  waiters: Waiter[];
};

const notRecorded = () =>
  new StoreUnavailableError(
    'sqlite',
    'metering is unavailable: the debit could not be written to the SQLite database; the request was not served, retry shortly',
  );

const isCost = (cost: number) => Number.isSafeInteger(cost) && cost >= 0;
const notACost = (cost: number) => new RangeError(`not a credit cost: ${cost}`);

/**
 * Daily balances of a single gateway process that survive a crash, without a write per debit.
 * The process owns its SQLite file (no other process spends from it). Per key and UTC day it keeps
 * in memory what was spent (exact) and what is reserved on disk (`credits_spent`, one row per key
 * and day, committed). A debit that fits in the reservation is decided at once in memory
 * (`debitNow`, nothing written); one that does not is held while a larger reservation (a grant) is
 * committed, then answered. On disk is therefore always at least what was answered: a SIGKILL can
 * leave a key with fewer credits than it had, never more.
 *
 * What a crash can cost a key: the unused part of its reservation, at most one grant, and a grant
 * is never more than max(cost, 1 % of the daily limit) (plus credits given back by refunds of calls
 * in flight when that grant was taken). Grants double while a key uses them up within a second and
 * halve when one lasted more than 4 s, so a busy key writes about once a second or less whatever
 * its request rate, until its grant reaches the cap; at the cap each write reserves 1 % of its
 * day, so about a hundred such writes at most. A clean `close()` gives every unused reservation
 * back (writes the exact spending), and an earlier day's reservation is given back with the next
 * commit once the key is used on a new day.
 *
 * Refunds are made in memory only: the reservation just has more room. Reservations are written by
 * the shared group commit (`BatchWriter`), in the same transactions as the usage counts; a commit
 * that fails refuses the debits it held (StoreUnavailableError, HTTP 503) and charges nothing,
 * while debits inside a reservation already committed go on.
 */
export class SqliteCreditLedger implements CreditLedger, BatchWriter {
  private readonly statements;
  /** Each key's balance of the latest day it was used on. */
  private readonly balances = new Map<string, Balance>();
  /** Balances of earlier days whose unused reservation is still to be given back, by key and day. */
  private readonly retired = new Map<string, Balance>();
  /** Balances whose `target` is to be written with the next commit. */
  private dirty = new Set<Balance>();
  /** What the transaction in progress wrote, to settle or undo. */
  private batch: { balance: Balance; value: number; waiters: Waiter[] }[] | undefined;

  constructor(
    db: SqliteDatabase,
    private readonly commits: GroupCommit,
  ) {
    this.statements = {
      spent: db.prepare('SELECT credits FROM credits_spent WHERE key_id = ? AND day = ?'),
      set: db.prepare(
        `INSERT INTO credits_spent (key_id, day, credits) VALUES (?1, ?2, ?3)
         ON CONFLICT (key_id, day) DO UPDATE SET credits = ?3`,
      ),
    };
    commits.add(this);
  }

  /** Throws a RangeError for a cost that is not a count of credits (where `debit` rejects). */
  debitNow(keyId: string, dailyLimit: number, cost: number, now = Date.now()): DebitResult | undefined {
    // A cost that is not a count of credits would poison the balance (NaN) and the transaction.
    if (!isCost(cost)) throw notACost(cost);
    return decide(this.balance(keyId, now), dailyLimit, cost, now);
  }

  debit(keyId: string, dailyLimit: number, cost: number, now = Date.now()): Promise<DebitResult> {
    if (!isCost(cost)) return Promise.reject(notACost(cost));
    const balance = this.balance(keyId, now);
    const decided = decide(balance, dailyLimit, cost, now);
    if (decided) return Promise.resolve(decided);
    // Held: requests racing in this turn see the cost spent; answered once a reservation covers it.
    if (balance.spent + cost > balance.target) this.grow(balance, dailyLimit, cost, now);
    balance.spent += cost;
    const result: DebitResult = { ok: true, remaining: dailyLimit - balance.spent };
    return new Promise((resolve, reject) => {
      balance.waiters.push({ cost, resolve: () => resolve(result), reject });
      this.dirty.add(balance);
      this.commits.schedule();
    });
  }

  /** Raises the reservation to be written by one grant, sized by how fast the last one went. */
  private grow(balance: Balance, dailyLimit: number, cost: number, now: number) {
    const lasted = now - balance.grantedAt;
    let grant = balance.grant;
    if (grant === 0) grant = cost;
    else if (lasted < FAST_MS) grant *= 2;
    else if (lasted > SLOW_MS) grant = Math.floor(grant / 2);
    const most = Math.max(cost, Math.floor(dailyLimit / MAX_GRANT_DIVISOR));
    grant = Math.min(Math.max(grant, cost), most);
    balance.grant = grant;
    balance.grantedAt = now;
    // decide() checked spent + cost ≤ dailyLimit, so the target covers this debit.
    balance.target = Math.min(dailyLimit, balance.spent + grant);
  }

  /** In memory only: the reservation on disk just has more room. */
  refund(keyId: string, cost: number, now = Date.now()): Promise<void> {
    if (!isCost(cost)) return Promise.reject(notACost(cost));
    const balance = this.balance(keyId, now);
    balance.spent = Math.max(0, balance.spent - cost);
    return Promise.resolve();
  }

  spent(keyId: string, now = Date.now()): Promise<number> {
    return Promise.resolve(this.balance(keyId, now).spent);
  }

  /** The key's balance of `now`'s day; the balance of an earlier day is retired. */
  private balance(keyId: string, now: number): Balance {
    const day = utcDay(now);
    const current = this.balances.get(keyId);
    if (current?.day === day) return current;
    const id = `${keyId}\0${day}`;
    let balance = this.retired.get(id);
    if (balance) {
      // Used again (a clock that went back): it keeps what it reserved, nothing to give back.
      this.retired.delete(id);
      balance.target = Math.max(balance.reserved, balance.spent);
      if (balance.target === balance.reserved && balance.waiters.length === 0) this.dirty.delete(balance);
    } else {
      const onDisk = scalar<number | undefined>(this.statements.spent, keyId, day) ?? 0;
      balance = {
        keyId,
        day,
        spent: onDisk,
        reserved: onDisk,
        target: onDisk,
        grant: 0,
        grantedAt: 0,
        waiters: [],
      };
    }
    if (current) this.retire(current);
    this.balances.set(keyId, balance);
    return balance;
  }

  /** Gives back the unused reservation of a day the key has left, with the next commit. */
  private retire(balance: Balance) {
    balance.target = balance.spent;
    if (balance.target === balance.reserved && balance.waiters.length === 0) {
      this.dirty.delete(balance);
      return;
    }
    this.retired.set(`${balance.keyId}\0${balance.day}`, balance);
    this.dirty.add(balance);
    this.commits.schedule();
  }

  get pending() {
    return this.dirty.size;
  }

  write() {
    const dirty = this.dirty;
    this.dirty = new Set();
    const batch: NonNullable<typeof this.batch> = [];
    this.batch = batch;
    for (const balance of dirty) {
      // Never below what is spent (target is kept ≥ spent; this makes the invariant local).
      balance.target = Math.max(balance.target, balance.spent);
      batch.push({ balance, value: balance.target, waiters: balance.waiters });
      balance.waiters = [];
    }
    for (const { balance, value } of batch) this.statements.set.run(balance.keyId, balance.day, value);
  }

  committed() {
    const batch = this.batch ?? [];
    this.batch = undefined;
    for (const { balance, value, waiters } of batch) {
      balance.reserved = value;
      // An earlier day's balance written as its exact spending: nothing left to give back.
      const id = `${balance.keyId}\0${balance.day}`;
      if (this.retired.get(id) === balance) this.retired.delete(id);
      for (const waiter of waiters) waiter.resolve();
    }
  }

  failed() {
    // The transaction may have failed before reaching this writer: then all that was pending failed.
    let batch = this.batch;
    this.batch = undefined;
    if (!batch) {
      batch = [...this.dirty].map((balance) => ({
        balance,
        value: balance.target,
        waiters: balance.waiters,
      }));
      for (const balance of this.dirty) balance.waiters = [];
      this.dirty = new Set();
    }
    for (const { balance, waiters } of batch) {
      // Debits whose reservation was not written are not charged, and their requests not served.
      for (const waiter of waiters) {
        balance.spent = Math.max(0, balance.spent - waiter.cost);
        waiter.reject(notRecorded());
      }
      if (this.retired.get(`${balance.keyId}\0${balance.day}`) === balance) {
        // What an earlier day did not use is given back with a later commit.
        balance.target = balance.spent;
        this.dirty.add(balance);
      } else {
        balance.target = Math.max(balance.reserved, balance.spent);
      }
    }
  }

  /** Gives back every unused reservation: on disk is then exactly what was spent. */
  async close() {
    for (const balance of this.balances.values()) {
      if (balance.target === balance.spent && balance.reserved === balance.spent) continue;
      balance.target = balance.spent;
      this.dirty.add(balance);
    }
    this.commits.commitNow();
  }
}

/** The debit decided in memory, or undefined when it needs a larger reservation first. */
function decide(balance: Balance, dailyLimit: number, cost: number, now: number): DebitResult | undefined {
  if (balance.spent + cost > dailyLimit)
    return {
      ok: false,
      remaining: Math.max(0, dailyLimit - balance.spent),
      resetsAt: nextUtcMidnight(now),
    };
  if (balance.spent + cost <= balance.reserved || cost === 0) {
    balance.spent += cost;
    return { ok: true, remaining: dailyLimit - balance.spent };
  }
  return undefined;
}
