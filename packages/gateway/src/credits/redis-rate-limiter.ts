import {
  meteringUnavailable,
  type RedisConnection,
  type RedisFailureMode,
  RedisHealth,
  RedisScript,
} from '../stores/redis.ts';
import { MemoryRateLimiter, type RateLimiter, type RateResult } from './rate-limiter.ts';

/** Takes credits from a one-second window if they fit under the cap, atomically. */
const TAKE = new RedisScript(`
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
local credits = tonumber(ARGV[1])
if used + credits > tonumber(ARGV[2]) then return {0, used} end
redis.call('INCRBY', KEYS[1], credits)
redis.call('PEXPIRE', KEYS[1], 2000)
return {1, used + credits}`);

export type RedisRateLimiterOptions = {
  /** Prefix of every Redis key. Default `portico:`. */
  keyPrefix?: string;
  failure?: RedisFailureMode;
  health?: RedisHealth;
  /** The clock for calls without `now` (tests freeze it to stay inside one second). */
  clock?: () => number;
};

/**
 * Credits-per-second caps shared by every instance: one counter per key and second
 * (`<prefix>rate:<keyId>:<unix second>`, gone two seconds later), taken from by a Lua script.
 * Windows follow the instances' clocks, so keep them in sync (NTP). Redis unreachable: `closed`
 * throws a `storeUnavailable` GatewayError, `open` applies the cap per instance in memory.
 */
export class RedisRateLimiter implements RateLimiter {
  private readonly prefix: string;
  private readonly failure: RedisFailureMode;
  private readonly health: RedisHealth;
  private readonly clock: () => number;
  private readonly local = new MemoryRateLimiter();

  constructor(
    private readonly redis: RedisConnection,
    options: RedisRateLimiterOptions = {},
  ) {
    this.prefix = options.keyPrefix ?? 'portico:';
    this.failure = options.failure ?? 'closed';
    this.health = options.health ?? new RedisHealth();
    this.clock = options.clock ?? Date.now;
  }

  async take(keyId: string, credits: number, perSecond: number, now = this.clock()): Promise<RateResult> {
    const second = Math.floor(now / 1000);
    let reply: [number, number];
    try {
      reply = (await TAKE.run(
        this.redis,
        [`${this.prefix}rate:${keyId}:${second}`],
        [credits, perSecond],
      )) as [number, number];
      this.health.ok();
    } catch (error) {
      this.health.failed(error);
      if (this.failure === 'closed') throw meteringUnavailable();
      return this.local.take(keyId, credits, perSecond, now);
    }
    if (reply[0] === 1) return { ok: true };
    return { ok: false, current: reply[1], retryAfterMs: (second + 1) * 1000 - now };
  }

  async close() {}
}
