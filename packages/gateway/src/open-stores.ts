import { join } from 'node:path';
import { SchemaTooNewError } from '@portico/store-schema';
import type { Logger } from 'pino';
import type { SharedStoresConfig } from './config/config.ts';
import { redisSecrets } from './config/redis-target.ts';
import type { CreditLedger } from './credits/ledger.ts';
import { MemoryRateLimiter, type RateLimiter } from './credits/rate-limiter.ts';
import { RedisCreditLedger } from './credits/redis-credit-ledger.ts';
import { RedisRateLimiter } from './credits/redis-rate-limiter.ts';
import { SqliteCreditLedger } from './credits/sqlite-credit-ledger.ts';
import type { KeyStore } from './keys/key-store.ts';
import { PostgresKeyStore } from './keys/postgres-key-store.ts';
import { SqliteKeyStore } from './keys/sqlite-key-store.ts';
import { GroupCommit } from './stores/group-commit.ts';
import { createPostgresPool, migratePostgres } from './stores/postgres.ts';
import { createRedisClient, RedisHealth, whenRedisReady } from './stores/redis.ts';
import { openSqlite, type SqliteDatabase } from './stores/sqlite.ts';
import { sanitiseUpstreamMessage, upstreamSecrets } from './upstream/sanitise.ts';
import { PostgresUsageRecorder } from './usage/postgres-usage-recorder.ts';
import { SqliteUsageRecorder } from './usage/sqlite-usage-recorder.ts';
import type { UsageRecorder } from './usage/usage-recorder.ts';

export type GatewayStores = {
  keys: KeyStore;
  ledger: CreditLedger;
  rateLimiter: RateLimiter;
  usage: UsageRecorder;
  close: () => Promise<void>;
};

/**
 * The embedded stores: keys, usage and balances in SQLite under `dataDir` (or in memory). The
 * balances and the usage counts are written in the same transactions (group commit).
 * `reserveAhead` is for the benchmark only (see SqliteCreditLedger).
 */
export function openEmbeddedStores(
  dataDir: string | undefined,
  options: { onError?: (error: Error) => void; reserveAhead?: boolean } = {},
): GatewayStores {
  const db: SqliteDatabase = openSqlite(dataDir ? join(dataDir, 'gateway.db') : ':memory:');
  const commits = new GroupCommit(db);
  const ledger = new SqliteCreditLedger(db, commits, { reserveAhead: options.reserveAhead });
  const usage = new SqliteUsageRecorder(db, 500, commits, options.onError);
  const keys = new SqliteKeyStore(db);
  const rateLimiter = new MemoryRateLimiter();
  return {
    keys,
    usage,
    ledger,
    rateLimiter,
    async close() {
      await usage.close();
      await ledger.close();
      await rateLimiter.close();
      await keys.close();
      db.close();
    },
  };
}

export type SharedStoresOptions = {
  logger?: Logger;
  /** The clock of balances and per-second windows (tests freeze it). Default `Date.now`. */
  clock?: () => number;
  /** How long to wait for Redis at start before serving anyway (under `redisFailure`). Default 2000 ms. */
  redisStartWaitMs?: number;
};

/**
 * The shared stores for several gateway instances: keys and usage in PostgreSQL (migrated here,
 * before anything is served), daily balances and per-second windows in Redis. PostgreSQL must be
 * reachable at start; Redis need not be (the failure mode applies until it is).
 */
export async function openSharedStores(
  config: SharedStoresConfig,
  options: SharedStoresOptions = {},
): Promise<GatewayStores> {
  const logger = options.logger;
  // At most one line per kind of problem every 10 s, so an outage does not flood the log.
  const lastWarned = new Map<string, number>();
  // Driver messages may quote the connection string (and its password): they are cleaned first.
  const secrets = [
    ...upstreamSecrets(config.databaseUrl),
    ...(config.databaseDirectUrl ? upstreamSecrets(config.databaseDirectUrl) : []),
    ...redisSecrets(config.redis),
  ];
  const clean = (error: Error | undefined) =>
    error === undefined ? undefined : sanitiseUpstreamMessage(error.message, secrets);
  const warn = (what: string) => (error: Error) => {
    const now = Date.now();
    if (now - (lastWarned.get(what) ?? -Infinity) < 10_000) return;
    lastWarned.set(what, now);
    logger?.warn({ err: clean(error) }, what);
  };
  const pool = createPostgresPool(config.databaseUrl, warn('postgres connection error'));
  try {
    const applied = await migratePostgres(pool);
    if (applied.length) logger?.info({ migrations: applied }, 'postgres schema migrated');
  } catch (error) {
    await pool.end().catch(() => {});
    // A schema from a later release is said as it is: it names the store and what to do.
    if (error instanceof SchemaTooNewError) throw error;
    throw new Error(`cannot prepare the shared PostgreSQL store: ${clean(error as Error)}`);
  }
  const keys = new PostgresKeyStore(pool, config.databaseDirectUrl ?? config.databaseUrl, {
    onError: warn('postgres key store: lookups bypass the cache until the change listener is back'),
  });
  await keys.whenListening();
  const usage = new PostgresUsageRecorder(pool, {
    onError: warn('usage could not be written; kept for retry'),
  });
  const redis = createRedisClient(config.redis);
  const health = new RedisHealth((up, error) => {
    if (up) logger?.info('redis is reachable again: metering is shared again');
    else
      logger?.warn(
        { err: clean(error), redisFailure: config.redisFailure },
        config.redisFailure === 'closed'
          ? 'redis is unreachable: metered requests are refused (503) until it is back'
          : 'redis is unreachable: metering in this instance only until it is back',
      );
  });
  if (!(await whenRedisReady(redis, options.redisStartWaitMs ?? 2000)))
    health.failed(new Error('redis not ready at start'));
  const common = {
    keyPrefix: config.redisKeyPrefix,
    failure: config.redisFailure,
    health,
    clock: options.clock,
  };
  const ledger = new RedisCreditLedger(redis, { ...common, onError: warn('redis ledger') });
  const rateLimiter = new RedisRateLimiter(redis, common);
  return {
    keys,
    usage,
    ledger,
    rateLimiter,
    async close() {
      await usage.close().catch(warn('usage could not be written at close'));
      await ledger.close();
      await rateLimiter.close();
      await keys.close();
      redis.disconnect();
      await pool.end();
    },
  };
}
