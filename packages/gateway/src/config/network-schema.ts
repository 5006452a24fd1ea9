import type { Context } from '@metamask/superstruct';
import { EVM_METHOD_SPECS } from '../methods/evm/spec.ts';
import { SOLANA_METHOD_SPECS } from '../methods/solana/methods.ts';
import { DEFAULT_SUBSCRIPTION_COSTS } from '../types.ts';
import {
  boolean,
  didYouMean,
  field,
  fromEnv,
  integer,
  isRecord,
  list,
  oneOf,
  optional,
  optionalLowerCase,
  parentOf,
  rootOf,
  section,
  textOrSection,
  withDefault,
} from './schema.ts';

// A network's part of the gateway's configuration: its upstreams, limits, heads, cache, tags and
// prices, each field with its default and its rule.

export const CAIP2 = /^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/;
export const NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;
export const BASE_PATH = /^\/[A-Za-z0-9/_-]*[A-Za-z0-9_-]$/;

export const httpUrl = field<string>((value, at) => {
  if (typeof value !== 'string') return `${at} must be a URL string`;
  return hasProtocol(value, ['http:', 'https:']) || `${at} must be an http(s) URL`;
});

export const wsUrl = field<string>(
  (value, at) =>
    (typeof value === 'string' && hasProtocol(value, ['ws:', 'wss:'])) || `${at} must be a ws(s) URL`,
);

/** The stores kind the config asks for (read before the stores section itself is checked). */
export const storesKindOf = (context: Context) => {
  const stores = rootOf(context).stores;
  return isRecord(stores) && stores.kind === 'shared' ? 'shared' : 'embedded';
};

/** `cache: false`, complete as it is. */
export const TURNED_OFF = new WeakSet<object>();

/** The cache lives in memory with embedded stores and in the shared Redis with shared stores. */
export const cacheSchema = section(
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

export const methodNamesOf = (kind: 'evm' | 'solana') =>
  kind === 'solana' ? Object.keys(SOLANA_METHOD_SPECS) : Object.keys(EVM_METHOD_SPECS);

export const networkSchema = (env: NodeJS.ProcessEnv) =>
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
       * as from the polls: the `wsUpstreams`, else where each upstream's may be (`wsAddressesOf`:
       * its own address as ws(s)://, …/ws/v3/<key> beside …/v3/<key>, 8546 beside 8545, Ankr's
       * /ws/ path). Default on: a node without a WebSocket there is asked again now and then, and
       * has the polls meanwhile.
       */
      headPush: withDefault(boolean, true),
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
      /** WebSocket nodes for eth_subscribe and pushed heads (`ws://`/`wss://`); absent: found from `upstreams`. */
      wsUpstreams: optional(
        list(
          fromEnv(wsUrl, env),
          (value, at) => value.length > 0 || `${at} must be a non-empty list of URLs`,
          (at) => `${at} must be a non-empty list of URLs`,
        ),
      ),
      /**
       * `agreed` (default with several upstreams): `latest`/`safe`/`finalized` are sent as the numbers
       * every upstream in service has reached; `pushed` (default with one upstream and `headPush`):
       * as `agreed` while every upstream in service has its `newHeads` subscription open, as
       * `upstream` otherwise; `upstream` (default with one upstream and polls only): sent as they are.
       */
      blockTags: withDefault(oneOf(['agreed', 'pushed', 'upstream']), (context) => {
        const { kind, upstreams, headPush } = parentOf(context);
        if ((kind ?? 'evm') !== 'evm') return 'upstream';
        if (Array.isArray(upstreams) && upstreams.length > 1) return 'agreed';
        return headPush === false ? 'upstream' : 'pushed';
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

export function hasProtocol(value: string, protocols: string[]): boolean {
  try {
    return protocols.includes(new URL(value).protocol);
  } catch {
    return false;
  }
}
