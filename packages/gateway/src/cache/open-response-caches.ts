import type { Logger } from 'pino';
import type { GatewayConfig, NetworkConfig } from '../config/config.ts';
import { createRedisClient, type RedisConnection, RedisHealth, whenRedisReady } from '../stores/redis.ts';
import { MemoryResponseCache } from './memory-response-cache.ts';
import { RedisResponseCache } from './redis-response-cache.ts';
import type { ResponseCache } from './response-cache.ts';

/** How long one cache read or write may take before it counts as a miss or is dropped. */
const REDIS_COMMAND_TIMEOUT_MS = 200;
/** At most one "unreachable" line in this time while Redis comes and goes. */
const WARN_EVERY_MS = 10_000;

export type ResponseCaches = {
  /** The cache of one network; undefined when its caching is off. */
  cacheFor(network: NetworkConfig): ResponseCache | undefined;
  /** Closes the Redis connection of the shared caches, if one was opened. */
  close(): Promise<void>;
};

/**
 * The networks' response caches: in memory, or in Redis (`cache.store: redis`) over one connection
 * of their own, so a slow cache read never waits behind metering calls and has its own short
 * timeout. Redis need not be reachable at start: until it is, every read is a miss.
 */
export async function openResponseCaches(
  config: GatewayConfig,
  logger: Logger,
  options: { redisStartWaitMs?: number } = {},
): Promise<ResponseCaches> {
  const stores = config.stores?.kind === 'shared' ? config.stores : undefined;
  const wantsRedis = config.networks.some((n) => n.cache.enabled && n.cache.store === 'redis');
  let redis: RedisConnection | undefined;
  let health: RedisHealth | undefined;
  if (stores && wantsRedis) {
    redis = createRedisClient(stores.cacheRedis ?? stores.redis, {
      commandTimeoutMs: REDIS_COMMAND_TIMEOUT_MS,
    });
    let lastWarned = Number.NEGATIVE_INFINITY;
    let warnedDown = false;
    health = new RedisHealth((up, error) => {
      if (up) {
        if (warnedDown) logger.info('redis is reachable again: the response cache is shared again');
        warnedDown = false;
        return;
      }
      if (Date.now() - lastWarned < WARN_EVERY_MS) return;
      lastWarned = Date.now();
      warnedDown = true;
      logger.warn(
        { err: error?.message },
        'redis is unreachable: the response cache answers misses and stores nothing until it is back',
      );
    });
    if (!(await whenRedisReady(redis, options.redisStartWaitMs ?? 2000)))
      health.failed(new Error('redis not ready at start'));
  }
  const caches: ResponseCache[] = [];
  return {
    cacheFor(network) {
      if (!network.cache.enabled) return undefined;
      if (network.cache.store === 'redis' && !(redis && stores))
        throw new Error(`network ${network.name}: cache.store redis needs shared stores`);
      const cache =
        redis && stores && network.cache.store === 'redis'
          ? new RedisResponseCache(redis, {
              network: network.name,
              keyPrefix: stores.redisKeyPrefix,
              unfinalizedTtlMs: network.cache.unfinalizedTtlMs,
              finalTtlMs: network.cache.finalTtlMs,
              health,
            })
          : new MemoryResponseCache(network.cache.maxEntries, network.cache.unfinalizedTtlMs);
      caches.push(cache);
      return cache;
    },
    async close() {
      await Promise.all(caches.map((cache) => cache.close()));
      // QUIT lets writes still in flight finish (they would count as failures otherwise).
      if (redis?.status === 'ready') await redis.quit().catch(() => {});
      redis?.disconnect();
    },
  };
}
