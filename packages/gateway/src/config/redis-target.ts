import { field, fillFromEnv, isRecord } from './schema.ts';

/** One Redis node: a host and a port. */
export type RedisNode = { host: string; port: number };

/** Redis behind Sentinel: the sentinels are asked which node is the master `name`. */
export type RedisSentinelTarget = {
  sentinels: RedisNode[];
  /** The master's name in the sentinels' configuration (`sentinel monitor <name> …`). */
  name: string;
  username?: string;
  password?: string;
  /** When the sentinels themselves require a password (`requirepass` on the sentinels). */
  sentinelUsername?: string;
  sentinelPassword?: string;
  /** The database number. Default 0. */
  db?: number;
  /** TLS to the Redis nodes (and to the sentinels). */
  tls?: boolean;
};

/** A Redis Cluster: any of its nodes; the client learns the others and the slots from them. */
export type RedisClusterTarget = {
  cluster: RedisNode[];
  username?: string;
  password?: string;
  tls?: boolean;
};

/**
 * Where a Redis is: a `redis://` or `rediss://` URL (one server), a Sentinel-managed master, or a
 * Redis Cluster. The object forms take ioredis's own names (`sentinels` and `name`, the cluster's
 * startup nodes), so a setting that works with ioredis works here.
 */
export type RedisTarget = string | RedisSentinelTarget | RedisClusterTarget;

const SENTINEL_FIELDS = [
  'sentinels',
  'name',
  'username',
  'password',
  'sentinelUsername',
  'sentinelPassword',
  'db',
  'tls',
];
const CLUSTER_FIELDS = ['cluster', 'username', 'password', 'tls'];
const SECRET_FIELDS = ['username', 'password', 'sentinelUsername', 'sentinelPassword'] as const;

export const isSentinelTarget = (target: RedisTarget): target is RedisSentinelTarget =>
  typeof target === 'object' && 'sentinels' in target;
export const isClusterTarget = (target: RedisTarget): target is RedisClusterTarget =>
  typeof target === 'object' && 'cluster' in target;

/** A node as `host:port` (`[::1]:port` for IPv6) or `{ host, port }`; the port defaults to `defaultPort`. */
function parseNode(value: unknown, defaultPort: number): RedisNode | undefined {
  if (isRecord(value)) {
    const { host, port = defaultPort, ...rest } = value;
    if (Object.keys(rest).length || typeof host !== 'string' || !host) return undefined;
    return Number.isInteger(port) && (port as number) > 0 && (port as number) < 65536
      ? { host, port: port as number }
      : undefined;
  }
  if (typeof value !== 'string') return undefined;
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]\s/]+))(?::(\d{1,5}))?$/.exec(value);
  if (!match) return undefined;
  const port = match[3] === undefined ? defaultPort : Number(match[3]);
  if (port < 1 || port > 65535) return undefined;
  return { host: match[1] ?? match[2], port };
}

/** A checked target, or the message naming what is wrong (`at` is the field's path). */
function readTarget(value: unknown, at: string, env: NodeJS.ProcessEnv): RedisTarget | string {
  if (value === undefined || value === null) return `${at} is required for shared stores`;
  if (typeof value === 'string') {
    const url = fillFromEnv(value, env);
    if (typeof url !== 'string')
      return `${at} uses \${${url.missing}} but that environment variable is not set`;
    let protocol: string;
    try {
      protocol = new URL(url).protocol;
    } catch {
      return `${at} must be a URL (redis:// or rediss://…) or an object with sentinels or cluster`;
    }
    return protocol === 'redis:' || protocol === 'rediss:'
      ? url
      : `${at} must start with redis: or rediss://`;
  }
  if (!isRecord(value))
    return `${at} must be a redis:// URL or an object with sentinels (and name) or cluster`;
  const sentinel = 'sentinels' in value;
  if (sentinel === 'cluster' in value)
    return `${at} must have either sentinels (Redis with Sentinel) or cluster (Redis Cluster), not ${sentinel ? 'both' : 'neither'}`;
  const allowed = sentinel ? SENTINEL_FIELDS : CLUSTER_FIELDS;
  const unknown = Object.keys(value).filter((key) => !allowed.includes(key));
  if (unknown.length)
    return `${at} has unknown field(s): ${unknown.join(', ')} (allowed with ${sentinel ? 'sentinels' : 'cluster'}: ${allowed.join(', ')})`;
  const listName = sentinel ? 'sentinels' : 'cluster';
  const list = value[listName];
  const example = sentinel ? 'sentinel-1:26379' : 'redis-1:6379';
  if (!Array.isArray(list) || list.length === 0)
    return `${at}.${listName} must be a non-empty list of nodes such as ${example} or { host, port }`;
  const nodes: RedisNode[] = [];
  for (const [i, entry] of list.entries()) {
    const node = parseNode(entry, sentinel ? 26379 : 6379);
    if (!node)
      return `${at}.${listName}[${i}] must be host:port (such as ${example}) or { host, port }, got ${JSON.stringify(entry)}`;
    nodes.push(node);
  }
  const target: Record<string, unknown> = { [listName]: nodes };
  if (sentinel) {
    if (typeof value.name !== 'string' || !value.name)
      return `${at}.name must be the master's name the sentinels monitor (sentinel monitor <name> …), such as mymaster`;
    target.name = value.name;
    if (value.db !== undefined) {
      if (!Number.isInteger(value.db) || (value.db as number) < 0 || (value.db as number) > 15)
        return `${at}.db must be an integer from 0 to 15`;
      target.db = value.db;
    }
  }
  for (const name of SECRET_FIELDS) {
    const secret = value[name];
    if (secret === undefined || secret === null) continue;
    if (typeof secret !== 'string') return `${at}.${name} must be a string`;
    const filled = fillFromEnv(secret, env);
    if (typeof filled !== 'string')
      return `${at}.${name} uses \${${filled.missing}} but that environment variable is not set`;
    target[name] = filled;
  }
  if (value.tls !== undefined) {
    if (typeof value.tls !== 'boolean') return `${at}.tls must be true or false`;
    target.tls = value.tls;
  }
  return target as RedisTarget;
}

/** Thrown away by the coercer and reported by the validator: a target that failed its check. */
class InvalidTarget {
  constructor(readonly message: string) {}
}

/** The `stores.redis` field (and `stores.cacheRedis`): a URL, a Sentinel or a Cluster, `${VAR}` filled. */
export const redisTarget = (env: NodeJS.ProcessEnv) =>
  field<RedisTarget>(
    (value, at) => (value instanceof InvalidTarget ? value.message.replace('\0', at) : true),
    (value) => {
      const target = readTarget(value, '\0', env);
      return typeof target === 'string' && target.startsWith('\0') ? new InvalidTarget(target) : target;
    },
  );

/** Passwords and user names of a target, cleaned out of driver messages before they are logged. */
export function redisSecrets(target: RedisTarget): string[] {
  if (typeof target === 'string') {
    const url = new URL(target);
    return [url.username, url.password].filter((part) => part.length >= 6);
  }
  return SECRET_FIELDS.map((name) => (target as Record<string, unknown>)[name]).filter(
    (secret): secret is string => typeof secret === 'string' && secret.length >= 6,
  );
}

/** How a target reads in a log line or a message: never with its password. */
export function describeRedisTarget(target: RedisTarget): string {
  if (typeof target === 'string') {
    const url = new URL(target);
    return `${url.protocol}//${url.host}`;
  }
  const nodes = isSentinelTarget(target) ? target.sentinels : target.cluster;
  const list = nodes.map((node) => `${node.host}:${node.port}`).join(', ');
  return isSentinelTarget(target) ? `sentinel master ${target.name} (${list})` : `cluster (${list})`;
}
