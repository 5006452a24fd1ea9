import { createHash } from 'node:crypto';
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { isSentinelTarget, type RedisTarget } from '../config/redis-target.ts';
import { StoreUnavailableError } from '../rpc/errors.ts';

/**
 * What the gateway does while Redis cannot be reached: `closed` (default) answers metered requests
 * with a JSON-RPC error (HTTP 503); `open` serves them and meters them in this instance's memory.
 */
export type RedisFailureMode = 'closed' | 'open';

/** A connection to one Redis (a URL or a Sentinel-managed master) or to a Redis Cluster. */
export type RedisConnection = Redis | Cluster;

export type RedisClientOptions = {
  /** How long one Redis call may take before it counts as a failure. Default 1000 ms. */
  commandTimeoutMs?: number;
  /** Longest wait between reconnection attempts. Default 1000 ms. */
  maxReconnectDelayMs?: number;
};

/**
 * A Redis connection for metering. Calls fail at once while the connection is down (no offline
 * queue, no retries of a call), so a request never waits for Redis to come back; the client keeps
 * reconnecting in the background for as long as it lives, so service resumes without a restart.
 *
 * With Sentinel, every reconnection asks the sentinels for the current master, and a node that
 * answers READONLY (a former master, now a replica) is left for the new master. (ioredis's
 * `failoverDetector` is not used: its disconnect can land during a reconnection, which then ends
 * the client for good.) A Cluster client learns the slots from the nodes it is given and
 * follows MOVED/ASK; a call to a node that is down is retried for a moment while the cluster fails
 * over (`retryDelayOnFailover`), then fails like any other.
 */
export function createRedisClient(url: string, options?: RedisClientOptions): Redis;
export function createRedisClient(target: RedisTarget, options?: RedisClientOptions): RedisConnection;
export function createRedisClient(target: RedisTarget, options: RedisClientOptions = {}): RedisConnection {
  const maxDelay = options.maxReconnectDelayMs ?? 1000;
  const common: RedisOptions = {
    maxRetriesPerRequest: 0,
    commandTimeout: options.commandTimeoutMs ?? 1000,
    connectTimeout: 2000,
  };
  let client: RedisConnection;
  if (typeof target === 'string') {
    client = new Redis(target, {
      ...common,
      enableOfflineQueue: false,
      retryStrategy: (times) => Math.min(times * 100, maxDelay),
    });
  } else {
    const { username, password } = target;
    const tls = target.tls ? {} : undefined;
    if (isSentinelTarget(target)) {
      client = new Redis({
        ...common,
        sentinels: target.sentinels,
        name: target.name,
        username,
        password,
        sentinelUsername: target.sentinelUsername,
        sentinelPassword: target.sentinelPassword,
        db: target.db ?? 0,
        tls,
        enableTLSForSentinelMode: target.tls ?? false,
        enableOfflineQueue: false,
        retryStrategy: (times) => Math.min(times * 100, maxDelay),
        sentinelRetryStrategy: (times) => Math.min(times * 100, maxDelay),
        reconnectOnError: (error) => error.message.startsWith('READONLY'),
      });
    } else {
      client = new Cluster(target.cluster, {
        enableOfflineQueue: false,
        clusterRetryStrategy: (times) => Math.min(times * 100, maxDelay),
        retryDelayOnFailover: 100,
        redisOptions: { ...common, username, password, tls },
      });
    }
  }
  // Connection errors are expected while Redis is away; they surface through failed calls.
  client.on('error', () => {});
  return client;
}

/**
 * The start of key names that must share one hash slot on a Redis Cluster (every key one Lua
 * script touches): `{portico:credits}:` on a cluster, `portico:credits:` on one Redis, whose key
 * names stay as they were.
 */
export function slotPrefix(client: RedisConnection, prefix: string): string {
  return client.isCluster ? `{${prefix}}:` : `${prefix}:`;
}

/** The connections a SCAN must visit to see every key: each master of a cluster, or the one Redis. */
export function scanTargets(client: RedisConnection): Redis[] {
  return client instanceof Cluster ? client.nodes('master') : [client];
}

/** Resolves when the client is ready or after `timeoutMs`, whichever comes first (never rejects). */
export function whenRedisReady(client: RedisConnection, timeoutMs: number): Promise<boolean> {
  if (client.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ready: boolean) => {
      clearTimeout(timer);
      client.off('ready', onReady);
      resolve(ready);
    };
    const onReady = () => done(true);
    const timer = setTimeout(() => done(false), timeoutMs);
    client.on('ready', onReady);
  });
}

/** A Lua script run by its SHA-1, sent in full only when Redis does not know it yet. */
export class RedisScript {
  private readonly sha: string;
  constructor(private readonly source: string) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  async run(client: RedisConnection, keys: string[], args: (string | number)[]): Promise<unknown> {
    try {
      return await client.evalsha(this.sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (!String((error as Error).message).startsWith('NOSCRIPT')) throw error;
      return client.eval(this.source, keys.length, ...keys, ...args);
    }
  }
}

/** Tells once when Redis becomes unreachable and once when it is back (no log flood during an outage). */
export class RedisHealth {
  private up = true;
  constructor(private readonly onChange: (up: boolean, error?: Error) => void = () => {}) {}

  ok() {
    if (this.up) return;
    this.up = true;
    this.onChange(true);
  }

  failed(error: unknown) {
    if (!this.up) return;
    this.up = false;
    this.onChange(false, error as Error);
  }

  get reachable() {
    return this.up;
  }
}

export const meteringUnavailable = () =>
  new StoreUnavailableError(
    'redis',
    'metering is unavailable: the credit store cannot be reached; the request was not served, retry shortly',
  );
