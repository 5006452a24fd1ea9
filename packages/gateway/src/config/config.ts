import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import {
  DEFAULT_SUBSCRIPTION_COSTS,
  type NetworkKind,
  SUBSCRIPTION_TYPES,
  type SubscriptionCosts,
} from '../types.ts';

export type NetworkConfig = {
  /** Short name, also the default base path (`/<name>`). */
  name: string;
  kind: NetworkKind;
  /** CAIP-2 chain id, e.g. `eip155:1`. */
  chainId: string;
  /** Path prefix of the base address. Default `/<name>`; `""` with `host` serves the whole host. */
  basePath: string;
  /** Optional host name that selects this network (e.g. `mainnet.example.com`). */
  host?: string;
  /** Upstream node URLs; secrets may come from the environment as `${VAR}`. */
  upstreams: string[];
  /** Credits for methods without an entry in the seed's table. Default 80. */
  passthroughCost: number;
  /** Timeout of one upstream call. Default 30000 ms. */
  timeoutMs: number;
  /** Largest upstream answer accepted, in bytes. Default 16 MiB. */
  maxResponseBytes: number;
  /** Most blocks one eth_getLogs may cover. Default 10000. */
  maxLogsBlockRange: number;
  /** How often each upstream is asked for its head (also the health check). Default 2000 ms. */
  headPollMs: number;
  /** Finality-aware response cache. */
  cache: CacheConfig;
  /** Circuit breaker: failures in a row that set an upstream aside, and for how long. */
  breaker: { failures: number; cooldownMs: number };
  /** WebSocket nodes for eth_subscribe (`ws://`/`wss://`); absent: derived from `upstreams`. */
  wsUpstreams?: string[];
  /**
   * `agreed` (default with several upstreams): `latest`/`safe`/`finalized` are sent as the numbers
   * every upstream in service has reached; `upstream` (default with one): sent as they are.
   */
  blockTags: 'agreed' | 'upstream';
  /** Hedged requests: an idempotent call unanswered after `afterMs` is also sent to the next upstream. */
  hedge?: { afterMs: number };
  /** Credits of each eth_subscription notification by subscription type. Default newHeads 50, logs 300. */
  subscriptionCosts: SubscriptionCosts;
};

export type CacheConfig = {
  enabled: boolean;
  /** `memory` (this instance) or `redis` (shared by instances). Default `redis` with shared stores. */
  store: 'memory' | 'redis';
  /** Most entries kept (memory store only). Default 10000. */
  maxEntries: number;
  /** How long data above the finalized block is kept. Default 2000 ms. */
  unfinalizedTtlMs: number;
  /** How long final data is kept (redis store only; memory keeps it until evicted by size). Default 1 day. */
  finalTtlMs: number;
};

/** Where keys, usage and balances live: `embedded` (one instance) or `shared` (several instances). */
export type StoresConfig = { kind: 'embedded' } | SharedStoresConfig;

export type SharedStoresConfig = {
  kind: 'shared';
  /** PostgreSQL for keys and usage (`postgres://…`); `${VAR}` is taken from the environment. */
  databaseUrl: string;
  /** Redis for daily balances and per-second windows (`redis://…` or `rediss://…`). */
  redisUrl: string;
  /** While Redis is unreachable: `closed` (default) refuses metered requests, `open` meters locally. */
  redisFailure: 'closed' | 'open';
  /** Prefix of the gateway's Redis keys. Default `portico:`. */
  redisKeyPrefix: string;
  /** A Redis of its own for the response cache (`cache.store: redis`). Default: `redisUrl`. */
  cacheRedisUrl?: string;
};

export type GatewayConfig = {
  host: string;
  port: number;
  /** The address clients use, when it differs from http://host:port (behind a proxy). */
  publicUrl?: string;
  /** Folder for the SQLite database (keys, usage). Omitted: an in-memory database. */
  dataDir?: string;
  /** Token for the admin API; omitted disables it. */
  adminToken?: string;
  /**
   * Other web origins allowed to call the admin API from a browser (CORS), e.g. an operations
   * console on its own host. Default none: only the dashboard, served by the gateway itself
   * (same origin, no CORS needed).
   */
  admin?: { corsOrigins: string[] };
  maxBodyBytes: number;
  maxBatchSize: number;
  /** Deepest nesting of arrays and objects in a request body. Default 64. */
  maxJsonDepth: number;
  logLevel: string;
  networks: NetworkConfig[];
  /** Default (absent) `{ kind: 'embedded' }`. */
  stores?: StoresConfig;
  /** `GET /metrics` (Prometheus). Default enabled, without a token. */
  metrics?: { enabled: boolean; requireAdminToken: boolean };
  /** PEM files of a certificate and its key: the gateway serves HTTPS (and wss://). */
  tls?: { certFile: string; keyFile: string };
  /** On close, how long in-flight requests may take to finish. Default 10000 ms. */
  shutdownTimeoutMs?: number;
};

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

const CAIP2 = /^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/;
const NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;

const GATEWAY_KEYS = [
  'host',
  'port',
  'publicUrl',
  'dataDir',
  'adminToken',
  'admin',
  'maxBodyBytes',
  'maxBatchSize',
  'maxJsonDepth',
  'logLevel',
  'networks',
  'stores',
  'metrics',
  'tls',
  'shutdownTimeoutMs',
];
const STORES_KEYS = ['kind', 'databaseUrl', 'redisUrl', 'redisFailure', 'redisKeyPrefix', 'cacheRedisUrl'];
const CACHE_KEYS = ['enabled', 'store', 'maxEntries', 'unfinalizedTtlMs', 'finalTtlMs'];
const NETWORK_KEYS = [
  'name',
  'kind',
  'chainId',
  'basePath',
  'host',
  'upstreams',
  'passthroughCost',
  'timeoutMs',
  'maxResponseBytes',
  'maxLogsBlockRange',
  'headPollMs',
  'cache',
  'breaker',
  'wsUpstreams',
  'blockTags',
  'hedge',
  'subscriptionCosts',
];

/** Reads a YAML or JSON config file. */
export function loadConfigFile(path: string, env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  let raw: unknown;
  try {
    raw = parseYaml(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ConfigError(`cannot read config ${path}: ${(error as Error).message}`);
  }
  return parseConfig(raw, env);
}

/** Validates a config object, filling defaults; every problem names its field. */
export function parseConfig(raw: unknown, env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const root = object(raw, 'config');
  unknownKeys(root, GATEWAY_KEYS, 'config');
  const networks = root.networks;
  if (!Array.isArray(networks) || networks.length === 0)
    throw new ConfigError('config.networks must be a non-empty list');
  const stores = parseStores(root.stores, env);
  const parsed = networks.map((n, i) => parseNetwork(n, `networks[${i}]`, env, stores.kind));
  const names = new Set<string>();
  const bases = new Set<string>();
  for (const network of parsed) {
    if (names.has(network.name)) throw new ConfigError(`network name ${network.name} is used twice`);
    names.add(network.name);
    const base = `${network.host ?? ''}${network.basePath}`;
    if (bases.has(base)) throw new ConfigError(`two networks share the base address ${base || '/'}`);
    bases.add(base);
  }
  const adminToken = optionalString(substitute(root.adminToken, env, 'adminToken'), 'adminToken');
  return {
    host: optionalString(root.host, 'host') ?? '127.0.0.1',
    port: integer(root.port ?? 8545, 'port', 0, 65535),
    publicUrl: optionalString(root.publicUrl, 'publicUrl'),
    dataDir: optionalString(root.dataDir, 'dataDir'),
    adminToken,
    admin: parseAdmin(root.admin, adminToken !== undefined),
    maxBodyBytes: integer(root.maxBodyBytes ?? 1024 * 1024, 'maxBodyBytes', 1024, 100 * 1024 * 1024),
    maxBatchSize: integer(root.maxBatchSize ?? 100, 'maxBatchSize', 1, 1000),
    maxJsonDepth: integer(root.maxJsonDepth ?? 64, 'maxJsonDepth', 8, 512),
    logLevel: optionalString(root.logLevel, 'logLevel') ?? 'info',
    networks: parsed,
    stores,
    metrics: parseMetrics(root.metrics, adminToken !== undefined),
    tls: parseTls(root.tls),
    shutdownTimeoutMs: integer(root.shutdownTimeoutMs ?? 10_000, 'shutdownTimeoutMs', 0, 600_000),
  };
}

function parseAdmin(raw: unknown, hasAdminToken: boolean): GatewayConfig['admin'] {
  if (raw === undefined || raw === null) return { corsOrigins: [] };
  const admin = object(raw, 'admin');
  unknownKeys(admin, ['corsOrigins'], 'admin');
  const origins = admin.corsOrigins ?? [];
  if (!Array.isArray(origins))
    throw new ConfigError('admin.corsOrigins must be a list of origins such as https://ops.example.com');
  if (origins.length && !hasAdminToken)
    throw new ConfigError('admin.corsOrigins needs adminToken to be set (without it the admin API is off)');
  return { corsOrigins: origins.map((origin, i) => webOrigin(origin, `admin.corsOrigins[${i}]`)) };
}

/** An origin exactly as a browser sends it: scheme, host and port only (never `*`). */
function webOrigin(value: unknown, at: string): string {
  const example = 'such as https://ops.example.com or http://127.0.0.1:3000';
  if (value === '*')
    throw new ConfigError(
      `${at}: "*" would let any web page drive the admin API; list the origins ${example}`,
    );
  let origin: string | undefined;
  try {
    const url = new URL(String(value));
    if (url.protocol === 'http:' || url.protocol === 'https:') origin = url.origin;
  } catch {}
  if (typeof value !== 'string' || origin !== value)
    throw new ConfigError(
      `${at} must be an origin (scheme, host and optional port, nothing after) ${example}, got ${JSON.stringify(value)}${origin && origin !== value ? ` (did you mean ${origin}?)` : ''}`,
    );
  return origin;
}

function parseMetrics(raw: unknown, hasAdminToken: boolean): GatewayConfig['metrics'] {
  if (raw === undefined || raw === null) return { enabled: true, requireAdminToken: false };
  const metrics = object(raw, 'metrics');
  unknownKeys(metrics, ['enabled', 'requireAdminToken'], 'metrics');
  for (const field of ['enabled', 'requireAdminToken'] as const) {
    if (metrics[field] !== undefined && typeof metrics[field] !== 'boolean')
      throw new ConfigError(`metrics.${field} must be true or false`);
  }
  const requireAdminToken = metrics.requireAdminToken === true;
  if (requireAdminToken && !hasAdminToken)
    throw new ConfigError('metrics.requireAdminToken needs adminToken to be set');
  return { enabled: metrics.enabled !== false, requireAdminToken };
}

function parseTls(raw: unknown): GatewayConfig['tls'] {
  if (raw === undefined || raw === null) return undefined;
  const tls = object(raw, 'tls');
  unknownKeys(tls, ['certFile', 'keyFile'], 'tls');
  const certFile = optionalString(tls.certFile, 'tls.certFile');
  const keyFile = optionalString(tls.keyFile, 'tls.keyFile');
  if (!certFile || !keyFile) throw new ConfigError('tls needs both certFile and keyFile (PEM files)');
  return { certFile, keyFile };
}

function parseStores(raw: unknown, env: NodeJS.ProcessEnv): StoresConfig {
  if (raw === undefined || raw === null) return { kind: 'embedded' };
  const stores = object(raw, 'stores');
  unknownKeys(stores, STORES_KEYS, 'stores');
  const kind = stores.kind ?? 'embedded';
  if (kind === 'embedded') {
    const extra = Object.keys(stores).filter((k) => k !== 'kind');
    if (extra.length) throw new ConfigError(`stores: ${extra.join(', ')} apply only to kind: shared`);
    return { kind };
  }
  if (kind !== 'shared') throw new ConfigError('stores.kind must be embedded or shared');
  const redisFailure = stores.redisFailure ?? 'closed';
  if (redisFailure !== 'closed' && redisFailure !== 'open')
    throw new ConfigError('stores.redisFailure must be closed or open');
  const redisKeyPrefix = optionalString(stores.redisKeyPrefix, 'stores.redisKeyPrefix') ?? 'portico:';
  if (!/^[A-Za-z0-9:_.-]{0,64}$/.test(redisKeyPrefix))
    throw new ConfigError('stores.redisKeyPrefix must be at most 64 of A-Z a-z 0-9 : _ . -');
  return {
    kind,
    databaseUrl: serviceUrl(stores.databaseUrl, env, 'stores.databaseUrl', ['postgres:', 'postgresql:']),
    redisUrl: serviceUrl(stores.redisUrl, env, 'stores.redisUrl', ['redis:', 'rediss:']),
    redisFailure,
    redisKeyPrefix,
    ...(stores.cacheRedisUrl !== undefined && {
      cacheRedisUrl: serviceUrl(stores.cacheRedisUrl, env, 'stores.cacheRedisUrl', ['redis:', 'rediss:']),
    }),
  };
}

function serviceUrl(value: unknown, env: NodeJS.ProcessEnv, at: string, protocols: string[]): string {
  const text = substitute(value, env, at);
  if (typeof text !== 'string') throw new ConfigError(`${at} is required for shared stores`);
  let protocol: string;
  try {
    protocol = new URL(text).protocol;
  } catch {
    throw new ConfigError(`${at} must be a URL (${protocols.join(' or ')}//…)`);
  }
  if (!protocols.includes(protocol))
    throw new ConfigError(`${at} must start with ${protocols.join(' or ')}//`);
  return text;
}

function parseNetwork(
  raw: unknown,
  at: string,
  env: NodeJS.ProcessEnv,
  storesKind: StoresConfig['kind'],
): NetworkConfig {
  const network = object(raw, at);
  unknownKeys(network, NETWORK_KEYS, at);
  const name = network.name;
  if (typeof name !== 'string' || !NAME.test(name)) throw new ConfigError(`${at}.name must match ${NAME}`);
  const kind = network.kind ?? 'evm';
  if (kind !== 'evm' && kind !== 'solana') throw new ConfigError(`${at}.kind must be evm or solana`);
  const chainId = network.chainId;
  if (typeof chainId !== 'string' || !CAIP2.test(chainId))
    throw new ConfigError(`${at}.chainId must be a CAIP-2 chain id such as eip155:1`);
  const host = optionalString(network.host, `${at}.host`)?.toLowerCase();
  const basePath = network.basePath === undefined ? (host ? '' : `/${name}`) : network.basePath;
  if (
    typeof basePath !== 'string' ||
    !(basePath === '' || /^\/[A-Za-z0-9/_-]*[A-Za-z0-9_-]$/.test(basePath))
  ) {
    throw new ConfigError(`${at}.basePath must be "" or a path such as /mainnet`);
  }
  if (basePath === '' && !host) throw new ConfigError(`${at}.basePath may be empty only when host is set`);
  const upstreams = network.upstreams;
  if (!Array.isArray(upstreams) || upstreams.length === 0)
    throw new ConfigError(`${at}.upstreams must be a non-empty list of URLs`);
  return {
    name,
    kind,
    chainId,
    basePath,
    host,
    upstreams: upstreams.map((u, i) =>
      url(substitute(u, env, `${at}.upstreams[${i}]`), `${at}.upstreams[${i}]`),
    ),
    passthroughCost: integer(network.passthroughCost ?? 80, `${at}.passthroughCost`, 0, 1_000_000),
    timeoutMs: integer(network.timeoutMs ?? 30_000, `${at}.timeoutMs`, 100, 600_000),
    headPollMs: integer(network.headPollMs ?? 2000, `${at}.headPollMs`, 100, 600_000),
    maxResponseBytes: integer(
      network.maxResponseBytes ?? 16 * 1024 * 1024,
      `${at}.maxResponseBytes`,
      1024,
      1024 ** 3,
    ),
    maxLogsBlockRange: integer(
      network.maxLogsBlockRange ?? 10_000,
      `${at}.maxLogsBlockRange`,
      1,
      100_000_000,
    ),

    cache: parseCache(network.cache, `${at}.cache`, storesKind),
    breaker: parseBreaker(network.breaker, `${at}.breaker`),
    wsUpstreams: parseWsUpstreams(network.wsUpstreams, env, `${at}.wsUpstreams`),
    blockTags: oneOf(
      network.blockTags ?? (kind === 'evm' && upstreams.length > 1 ? 'agreed' : 'upstream'),
      ['agreed', 'upstream'] as const,
      `${at}.blockTags`,
    ),
    hedge: parseHedge(network.hedge, `${at}.hedge`),
    subscriptionCosts: parseSubscriptionCosts(network.subscriptionCosts, `${at}.subscriptionCosts`),
  };
}

function parseSubscriptionCosts(raw: unknown, at: string): SubscriptionCosts {
  const costs = raw === undefined || raw === null ? {} : object(raw, at);
  unknownKeys(costs, [...SUBSCRIPTION_TYPES], at);
  return {
    newHeads: integer(costs.newHeads ?? DEFAULT_SUBSCRIPTION_COSTS.newHeads, `${at}.newHeads`, 0, 1_000_000),
    logs: integer(costs.logs ?? DEFAULT_SUBSCRIPTION_COSTS.logs, `${at}.logs`, 0, 1_000_000),
  };
}

function parseHedge(raw: unknown, at: string): NetworkConfig['hedge'] {
  if (raw === undefined || raw === false) return undefined;
  const hedge = object(raw, at);
  unknownKeys(hedge, ['afterMs'], at);
  return { afterMs: integer(hedge.afterMs, `${at}.afterMs`, 1, 600_000) };
}

/** The cache lives in memory with embedded stores and in the shared Redis with shared stores. */
function parseCache(raw: unknown, at: string, storesKind: StoresConfig['kind']): CacheConfig {
  const byDefault = storesKind === 'shared' ? 'redis' : 'memory';
  if (raw === false)
    return { enabled: false, store: byDefault, maxEntries: 0, unfinalizedTtlMs: 0, finalTtlMs: 0 };
  const cache = raw === undefined || raw === true ? {} : object(raw, at);
  unknownKeys(cache, CACHE_KEYS, at);
  if (cache.enabled !== undefined && typeof cache.enabled !== 'boolean')
    throw new ConfigError(`${at}.enabled must be true or false`);
  const store = cache.store ?? byDefault;
  if (store !== 'memory' && store !== 'redis') throw new ConfigError(`${at}.store must be memory or redis`);
  if (store === 'redis' && storesKind !== 'shared')
    throw new ConfigError(`${at}.store: redis needs stores.kind: shared (the cache uses the shared Redis)`);
  return {
    enabled: cache.enabled !== false,
    store,
    maxEntries: integer(cache.maxEntries ?? 10_000, `${at}.maxEntries`, 1, 10_000_000),
    unfinalizedTtlMs: integer(cache.unfinalizedTtlMs ?? 2000, `${at}.unfinalizedTtlMs`, 0, 3_600_000),
    finalTtlMs: integer(cache.finalTtlMs ?? 86_400_000, `${at}.finalTtlMs`, 1000, 30 * 86_400_000),
  };
}

function parseWsUpstreams(raw: unknown, env: NodeJS.ProcessEnv, at: string): string[] | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!Array.isArray(raw) || raw.length === 0)
    throw new ConfigError(`${at} must be a non-empty list of URLs`);
  return raw.map((u, i) => {
    const value = substitute(u, env, `${at}[${i}]`);
    try {
      if (typeof value !== 'string' || !['ws:', 'wss:'].includes(new URL(value).protocol)) throw new Error();
    } catch {
      throw new ConfigError(`${at}[${i}] must be a ws(s) URL`);
    }
    return value;
  });
}

function parseBreaker(raw: unknown, at: string): NetworkConfig['breaker'] {
  const breaker = raw === undefined ? {} : object(raw, at);
  unknownKeys(breaker, ['failures', 'cooldownMs'], at);
  return {
    failures: integer(breaker.failures ?? 3, `${at}.failures`, 1, 1000),
    cooldownMs: integer(breaker.cooldownMs ?? 5000, `${at}.cooldownMs`, 100, 3_600_000),
  };
}

/** `${VAR}` in a string is replaced by the environment variable, so secrets stay out of the file. */
function substitute(value: unknown, env: NodeJS.ProcessEnv, at: string): unknown {
  if (typeof value !== 'string') return value;
  return value.replace(/\$\{([A-Z0-9_]+)\}/g, (_, name: string) => {
    const found = env[name];
    if (found === undefined)
      throw new ConfigError(`${at} uses \${${name}} but that environment variable is not set`);
    return found;
  });
}

function object(value: unknown, at: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new ConfigError(`${at} must be an object`);
  return value as Record<string, unknown>;
}

function unknownKeys(value: Record<string, unknown>, allowed: string[], at: string) {
  const unknown = Object.keys(value).filter((k) => !allowed.includes(k));
  if (unknown.length)
    throw new ConfigError(
      `${at} has unknown field(s): ${unknown.join(', ')} (allowed: ${allowed.join(', ')})`,
    );
}

function optionalString(value: unknown, at: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new ConfigError(`${at} must be a string`);
  return value;
}

function integer(value: unknown, at: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${at} must be an integer from ${min} to ${max}`);
  }
  return value;
}

function url(value: unknown, at: string): string {
  if (typeof value !== 'string') throw new ConfigError(`${at} must be a URL string`);
  try {
    const parsed = new URL(value);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error();
  } catch {
    throw new ConfigError(`${at} must be an http(s) URL`);
  }
  return value;
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[], at: string): T {
  if (typeof value !== 'string' || !allowed.includes(value as T))
    throw new ConfigError(`${at} must be one of ${allowed.join(', ')}, got ${JSON.stringify(value)}`);
  return value as T;
}
