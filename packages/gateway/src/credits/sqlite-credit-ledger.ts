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

export type SqliteCreditLedgerOptions = {
  /**
   * Reserve credits ahead of the debits (grants up to 1 % of the daily limit, debits inside them
   * decided in memory): fewer writes, but a crash keeps the unused part of the reservation, so the
   * key is charged for calls nobody got. Default false: every debit and refund is written by the
   * group commit of its event-loop turn before the call goes on (exact through a crash; measured
   * in docs/benchmarks.md, "Crash-safe debits").
   */
  reserveAhead?: boolean;
};

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
 * Daily balances of a single gateway process that survive a crash. The process owns its SQLite
 * file (no other process spends from it). Per key and UTC day it keeps in memory what was spent
 * (exact) and what is on disk (`credits_spent`, one row per key and day, committed).
 *
 * Exact (the default): a paid debit is held until the group commit at the end of its event-loop
 * turn has written the key's new spending, then answered, so the call is forwarded only once its
 * debit is on disk; a refund is written the same way before the refused call is answered. After a
 * SIGKILL a key has spent exactly its answered calls plus at most the calls that were in flight.
 * The debits of one turn share one transaction (with the usage counts), so the cost is one commit
 * per turn, not one per request (measured in docs/benchmarks.md).
 *
 * With `reserveAhead`: a debit that fits in the key's reservation is decided at once in memory
 * (`debitNow`, nothing written); one that does not is held while a larger reservation (a grant) is
 * committed. Grants double while a key uses them up within a second and halve when one lasted more
 * than 4 s, up to max(cost, 1 % of the daily limit); refunds are made in memory only. On disk is
 * then always at least what was answered, but a crash keeps the unused reservation: the key pays
 * for calls nobody got. Kept for the benchmark that compares the two.
 *
 * A clean `close()` writes every key's exact spending, and an earlier day's reservation is given
 * back with the next commit once the key is used on a new day. A commit that fails refuses the
 * debits it held (StoreUnavailableError, HTTP 503) and charges nothing.
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
  /** Refunds waiting for the commit that writes them (exact balances only). */
  private refunds: (() => void)[] = [];
  private readonly reserveAhead: boolean;

  constructor(
    db: SqliteDatabase,
    private readonly commits: GroupCommit,
    options: SqliteCreditLedgerOptions = {},
  ) {
    this.reserveAhead = options.reserveAhead ?? false;
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
    return decide(this.balance(keyId, now), dailyLimit, cost, now, this.reserveAhead);
  }

  debit(keyId: string, dailyLimit: number, cost: number, now = Date.now()): Promise<DebitResult> {
    if (!isCost(cost)) return Promise.reject(notACost(cost));
    const balance = this.balance(keyId, now);
    const decided = decide(balance, dailyLimit, cost, now, this.reserveAhead);
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
    if (!this.reserveAhead) grant = cost;
    else if (grant === 0) grant = cost;
    else if (lasted < FAST_MS) grant *= 2;
    else if (lasted > SLOW_MS) grant = Math.floor(grant / 2);
    const most = Math.max(cost, Math.floor(dailyLimit / MAX_GRANT_DIVISOR));
    grant = Math.min(Math.max(grant, cost), most);
    balance.grant = grant;
    balance.grantedAt = now;
    // decide() checked spent + cost ≤ dailyLimit, so the target covers this debit.
    balance.target = Math.min(dailyLimit, balance.spent + grant);
  }

  /**
   * Exact balances: written with the next commit, and resolved once it is done (the refused call's
   * answer waits for it, so a crash after the answer never keeps the credits). If that commit fails
   * the refund still resolves and is written with a later one. With reservations ahead: in memory
   * only, the reservation on disk just has more room.
   */
  refund(keyId: string, cost: number, now = Date.now()): Promise<void> {
    if (!isCost(cost)) return Promise.reject(notACost(cost));
    const balance = this.balance(keyId, now);
    balance.spent = Math.max(0, balance.spent - cost);
    if (this.reserveAhead || cost === 0) return Promise.resolve();
    balance.target = balance.spent;
    this.dirty.add(balance);
    return new Promise((resolve) => {
      this.refunds.push(resolve);
      this.commits.schedule();
    });
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
      // Used again (a clock that went back): reserving ahead it keeps what it reserved, nothing to
      // give back; exact, it writes its spending (a refund not written yet included).
      this.retired.delete(id);
      balance.target = this.reserveAhead ? Math.max(balance.reserved, balance.spent) : balance.spent;
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

  /**
   * Balances held in memory: one per key (its latest day) plus the earlier days whose unused
   * reservation is not written back yet. Each earlier day is dropped once its commit succeeds, so
   * this stays at the number of keys in use however many days go by.
   */
  get held() {
    return this.balances.size + this.retired.size;
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

  /** The refunds written (or given up on for now) by the transaction that just ended. */
  private settleRefunds() {
    const refunds = this.refunds;
    this.refunds = [];
    for (const resolve of refunds) resolve();
  }

  committed() {
    this.settleRefunds();
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
    this.settleRefunds();
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
      } else if (this.reserveAhead) {
        balance.target = Math.max(balance.reserved, balance.spent);
      } else {
        // Exact: a refund not written yet goes with a later commit (none is scheduled: a disk
        // refusing writes would otherwise be retried every turn).
        balance.target = balance.spent;
        if (balance.reserved !== balance.spent) this.dirty.add(balance);
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

/**
 * The debit decided in memory, or undefined when it must be written first (exact balances: every
 * paid debit; reserving ahead: one beyond the reservation).
 */
function decide(
  balance: Balance,
  dailyLimit: number,
  cost: number,
  now: number,
  reserveAhead: boolean,
): DebitResult | undefined {
  if (balance.spent + cost > dailyLimit)
    return {
      ok: false,
      remaining: Math.max(0, dailyLimit - balance.spent),
      resetsAt: nextUtcMidnight(now),
    };
  if (cost === 0 || (reserveAhead && balance.spent + cost <= balance.reserved)) {
    balance.spent += cost;
    return { ok: true, remaining: dailyLimit - balance.spent };
  }
  return undefined;
}
