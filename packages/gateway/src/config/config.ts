import { readFileSync } from 'node:fs';
import type { Context, Infer, ObjectSchema, ObjectType } from '@metamask/superstruct';
import { parse as parseYaml } from 'yaml';
import { type cacheSchema, networkSchema } from './network-schema.ts';
import { redisTarget } from './redis-target.ts';
import {
  boolean,
  ConfigError,
  field,
  fromEnv,
  integer,
  isOptionalString,
  isRecord,
  list,
  oneOf,
  optional,
  optionalString,
  parseWith,
  rootOf,
  section,
  withDefault,
} from './schema.ts';

export { ConfigError };

// The gateway's configuration, declared once: each field with its default and its rule. The
// types below are inferred from these schemas; `parseConfig` checks a config against them.

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

/** A PEM file of `tls`; whether both are given is checked on the section. */
const pemFile = field<string>(isOptionalString, (value) => (value === null ? undefined : value));

const hasAdminToken = (context: Context) => typeof rootOf(context).adminToken === 'string';

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
