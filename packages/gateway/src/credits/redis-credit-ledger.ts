import type { Redis } from 'ioredis';
import { meteringUnavailable, type RedisFailureMode, RedisHealth, RedisScript } from '../stores/redis.ts';
import { nextUtcMidnight, utcDay } from './day.ts';
import type { CreditLedger, DebitResult } from './ledger.ts';

/** Check-and-debit in one step: no other call can run between the check and the increment. */
const DEBIT = new RedisScript(`
local spent = tonumber(redis.call('GET', KEYS[1]) or '0')
local cost = tonumber(ARGV[1])
if spent + cost > tonumber(ARGV[2]) then return {0, spent} end
spent = redis.call('INCRBY', KEYS[1], cost)
redis.call('EXPIREAT', KEYS[1], ARGV[3])
return {1, spent}`);

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
 * (`<prefix>credits:<keyId>:<day>`, expiring an hour after the day), debited by a Lua script that
 * checks and increments atomically, so N instances together never spend more than the daily limit.
 *
 * Redis unreachable: with `failure: 'closed'` a debit throws a `storeUnavailable` GatewayError
 * (HTTP 503); with `'open'` the instance meters in memory, starting from the last spending it saw
 * in Redis, and adds what it spent meanwhile to the Redis counter once Redis answers again.
 */
export class RedisCreditLedger implements CreditLedger {
  private readonly prefix: string;
  private readonly failure: RedisFailureMode;
  private readonly health: RedisHealth;
  private readonly clock: () => number;
  /** The last spending seen in Redis per key (open mode starts from it). */
  private readonly lastSeen = new Map<string, { day: string; spent: number }>();
  /** Credits spent while Redis was unreachable (open mode), per key and day, not yet in Redis. */
  private debts = new Map<string, { keyId: string; day: string; credits: number }>();
  private settling: Promise<void> | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly options: RedisCreditLedgerOptions = {},
  ) {
    this.prefix = options.keyPrefix ?? 'portico:';
    this.failure = options.failure ?? 'closed';
    this.health = options.health ?? new RedisHealth();
    this.clock = options.clock ?? Date.now;
  }

  private key(keyId: string, day: string) {
    return `${this.prefix}credits:${keyId}:${day}`;
  }

  private expiry(day: string) {
    return Math.floor(nextUtcMidnight(Date.parse(day)).getTime() / 1000) + KEEP_AFTER_DAY_S;
  }

  async debit(keyId: string, dailyLimit: number, cost: number, now = this.clock()): Promise<DebitResult> {
    const day = utcDay(now);
    let reply: [number, number];
    try {
      await this.settleDebts();
      reply = (await DEBIT.run(this.redis, [this.key(keyId, day)], [cost, dailyLimit, this.expiry(day)])) as [
        number,
        number,
      ];
      this.health.ok();
    } catch (error) {
      this.health.failed(error);
      if (this.failure === 'closed') throw meteringUnavailable();
      return this.debitLocally(keyId, day, dailyLimit, cost, now);
    }
    const [ok, spent] = reply;
    this.remember(keyId, day, spent);
    if (ok === 1) return { ok: true, remaining: dailyLimit - spent };
    return { ok: false, remaining: Math.max(0, dailyLimit - spent), resetsAt: nextUtcMidnight(now) };
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
