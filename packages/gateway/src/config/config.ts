import { readFileSync } from 'node:fs';
import type { Context, Infer, ObjectSchema, ObjectType } from '@metamask/superstruct';
import { parse as parseYaml } from 'yaml';
import { EVM_METHOD_SPECS } from '../methods/evm/spec.ts';
import { SOLANA_METHOD_SPECS } from '../methods/solana/methods.ts';
import { DEFAULT_SUBSCRIPTION_COSTS } from '../types.ts';
import { redisTarget } from './redis-target.ts';
import {
  boolean,
  ConfigError,
  didYouMean,
  field,
  fromEnv,
  integer,
  isOptionalString,
  isRecord,
  list,
  oneOf,
  optional,
  optionalLowerCase,
  optionalString,
  parentOf,
  parseWith,
  rootOf,
  section,
  textOrSection,
  withDefault,
} from './schema.ts';

export { ConfigError };

// The gateway's configuration, declared once: each field with its default and its rule. The
// types below are inferred from these schemas; `parseConfig` checks a config against them.

const CAIP2 = /^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/;
const NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;
const BASE_PATH = /^\/[A-Za-z0-9/_-]*[A-Za-z0-9_-]$/;

const httpUrl = field<string>((value, at) => {
  if (typeof value !== 'string') return `${at} must be a URL string`;
  return hasProtocol(value, ['http:', 'https:']) || `${at} must be an http(s) URL`;
});

const wsUrl = field<string>(
  (value, at) =>
    (typeof value === 'string' && hasProtocol(value, ['ws:', 'wss:'])) || `${at} must be a ws(s) URL`,
);

/** A PostgreSQL or Redis address of the shared stores. */
const serviceUrl = (protocols: string[]) =>
  field<string>((value, at) => {
    if (typeof value !== 'string') return `${at} is required for shared stores`;
    let protocol: string;
    try {
      protocol = new URL(value).protocol;
    } catch {
      return `${at} must be a URL (${protocols.join(' or ')}//…)`;
    }
    return protocols.includes(protocol) || `${at} must start with ${protocols.join(' or ')}//`;
  });

/** An origin exactly as a browser sends it: scheme, host and port only (never `*`). */
const webOrigin = field<string>((value, at) => {
  const example = 'such as https://ops.example.com or http://127.0.0.1:3000';
  if (value === '*')
    return `${at}: "*" would let any web page drive the admin API; list the origins ${example}`;
  let origin: string | undefined;
  try {
    const url = new URL(String(value));
    if (url.protocol === 'http:' || url.protocol === 'https:') origin = url.origin;
  } catch {}
  if (typeof value === 'string' && origin === value) return true;
  return `${at} must be an origin (scheme, host and optional port, nothing after) ${example}, got ${JSON.stringify(value)}${origin && origin !== value ? ` (did you mean ${origin}?)` : ''}`;
});

function hasProtocol(value: string, protocols: string[]): boolean {
  try {
    return protocols.includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

/** A PEM file of `tls`; whether both are given is checked on the section. */
const pemFile = field<string>(isOptionalString, (value) => (value === null ? undefined : value));

const hasAdminToken = (context: Context) => typeof rootOf(context).adminToken === 'string';

/** The stores kind the config asks for (read before the stores section itself is checked). */
const storesKindOf = (context: Context) => {
  const stores = rootOf(context).stores;
  return isRecord(stores) && stores.kind === 'shared' ? 'shared' : 'embedded';
};

/** `cache: false`, complete as it is. */
const TURNED_OFF = new WeakSet<object>();

/** The cache lives in memory with embedded stores and in the shared Redis with shared stores. */
const cacheSchema = section(
  {
    enabled: withDefault(boolean, true, { keepNull: true }),
    /** `memory` (this instance) or `redis` (shared by instances). Default `redis` with shared stores. */
    store: withDefault(
      field<'memory' | 'redis'>((value, at, context) => {
        if (value !== 'memory' && value !== 'redis') return `${at} must be memory or redis`;
        if (value === 'redis' && storesKindOf(context) !== 'shared')
          return `${at}: redis needs stores.kind: shared (the cache uses the shared Redis)`;
        return true;
      }),
      (context) => (storesKindOf(context) === 'shared' ? 'redis' : 'memory'),
    ),
    /** Most entries kept (memory store only). Default 10000. */
    maxEntries: withDefault(integer(1, 10_000_000), 10_000),
    /** How long data above the finalized block is kept. Default 2000 ms. */
    unfinalizedTtlMs: withDefault(integer(0, 3_600_000), 2000),
    /** How long final data is kept (redis store only; memory keeps it until evicted by size). Default 1 day. */
    finalTtlMs: withDefault(integer(1000, 30 * 86_400_000), 86_400_000),
  },
  {
    prepare: (value, context) => {
      if (value === undefined || value === true) return {};
      if (value !== false) return value;
      const store = storesKindOf(context) === 'shared' ? 'redis' : 'memory';
      const off = { enabled: false, store, maxEntries: 0, unfinalizedTtlMs: 0, finalTtlMs: 0 };
      TURNED_OFF.add(off);
      return off;
    },
    complete: (value) => TURNED_OFF.has(value),
  },
);

const methodNamesOf = (kind: 'evm' | 'solana') =>
  kind === 'solana' ? Object.keys(SOLANA_METHOD_SPECS) : [...Object.keys(EVM_METHOD_SPECS), 'eth_getLogs'];

const networkSchema = (env: NodeJS.ProcessEnv) =>
  section(
    {
      /** Short name, also the default base path (`/<name>`). */
      name: field<string>(
        (value, at) => (typeof value === 'string' && NAME.test(value)) || `${at} must match ${NAME}`,
      ),
      kind: withDefault(oneOf(['evm', 'solana'], 'must be evm or solana'), 'evm'),
      /** CAIP-2 chain id, e.g. `eip155:1`. */
      chainId: field<string>(
        (value, at) =>
          (typeof value === 'string' && CAIP2.test(value)) ||
          `${at} must be a CAIP-2 chain id such as eip155:1`,
      ),
      /** Path prefix of the base address. Default `/<name>`; `""` with `host` serves the whole host. */
      basePath: withDefault(
        field<string>((value, at, context) => {
          if (typeof value !== 'string' || !(value === '' || BASE_PATH.test(value)))
            return `${at} must be "" or a path such as /mainnet`;
          return (
            value !== '' || Boolean(parentOf(context).host) || `${at} may be empty only when host is set`
          );
        }),
        (context) => {
          const { host, name } = parentOf(context);
          return typeof host === 'string' && host !== '' ? '' : `/${name}`;
        },
        { keepNull: true },
      ),
      /** Optional host name that selects this network (e.g. `mainnet.example.com`). */
      host: optionalLowerCase,
      /**
       * Upstream nodes: each a URL (secrets may come from the environment as `${VAR}`) or
       * `{ url, name, maxConcurrency }` (a name for the admin API; most calls in flight at once).
       */
      upstreams: list(
        textOrSection(
          fromEnv(httpUrl, env),
          section({
            url: fromEnv(httpUrl, env),
            /** How the admin API and /readyz name the upstream. Default: its index. */
            name: optional(
              field<string>(
                (value, at) => (typeof value === 'string' && NAME.test(value)) || `${at} must match ${NAME}`,
              ),
            ),
            /** Most calls in flight at once on this upstream; more wait for another upstream. Default: no cap. */
            maxConcurrency: optional(integer(1, 1_000_000)),
          }),
        ),
        (value, at) => value.length > 0 || `${at} must be a non-empty list of URLs`,
        (at) => `${at} must be a non-empty list of URLs`,
      ),
      /**
       * Endpoints that take transactions only (private relays): eth_sendRawTransaction goes to them
       * as well as to every upstream. Never asked anything else.
       */
      broadcastUrls: optional(
        list(
          fromEnv(httpUrl, env),
          () => true,
          (at) => `${at} must be a list of URLs`,
        ),
      ),
      /** Credits for methods without an entry in the spec's table. Default 80. */
      passthroughCost: withDefault(integer(0, 1_000_000), 80),
      /** Credits of named methods on this network, overriding the spec's table and `passthroughCost`. */
      methodCosts: withDefault(
        field<Record<string, number>>((value, at, context) => {
          if (!isRecord(value)) return `${at} must be an object of method names and credits`;
          const served = methodNamesOf(parentOf(context).kind === 'solana' ? 'solana' : 'evm');
          for (const [method, cost] of Object.entries(value)) {
            if (!served.includes(method))
              return `${at}.${method} is not a method this network serves${didYouMean([method], served)}`;
            if (!Number.isInteger(cost) || (cost as number) < 0 || (cost as number) > 1_000_000)
              return `${at}.${method} must be an integer from 0 to 1000000`;
          }
          return true;
        }),
        () => ({}),
      ),
      /** Timeout of one upstream call. Default 30000 ms. */
      timeoutMs: withDefault(integer(100, 600_000), 30_000),
      /** Largest upstream answer accepted, in bytes. Default 16 MiB. */
      maxResponseBytes: withDefault(integer(1024, 1024 ** 3), 16 * 1024 * 1024),
      /**
       * Most blocks one upstream is asked for in one eth_getLogs (less once it refuses a range);
       * a wider request is split into parts. Default 10000.
       */
      maxLogsBlockRange: withDefault(integer(1, 100_000_000), 10_000),
      /**
       * An upstream behind the head the others agree on by more than this many blocks gets no calls
       * (but reads of older blocks it holds) until it catches up. Default 5.
       */
      maxLagBlocks: withDefault(integer(0, 1_000_000), 5),
      /** How long a method an upstream answered it does not serve is sent to the others only. Default 10 minutes. */
      refusedMethodTtlMs: withDefault(integer(1000, 86_400_000), 600_000),
      /** Most blocks one eth_getLogs may cover, however it is split. Default 1000000. */
      maxLogsBlockRangeTotal: withDefault(integer(1, 1_000_000_000), 1_000_000),
      /** How often each upstream is asked for its head (also the health check). Default 2000 ms. */
      headPollMs: withDefault(integer(100, 600_000), 2000),
      /**
       * Learn new heads from a `newHeads` subscription on each upstream's WebSocket (EVM), as well
       * as from the polls (a node without WebSocket has the polls only). Default: on when the
       * network names its `wsUpstreams` (then it is known where each node's WebSocket is), else off.
       */
      headPush: withDefault(boolean, (context) => Array.isArray(parentOf(context).wsUpstreams)),
      /** Finality-aware response cache. */
      cache: cacheSchema,
      /** Circuit breaker: failures in a row that set an upstream aside, and for how long. */
      breaker: section(
        {
          failures: withDefault(integer(1, 1000), 3),
          cooldownMs: withDefault(integer(100, 3_600_000), 5000),
        },
        { prepare: (value) => (value === undefined ? {} : value) },
      ),
      /** WebSocket nodes for eth_subscribe (`ws://`/`wss://`); absent: derived from `upstreams`. */
      wsUpstreams: optional(
        list(
          fromEnv(wsUrl, env),
          (value, at) => value.length > 0 || `${at} must be a non-empty list of URLs`,
          (at) => `${at} must be a non-empty list of URLs`,
        ),
      ),
      /**
       * `agreed` (default with several upstreams): `latest`/`safe`/`finalized` are sent as the numbers
       * every upstream in service has reached; `upstream` (default with one): sent as they are.
       */
      blockTags: withDefault(oneOf(['agreed', 'upstream']), (context) => {
        const { kind, upstreams } = parentOf(context);
        return (kind ?? 'evm') === 'evm' && Array.isArray(upstreams) && upstreams.length > 1
          ? 'agreed'
          : 'upstream';
      }),
      /** Hedged requests: an idempotent call unanswered after `afterMs` is also sent to the next upstream. */
      hedge: optional(
        section({ afterMs: integer(1, 600_000) }),
        (value) => value === undefined || value === false,
      ),
      /** Credits of each eth_subscription notification by subscription type. Default newHeads 50, logs 300. */
      subscriptionCosts: section(
        {
          newHeads: withDefault(integer(0, 1_000_000), DEFAULT_SUBSCRIPTION_COSTS.newHeads),
          logs: withDefault(integer(0, 1_000_000), DEFAULT_SUBSCRIPTION_COSTS.logs),
        },
        { prepare: (value) => (value === undefined || value === null ? {} : value) },
      ),
    },
    { checkFirst: ['name', 'kind', 'chainId', 'host'] },
  );

/** Where keys, usage and balances live: `embedded` (one instance) or `shared` (several instances). */
const storesSchema = (env: NodeJS.ProcessEnv) =>
  section(
    {
      kind: withDefault(oneOf(['embedded', 'shared'], 'must be embedded or shared'), 'embedded'),
      /** PostgreSQL for keys and usage (`postgres://…`); `${VAR}` is taken from the environment. */
      databaseUrl: fromEnv(serviceUrl(['postgres:', 'postgresql:']), env),
      /**
       * A direct PostgreSQL connection (not through PgBouncer in transaction mode) for the key
       * change listener (LISTEN). Default: `databaseUrl`.
       */
      databaseDirectUrl: optional(fromEnv(serviceUrl(['postgres:', 'postgresql:']), env)),
      /**
       * Redis for daily balances and per-second windows: a `redis://` / `rediss://` URL, a Sentinel
       * (`{ sentinels, name }`) or a Cluster (`{ cluster }`).
       */
      redis: redisTarget(env),
      /** The older name of `redis` (a URL); still read. */
      redisUrl: olderName('redisUrl', 'redis'),
      /** While Redis is unreachable: `closed` (default) refuses metered requests, `open` meters locally. */
      redisFailure: withDefault(oneOf(['closed', 'open'], 'must be closed or open'), 'closed'),
      /** Prefix of the gateway's Redis keys. Default `portico:`. */
      redisKeyPrefix: withDefault(
        field<string>((value, at) => {
          if (typeof value !== 'string') return `${at} must be a string`;
          return /^[A-Za-z0-9:_.-]{0,64}$/.test(value) || `${at} must be at most 64 of A-Z a-z 0-9 : _ . -`;
        }),
        'portico:',
      ),
      /** A Redis of its own for the response cache (`cache.store: redis`), in any form of `redis`. Default: `redis`. */
      cacheRedis: optional(redisTarget(env), (value) => value === undefined),
      /** The older name of `cacheRedis` (a URL); still read. */
      cacheRedisUrl: olderName('cacheRedisUrl', 'cacheRedis'),
    },
    {
      prepare: (value) => {
        if (value === undefined || value === null) return { kind: 'embedded' };
        if (!isRecord(value)) return value;
        const stores = { ...value, kind: value.kind ?? 'embedded' };
        renameOlder(stores, 'redisUrl', 'redis');
        renameOlder(stores, 'cacheRedisUrl', 'cacheRedis');
        return stores;
      },
      // Embedded stores have no settings: only `kind` may be written.
      check: (value) => {
        const extra = Object.keys(value).filter((key) => key !== 'kind');
        return (
          value.kind !== 'embedded' ||
          extra.length === 0 ||
          `stores: ${extra.join(', ')} apply only to kind: shared`
        );
      },
      complete: (value) => value.kind === 'embedded',
      checkFirst: ['kind', 'redisFailure', 'redisKeyPrefix'],
    },
  );

/** A field's older name, read as the new one (`renameOlder`); refused when both are written. */
const olderName = (older: string, current: string) =>
  optional(
    field<never>(() => `stores.${older} is the older name of stores.${current}: write only ${current}`),
  );

/** Moves a value written under a field's older name to its current name, unless both are written. */
function renameOlder(stores: Record<string, unknown>, older: string, current: string) {
  if (stores[older] === undefined || stores[current] !== undefined) return;
  stores[current] = stores[older];
  delete stores[older];
}

const gatewaySchema = (env: NodeJS.ProcessEnv, extraSections: ObjectSchema = {}) =>
  section(
    {
      ...(extraSections as Record<string, never>),
      host: withDefault(optionalString, '127.0.0.1'),
      port: withDefault(integer(0, 65535), 8545),
      /** The address clients use, when it differs from http://host:port (behind a proxy). */
      publicUrl: optionalString,
      /** Folder for the SQLite database (keys, usage). Omitted: an in-memory database. */
      dataDir: optionalString,
      /** Token for the admin API; omitted disables it. */
      adminToken: fromEnv(optionalString, env),
      /**
       * Other web origins allowed to call the admin API from a browser (CORS), e.g. an operations
       * console on its own host. Default none: only the dashboard, served by the gateway itself
       * (same origin, no CORS needed).
       */
      admin: section(
        {
          corsOrigins: withDefault(
            list(
              webOrigin,
              (value, at, context) =>
                value.length === 0 ||
                hasAdminToken(context) ||
                `${at} needs adminToken to be set (without it the admin API is off)`,
              (at) => `${at} must be a list of origins such as https://ops.example.com`,
            ),
            [],
          ),
        },
        { prepare: (value) => (value === undefined || value === null ? {} : value) },
      ),
      maxBodyBytes: withDefault(integer(1024, 100 * 1024 * 1024), 1024 * 1024),
      maxBatchSize: withDefault(integer(1, 1000), 100),
      /** Deepest nesting of arrays and objects in a request body. Default 64. */
      maxJsonDepth: withDefault(integer(8, 512), 64),
      logLevel: withDefault(optionalString, 'info'),
      networks: list(
        networkSchema(env),
        (value) => value.length > 0 || 'config.networks must be a non-empty list',
        () => 'config.networks must be a non-empty list',
      ),
      /** Default (absent) `{ kind: 'embedded' }`. */
      stores: storesSchema(env),
      /** `GET /metrics` (Prometheus). Default enabled, without a token. */
      metrics: section(
        {
          enabled: withDefault(boolean, true, { keepNull: true }),
          requireAdminToken: withDefault(
            field<boolean>((value, at, context) => {
              if (typeof value !== 'boolean') return `${at} must be true or false`;
              return !value || hasAdminToken(context) || `${at} needs adminToken to be set`;
            }),
            false,
            { keepNull: true },
          ),
        },
        { prepare: (value) => (value === undefined || value === null ? {} : value) },
      ),
      /** PEM files of a certificate and its key: the gateway serves HTTPS (and wss://). */
      tls: optional(
        section(
          { certFile: pemFile, keyFile: pemFile },
          {
            refine: ({ certFile, keyFile }) =>
              Boolean(certFile && keyFile) || 'tls needs both certFile and keyFile (PEM files)',
          },
        ),
      ),
      /** On close, how long in-flight requests may take to finish. Default 10000 ms. */
      shutdownTimeoutMs: withDefault(integer(0, 600_000), 10_000),
    },
    // Checked first: a network's cache depends on the stores.
    { checkFirst: ['stores', 'networks', 'adminToken'] },
  );

export type CacheConfig = Infer<typeof cacheSchema>;
export type NetworkConfig = Infer<ReturnType<typeof networkSchema>>;
type StoresFields = Infer<ReturnType<typeof storesSchema>>;
export type SharedStoresConfig = Omit<StoresFields, 'redisUrl' | 'cacheRedisUrl'> & { kind: 'shared' };
/** Where keys, usage and balances live: `embedded` (one instance) or `shared` (several instances). */
export type StoresConfig = { kind: 'embedded' } | SharedStoresConfig;
type ParsedConfig = Infer<ReturnType<typeof gatewaySchema>>;
/** The gateway's configuration, completed with defaults (`parseConfig`); sections left out of a hand-built one take their defaults. */
export type GatewayConfig = Omit<ParsedConfig, 'stores' | 'admin' | 'metrics' | 'shutdownTimeoutMs'> &
  Partial<Pick<ParsedConfig, 'admin' | 'metrics' | 'shutdownTimeoutMs'>> & { stores?: StoresConfig };

/**
 * Sections other parts of Portico add to the same file (e.g. `portico start`'s `auth`, `dashboard`
 * and `wallet`), checked with the gateway's own fields: one file, one set of rules and messages.
 */
export type ExtraSections = ObjectSchema;

/** Reads a YAML or JSON config file. */
export function loadConfigFile(path: string, env?: NodeJS.ProcessEnv): GatewayConfig;
export function loadConfigFile<S extends ExtraSections>(
  path: string,
  env: NodeJS.ProcessEnv,
  extraSections: S,
): GatewayConfig & ObjectType<S>;
export function loadConfigFile(
  path: string,
  env: NodeJS.ProcessEnv = process.env,
  extraSections: ExtraSections = {},
): GatewayConfig {
  let raw: unknown;
  try {
    raw = parseYaml(readFileSync(path, 'utf8'));
  } catch (error) {
    // One line: YAML's message ends with a picture of the lines around the mistake.
    throw new ConfigError(
      `cannot read config ${path}: ${(error as Error).message.split('\n')[0].replace(/:$/, '')}`,
    );
  }
  return parseConfig(raw, env, extraSections);
}

/** Validates a config object, filling defaults; every problem names its field. */
export function parseConfig(raw: unknown, env?: NodeJS.ProcessEnv): GatewayConfig;
export function parseConfig<S extends ExtraSections>(
  raw: unknown,
  env: NodeJS.ProcessEnv,
  extraSections: S,
): GatewayConfig & ObjectType<S>;
export function parseConfig(
  raw: unknown,
  env: NodeJS.ProcessEnv = process.env,
  extraSections: ExtraSections = {},
): GatewayConfig {
  const config = parseWith(raw, gatewaySchema(env, extraSections)) as GatewayConfig;
  const names = new Set<string>();
  const bases = new Set<string>();
  for (const network of config.networks) {
    if (names.has(network.name)) throw new ConfigError(`network name ${network.name} is used twice`);
    names.add(network.name);
    const base = `${network.host ?? ''}${network.basePath}`;
    if (bases.has(base)) throw new ConfigError(`two networks share the base address ${base || '/'}`);
    bases.add(base);
  }
  return config;
}
