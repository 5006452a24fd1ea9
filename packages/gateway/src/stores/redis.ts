import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import { StoreUnavailableError } from '../rpc/errors.ts';

/**
 * What the gateway does while Redis cannot be reached: `closed` (default) answers metered requests
 * with a JSON-RPC error (HTTP 503); `open` serves them and meters them in this instance's memory.
 */
export type RedisFailureMode = 'closed' | 'open';

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
 */
export function createRedisClient(url: string, options: RedisClientOptions = {}): Redis {
  const client = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: options.commandTimeoutMs ?? 1000,
    connectTimeout: 2000,
    retryStrategy: (times) => Math.min(times * 100, options.maxReconnectDelayMs ?? 1000),
    lazyConnect: false,
  });
  // Connection errors are expected while Redis is away; they surface through failed calls.
  client.on('error', () => {});
  return client;
}

/** Resolves when the client is ready or after `timeoutMs`, whichever comes first (never rejects). */
export function whenRedisReady(client: Redis, timeoutMs: number): Promise<boolean> {
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

  async run(client: Redis, keys: string[], args: (string | number)[]): Promise<unknown> {
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
