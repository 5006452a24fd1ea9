import { createHash } from 'node:crypto';
import { JsonResult } from '../rpc/json-result.ts';
import { type RedisConnection, RedisHealth, RedisScript, scanTargets, slotPrefix } from '../stores/redis.ts';
import type { CachedReply, ResponseCache } from './response-cache.ts';

/**
 * Writes an unfinalized entry and lists it in the network's index in one step, so a reorg eviction
 * never misses an entry that is already readable. The entry is written twice: for `get` with the
 * unfinalized TTL (ARGV[2], none when 0) and, for `getStale`, a copy that lives as long as final
 * data (ARGV[4]; none when 0) and answers once its block is finalized. Members are scored by
 * their expiry on the Redis clock (instances' clocks may differ); expired members are pruned
 * here, and the index itself lives as long as its longest-lived member.
 */
const SET_UNFINALIZED = new RedisScript(`
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local ttl = tonumber(ARGV[2])
local staleTtl = tonumber(ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if ttl > 0 then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ttl)
  redis.call('ZADD', KEYS[2], now + ttl, ARGV[3])
end
if staleTtl > 0 then
  redis.call('SET', KEYS[3], ARGV[1], 'PX', staleTtl)
  redis.call('ZADD', KEYS[2], now + staleTtl, ARGV[5])
end
local longest = math.max(ttl, staleTtl)
if redis.call('PTTL', KEYS[2]) < longest then redis.call('PEXPIRE', KEYS[2], longest) end
return 1`);

/** Deletes every unfinalized entry of the network, whichever instance wrote it, and the index. */
const EVICT_UNFINALIZED = new RedisScript(`
local members = redis.call('ZRANGE', KEYS[1], 0, -1)
for _, member in ipairs(members) do redis.call('UNLINK', ARGV[1] .. member) end
redis.call('UNLINK', KEYS[1])
return #members`);

const EVICTION_RETRY_MS = 500;
/**
 * While Redis is failing, one read or write per this interval finds out whether it is back; the
 * others skip Redis, so a hanging Redis delays one request a second, not all of them, and writes
 * do not pile up in the client's queue.
 */
const PROBE_EVERY_MS = 1000;

export type RedisResponseCacheOptions = {
  /** The network whose answers are cached (part of every key). */
  network: string;
  /** Prefix of every Redis key. Default `portico:`. */
  keyPrefix?: string;
  /** Lifetime of data above the finalized block; 0 caches none. */
  unfinalizedTtlMs: number;
  /** Lifetime of final data. */
  finalTtlMs: number;
  /** Told when Redis stops and starts answering (one line per change, not per request). */
  health?: RedisHealth;
};

/**
 * The response cache shared by every gateway instance on one Redis. An entry lives at
 * `<prefix>cache:<network>:<SHA-256 of the request, base64url>` (on a Redis Cluster
 * `{<prefix>cache:<network>}:<…>`: a network's entries share one slot, since a reorg's eviction
 * touches all its unfinalized ones in one script); final entries expire after
 * `finalTtlMs`, unfinalized ones after `unfinalizedTtlMs` and are listed in the sorted set
 * `<prefix>cache:<network>:unfinalized` that a reorg eviction empties atomically. An unfinalized
 * entry whose block is known also has a copy at `…:stale:<hash>`, listed in the same index and
 * kept for `finalTtlMs`, that only `getStale` reads (stale-if-error once its block is final).
 *
 * Every instance detects reorgs with its own head tracker and evicts (a repeated eviction is
 * harmless). What remains: an instance that has not seen the reorg yet may write an entry fetched
 * before it, after another instance evicted; that entry is unfinalized, so it is gone after
 * `unfinalizedTtlMs` at the latest, or earlier when that instance sees the reorg and evicts.
 *
 * Redis unreachable or slow (past the client's command timeout): a read is a miss, a write is
 * dropped, and until Redis answers again only one call a second tries it; a failed eviction is
 * retried until Redis answers. No method throws.
 */
export class RedisResponseCache implements ResponseCache {
  private readonly namespace: string;
  private readonly index: string;
  private readonly health: RedisHealth;
  /** Highest block of a final entry this instance wrote (a lowered finalized block may be below it). */
  private topFinalBlock = -1;
  /** The lowest finalized block of evictions that failed and wait for a retry. */
  private owedEviction: number | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private lastFailure = Number.NEGATIVE_INFINITY;
  storeErrors = 0;

  constructor(
    private readonly redis: RedisConnection,
    private readonly options: RedisResponseCacheOptions,
  ) {
    this.namespace = slotPrefix(redis, `${options.keyPrefix ?? 'portico:'}cache:${options.network}`);
    this.index = `${this.namespace}unfinalized`;
    this.health = options.health ?? new RedisHealth();
  }

  /** The Redis key of a request key (hashed: an eth_call can carry kilobytes of data). */
  keyOf(requestKey: string): string {
    return this.namespace + hash(requestKey);
  }

  async get(key: string): Promise<CachedReply | undefined> {
    if (this.skipping()) return undefined;
    let text: string | null;
    try {
      text = await this.redis.get(this.keyOf(key));
    } catch (error) {
      this.failed(error);
      return undefined;
    }
    this.health.ok();
    return text === null ? undefined : parse(text);
  }

  /**
   * Reads only the copy kept for stale-if-error: final entries are read by `get` as long as they
   * live, and an unfinalized one counts once its block is at or below `finalized`.
   */
  async getStale(key: string, finalized: number): Promise<CachedReply | undefined> {
    if (this.skipping()) return undefined;
    let text: string | null;
    try {
      text = await this.redis.get(this.staleKeyOf(key));
    } catch (error) {
      this.failed(error);
      return undefined;
    }
    this.health.ok();
    const entry = text === null ? undefined : parse(text);
    return entry?.block !== undefined && entry.block <= finalized ? entry : undefined;
  }

  /** The Redis key of the copy of an unfinalized entry kept for stale-if-error. */
  staleKeyOf(requestKey: string): string {
    return `${this.namespace}stale:${hash(requestKey)}`;
  }

  /** Resolves once written or dropped; never rejects. */
  async set(key: string, value: CachedReply, final: boolean): Promise<void> {
    const ttl = final ? this.options.finalTtlMs : this.options.unfinalizedTtlMs;
    // A copy for stale-if-error needs the block, to know when it has become final.
    const staleTtl = !final && value.block !== undefined ? this.options.finalTtlMs : 0;
    if ((ttl <= 0 && staleTtl <= 0) || this.skipping()) return;
    if (final && value.block !== undefined) this.topFinalBlock = Math.max(this.topFinalBlock, value.block);
    try {
      // The shape every instance sharing the store (an older one too) reads.
      const text = entryText(value);
      const digest = hash(key);
      if (final) await this.redis.set(this.namespace + digest, text, 'PX', ttl);
      else
        await SET_UNFINALIZED.run(
          this.redis,
          [this.namespace + digest, this.index, `${this.namespace}stale:${digest}`],
          [text, Math.max(0, ttl), digest, staleTtl, `stale:${digest}`],
        );
      this.health.ok();
    } catch (error) {
      this.failed(error);
    }
  }

  /**
   * Drops every unfinalized entry of the network. Final entries stay, unless this instance wrote
   * some above `finalized` (a dev chain reverted below its finalized block): then the network's
   * whole cache goes. Resolves once done or scheduled for a retry; never rejects.
   */
  async evictAfterReorg(finalized: number): Promise<void> {
    const above = this.topFinalBlock > finalized;
    if (above) this.topFinalBlock = -1;
    try {
      if (above) await this.dropAll();
      else await EVICT_UNFINALIZED.run(this.redis, [this.index], [this.namespace]);
      this.health.ok();
    } catch (error) {
      this.failed(error);
      if (above) this.topFinalBlock = Number.POSITIVE_INFINITY;
      this.owedEviction = Math.min(this.owedEviction ?? finalized, finalized);
      if (!this.closed) this.retryTimer ??= setTimeout(() => this.retryEviction(), EVICTION_RETRY_MS).unref();
    }
  }

  async close() {
    this.closed = true;
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
  }

  private async retryEviction() {
    this.retryTimer = undefined;
    const finalized = this.owedEviction;
    this.owedEviction = undefined;
    if (finalized !== undefined) await this.evictAfterReorg(finalized);
  }

  /** Every key of the network's cache (rare: only when final data may be stale). */
  private async dropAll() {
    for (const node of scanTargets(this.redis)) {
      let cursor = '0';
      do {
        const [next, keys] = await node.scan(cursor, 'MATCH', `${this.namespace}*`, 'COUNT', 1000);
        cursor = next;
        if (keys.length) await node.unlink(...keys);
      } while (cursor !== '0');
    }
  }

  /** True while Redis is failing, except for one probe call per PROBE_EVERY_MS. */
  private skipping(): boolean {
    if (this.health.reachable) return false;
    const now = Date.now();
    if (now - this.lastFailure < PROBE_EVERY_MS) return true;
    this.lastFailure = now;
    return false;
  }

  private failed(error: unknown) {
    this.lastFailure = Date.now();
    this.storeErrors += 1;
    this.health.failed(error);
  }
}

/**
 * An entry as `{"reply":{"ok":true,"result":…},"block":N}`, the shape every instance reads: the
 * result is written as the node's text, not read and serialised again.
 */
function entryText({ reply, block }: CachedReply): string {
  if (!reply.ok) return JSON.stringify({ reply, block });
  return `{"reply":{"ok":true,"result":${reply.result.text}}${block === undefined ? '' : `,"block":${block}`}}`;
}

function parse(text: string): CachedReply | undefined {
  try {
    // Cached answers are EVM answers, read from the node with JSON.parse: the round trip is exact.
    const entry = JSON.parse(text) as { reply: { ok: true; result: unknown }; block?: number };
    return { reply: { ok: true, result: JsonResult.ofValue(entry.reply.result) }, block: entry.block };
  } catch {
    return undefined;
  }
}

function hash(requestKey: string): string {
  return createHash('sha256').update(requestKey).digest('base64url');
}
