import {
  meteringUnavailable,
  type RedisConnection,
  type RedisFailureMode,
  RedisHealth,
  RedisScript,
  slotPrefix,
} from '../stores/redis.ts';
import { nextUtcMidnight, utcDay } from './day.ts';
import type { CreditLedger, DebitResult } from './ledger.ts';

/**
 * The debits of one event-loop turn, checked and taken in order in one step. They come in groups,
 * one per counter and daily limit, in the order of each group's first debit: KEYS[g] is group g's
 * counter, and ARGV holds for each group its limit, its expiry (unix seconds), its number of runs,
 * then the runs: a debit's cost alone, or `-n, cost` for n debits in a row of one cost. Nothing
 * else runs in Redis meanwhile, so each debit sees every one before it, from this instance or
 * another. The reply holds for each group the counter before it, then for each run how many of its
 * debits were taken: the first ones, since a cost that no longer fits does not fit again until a
 * cheaper one comes. Each counter is read once and written once; a turn's work and reply grow with
 * its runs, not its debits (a busy key's turn is mostly one method, one cost).
 */
const DEBIT_TURN = new RedisScript(`
local spent, added, expiry, touched, out = {}, {}, {}, {}, {}
local a = 1
for g = 1, #KEYS do
  local key = KEYS[g]
  local limit, runs = tonumber(ARGV[a]), tonumber(ARGV[a + 2])
  expiry[key] = ARGV[a + 1]
  a = a + 3
  local total = spent[key]
  if total == nil then
    total = tonumber(redis.call('GET', key) or '0')
    added[key] = 0
    touched[#touched + 1] = key
  end
  out[#out + 1] = total
  for r = 1, runs do
    local n, cost = 1, tonumber(ARGV[a])
    if cost < 0 then
      n, cost = -cost, tonumber(ARGV[a + 1])
      a = a + 1
    end
    a = a + 1
    local taken = 0
    if total + cost <= limit then
      taken = n
      if cost > 0 then
        taken = math.min(n, math.floor((limit - total) / cost))
        if total + taken * cost > limit then taken = taken - 1 end
      end
    end
    total = total + taken * cost
    added[key] = added[key] + taken * cost
    out[#out + 1] = taken
  end
  spent[key] = total
end
for _, key in ipairs(touched) do
  if added[key] > 0 then
    redis.call('INCRBY', key, added[key])
    redis.call('EXPIREAT', key, expiry[key])
  end
end
return out`);

/** Adds credits spent elsewhere (metered locally while Redis was away) without a check. */
const ADD = new RedisScript(`
local spent = redis.call('INCRBY', KEYS[1], ARGV[1])
redis.call('EXPIREAT', KEYS[1], ARGV[2])
return spent`);

/** Gives credits back, never below zero, keeping the key's expiry. */
const REFUND = new RedisScript(`
local spent = tonumber(redis.call('GET', KEYS[1]) or '0')
if spent == 0 then return 0 end
local left = math.max(0, spent - tonumber(ARGV[1]))
redis.call('SET', KEYS[1], left, 'KEEPTTL')
return left`);

/** Seconds a day's counter is kept after the day ends (for inspection), then Redis drops it. */
const KEEP_AFTER_DAY_S = 3600;

/**
 * The most debits sent in one script call (more in one turn go in several calls, sent at once).
 * The script holds Redis while it runs: a thousand debits take it well under a millisecond, and
 * keep the call's arguments far below what a JavaScript call can spread.
 */
const MAX_BATCH = 1000;

/** A debit waiting for the script call of its turn. */
type Queued = {
  keyId: string;
  day: string;
  dailyLimit: number;
  cost: number;
  now: number;
  resolve: (result: DebitResult) => void;
  reject: (error: Error) => void;
};

/** A group's debits cut where the cost changes: the runs of DEBIT_TURN's arguments. */
function runsOfEqualCost(debits: Queued[]): Queued[][] {
  const runs: Queued[][] = [];
  let run: Queued[] = [];
  for (const debit of debits) {
    if (run.length > 0 && run[0].cost !== debit.cost) {
      runs.push(run);
      run = [];
    }
    run.push(debit);
  }
  runs.push(run);
  return runs;
}

export type RedisCreditLedgerOptions = {
  /** Prefix of every Redis key. Default `portico:`. */
  keyPrefix?: string;
  failure?: RedisFailureMode;
  health?: RedisHealth;
  /** Told of failed refunds and of debts that could not be settled. */
  onError?: (error: Error) => void;
  /** The clock for calls without `now` (tests freeze it to stay inside one UTC day). */
  clock?: () => number;
};

/**
 * Daily balances in Redis, shared by every gateway instance: one counter per key and UTC day
 * (`<prefix>credits:<keyId>:<day>`, on a Redis Cluster `{<prefix>credits}:<keyId>:<day>`, one slot
 * for all, since a turn's script touches many; expiring an hour after the day), debited by a Lua script that
 * checks and increments atomically, so N instances together never spend more than the daily limit.
 *
 * The debits asked for in one event-loop turn go out together at the end of that turn, as one call
 * of the script (EVALSHA) that checks and takes each in order (debits of one cost in a row sent and
 * answered as a count): the request path pays a share of one round trip rather than one each. (A
 * key's debits are sent together per daily limit: if the limit changed within the turn, those of
 * the first limit are taken first.) There is no `debitNow`: only Redis knows what the other
 * instances spent and gave back since this one last looked, so even a refusal seen here could be
 * wrong by now.
 *
 * Redis unreachable: with `failure: 'closed'` a debit throws a `storeUnavailable` GatewayError
 * (HTTP 503); with `'open'` the instance meters in memory, starting from the last spending it saw
 * in Redis, and adds what it spent meanwhile to the Redis counter once Redis answers again.
 */
export class RedisCreditLedger implements CreditLedger {
  /** Where the counters' names start; on a Redis Cluster all in one slot, for the turn's script. */
  private readonly counters: string;
  private readonly failure: RedisFailureMode;
  private readonly health: RedisHealth;
  private readonly clock: () => number;
  /** The last spending seen in Redis per key (open mode starts from it). */
  private readonly lastSeen = new Map<string, { day: string; spent: number }>();
  /** Credits spent while Redis was unreachable (open mode), per key and day, not yet in Redis. */
  private debts = new Map<string, { keyId: string; day: string; credits: number }>();
  private settling: Promise<void> | undefined;
  /** Debits asked for in this event-loop turn, sent together at its end. */
  private queue: Queued[] = [];
  private expiryOf = { day: '', at: 0 };

  constructor(
    private readonly redis: RedisConnection,
    private readonly options: RedisCreditLedgerOptions = {},
  ) {
    this.counters = slotPrefix(redis, `${options.keyPrefix ?? 'portico:'}credits`);
    this.failure = options.failure ?? 'closed';
    this.health = options.health ?? new RedisHealth();
    this.clock = options.clock ?? Date.now;
  }

  private key(keyId: string, day: string) {
    return `${this.counters}${keyId}:${day}`;
  }

  private expiry(day: string) {
    // For every group of every turn: computed once per day.
    if (this.expiryOf.day !== day)
      this.expiryOf = {
        day,
        at: Math.floor(nextUtcMidnight(Date.parse(day)).getTime() / 1000) + KEEP_AFTER_DAY_S,
      };
    return this.expiryOf.at;
  }

  debit(keyId: string, dailyLimit: number, cost: number, now = this.clock()): Promise<DebitResult> {
    // A cost or limit that is not a count of credits would fail the script, and with it the turn's call.
    if (!Number.isSafeInteger(cost) || cost < 0)
      return Promise.reject(new RangeError(`not a credit cost: ${cost}`));
    if (!Number.isSafeInteger(dailyLimit))
      return Promise.reject(new RangeError(`not a daily credit limit: ${dailyLimit}`));
    return new Promise((resolve, reject) => {
      this.queue.push({ keyId, day: utcDay(now), dailyLimit, cost, now, resolve, reject });
      // setImmediate runs after the poll phase: every request read in this turn is in the call.
      if (this.queue.length === 1) setImmediate(this.sendQueue);
    });
  }

  /** Sends the debits of the turn that ends: one script call per MAX_BATCH of them. */
  private readonly sendQueue = () => {
    const queue = this.queue;
    this.queue = [];
    for (let start = 0; start < queue.length; start += MAX_BATCH)
      void this.send(queue.length <= MAX_BATCH ? queue : queue.slice(start, start + MAX_BATCH));
  };

  private async send(batch: Queued[]) {
    // Grouped by counter and limit (a key's debits in a turn share both), then cut into runs of one
    // cost: arguments and replies cost the client and Redis more than the script's work.
    const groups = new Map<string, { counter: string; debits: Queued[] }>();
    let previous: { debit: Queued; group: { counter: string; debits: Queued[] } } | undefined;
    for (const debit of batch) {
      // A busy key's debits mostly follow one another: no counter name built and hashed for those.
      if (
        previous?.debit.keyId === debit.keyId &&
        previous.debit.day === debit.day &&
        previous.debit.dailyLimit === debit.dailyLimit
      ) {
        previous.group.debits.push(debit);
        previous.debit = debit;
        continue;
      }
      const counter = this.key(debit.keyId, debit.day);
      const id = `${counter}\0${debit.dailyLimit}`;
      let group = groups.get(id);
      if (group) group.debits.push(debit);
      else {
        group = { counter, debits: [debit] };
        groups.set(id, group);
      }
      previous = { debit, group };
    }
    const keys: string[] = [];
    const args: number[] = [];
    const runsOf: Queued[][][] = [];
    for (const { counter, debits } of groups.values()) {
      const runs = runsOfEqualCost(debits);
      runsOf.push(runs);
      keys.push(counter);
      args.push(debits[0].dailyLimit, this.expiry(debits[0].day), runs.length);
      for (const run of runs) {
        if (run.length > 1) args.push(-run.length);
        args.push(run[0].cost);
      }
    }
    let reply: number[];
    try {
      if (this.debts.size > 0) await this.settleDebts();
      reply = (await DEBIT_TURN.run(this.redis, keys, args)) as number[];
      this.health.ok();
    } catch (error) {
      this.health.failed(error);
      for (const debit of batch) {
        if (this.failure === 'closed') debit.reject(meteringUnavailable());
        else
          debit.resolve(this.debitLocally(debit.keyId, debit.day, debit.dailyLimit, debit.cost, debit.now));
      }
      return;
    }
    let i = 0;
    for (const runs of runsOf) {
      let spent = reply[i++];
      for (const run of runs) {
        const taken = reply[i++];
        for (let j = 0; j < run.length; j++) {
          const { dailyLimit, cost, now, resolve } = run[j];
          if (j < taken) {
            spent += cost;
            resolve({ ok: true, remaining: dailyLimit - spent });
          } else
            resolve({
              ok: false,
              remaining: Math.max(0, dailyLimit - spent),
              resetsAt: nextUtcMidnight(now),
            });
        }
      }
      const { keyId, day } = runs[0][0];
      this.remember(keyId, day, spent);
    }
  }

  async refund(keyId: string, cost: number, now = this.clock()) {
    const day = utcDay(now);
    const debt = this.debts.get(`${keyId}\0${day}`);
    if (debt) {
      // Charged while Redis was away: give it back where it was taken.
      debt.credits = Math.max(0, debt.credits - cost);
      return;
    }
    try {
      await REFUND.run(this.redis, [this.key(keyId, day)], [cost]);
      this.health.ok();
    } catch (error) {
      this.health.failed(error);
      this.options.onError?.(
        new Error(`a refund of ${cost} credits for ${keyId} was lost: Redis unreachable`),
      );
    }
  }

  async spent(keyId: string, now = this.clock()) {
    const day = utcDay(now);
    const owed = this.debts.get(`${keyId}\0${day}`)?.credits ?? 0;
    try {
      const value = await this.redis.get(this.key(keyId, day));
      this.health.ok();
      return Number(value ?? 0) + owed;
    } catch (error) {
      this.health.failed(error);
      if (this.failure === 'closed') throw meteringUnavailable();
      const seen = this.lastSeen.get(keyId);
      return (seen?.day === day ? seen.spent : 0) + owed;
    }
  }

  /** Credits metered in memory while Redis was away and not yet added to Redis. */
  get unsettledCredits(): number {
    let total = 0;
    for (const debt of this.debts.values()) total += debt.credits;
    return total;
  }

  private debitLocally(
    keyId: string,
    day: string,
    dailyLimit: number,
    cost: number,
    now: number,
  ): DebitResult {
    const seen = this.lastSeen.get(keyId);
    const id = `${keyId}\0${day}`;
    let debt = this.debts.get(id);
    const spent = (seen?.day === day ? seen.spent : 0) + (debt?.credits ?? 0);
    if (spent + cost > dailyLimit) {
      return { ok: false, remaining: Math.max(0, dailyLimit - spent), resetsAt: nextUtcMidnight(now) };
    }
    if (!debt) {
      debt = { keyId, day, credits: 0 };
      this.debts.set(id, debt);
    }
    debt.credits += cost;
    return { ok: true, remaining: dailyLimit - spent - cost };
  }

  private remember(keyId: string, day: string, spent: number) {
    if (this.lastSeen.size > 100_000) this.lastSeen.clear();
    this.lastSeen.set(keyId, { day, spent });
  }

  /** Adds the credits metered locally during an outage to Redis; one settlement at a time. */
  private settleDebts(): Promise<void> {
    if (this.debts.size === 0) return Promise.resolve();
    this.settling ??= this.settle().finally(() => {
      this.settling = undefined;
    });
    return this.settling;
  }

  private async settle() {
    const debts = this.debts;
    this.debts = new Map();
    const left = [...debts.entries()];
    try {
      while (left.length) {
        const [, debt] = left[0];
        if (debt.credits > 0)
          await ADD.run(this.redis, [this.key(debt.keyId, debt.day)], [debt.credits, this.expiry(debt.day)]);
        left.shift();
      }
    } finally {
      for (const [id, debt] of left) {
        const current = this.debts.get(id);
        if (current) current.credits += debt.credits;
        else this.debts.set(id, debt);
      }
    }
  }

  async close() {}
}
