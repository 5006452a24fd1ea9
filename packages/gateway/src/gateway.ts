import { join } from 'node:path';
import pino, { type Logger } from 'pino';
import { MemoryResponseCache } from './cache/response-cache.ts';
import type { GatewayConfig } from './config/config.ts';
import type { CreditLedger } from './credits/ledger.ts';
import { MemoryCreditLedger } from './credits/memory-ledger.ts';
import { MemoryRateLimiter, type RateLimiter } from './credits/rate-limiter.ts';
import { SqliteUsageRecorder, type UsageRecorder } from './credits/usage-recorder.ts';
import { createHttpServer, type HttpServerDependencies, listen } from './http/server.ts';
import type { KeyStore } from './keys/key-store.ts';
import { SqliteKeyStore } from './keys/sqlite-key-store.ts';
import { methodTableFor } from './methods/index.ts';
import type { Network } from './network.ts';
import { openSharedStores } from './shared-stores/open-shared-stores.ts';
import { openSqlite, type SqliteDatabase } from './store/sqlite.ts';
import { createChainContext } from './upstream/chain-context.ts';
import { HeadTracker } from './upstream/head-tracker.ts';
import { HttpUpstream } from './upstream/http-upstream.ts';
import { UpstreamPool } from './upstream/upstream-pool.ts';

export type Gateway = {
  /** http://host:port of the running server. */
  url: string;
  networks: { name: string; kind: string; chainId: string; baseUrl: string }[];
  keys: KeyStore;
  ledger: CreditLedger;
  usage: UsageRecorder;
  close: () => Promise<void>;
};

export type GatewayStores = {
  keys: KeyStore;
  ledger: CreditLedger;
  rateLimiter: RateLimiter;
  usage: UsageRecorder;
  close: () => Promise<void>;
};

/** The embedded stores: keys and usage in SQLite under `dataDir` (or in memory), balances in memory. */
export function openEmbeddedStores(dataDir: string | undefined): GatewayStores {
  const db: SqliteDatabase = openSqlite(dataDir ? join(dataDir, 'gateway.db') : ':memory:');
  const usage = new SqliteUsageRecorder(db);
  const keys = new SqliteKeyStore(db);
  const ledger = new MemoryCreditLedger((keyId, day) => usage.creditsOn(keyId, day));
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

/** Starts the gateway described by `config`. */
export async function startGateway(
  config: GatewayConfig,
  options: {
    stores?: GatewayStores;
    logger?: Logger;
    /** Extra request handlers (e.g. the dashboard), tried before the 404; true means handled. */
    extraHandlers?: HttpServerDependencies['extraHandlers'];
  } = {},
): Promise<Gateway> {
  const logger = options.logger ?? pino({ level: config.logLevel, base: { service: 'gateway' } });
  const stores =
    options.stores ??
    (config.stores?.kind === 'shared'
      ? await openSharedStores(config.stores, { logger })
      : openEmbeddedStores(config.dataDir));
  const networks: Network[] = config.networks.map((n) => {
    const upstreams = new UpstreamPool(
      n.upstreams.map(
        (url) => new HttpUpstream(url, { timeoutMs: n.timeoutMs, exactIntegers: n.kind === 'solana' }),
      ),

      { breakerThreshold: n.breaker.failures, breakerCooldownMs: n.breaker.cooldownMs },
    );
    const heads = new HeadTracker(upstreams, n.kind, n.headPollMs);
    const cache = n.cache.enabled
      ? new MemoryResponseCache(n.cache.maxEntries, n.cache.unfinalizedTtlMs)
      : undefined;
    heads.onHead(({ reorg, finalized }) => {
      if (reorg) cache?.evictAfterReorg(finalized);
    });
    heads.start();
    return {
      name: n.name,
      kind: n.kind,
      chainId: n.chainId,
      basePath: n.basePath,
      host: n.host,
      methods: methodTableFor(n.kind, n.passthroughCost),
      upstreams,
      heads,
      cache,
      chain: createChainContext(upstreams),
      inflight: new Map(),
    };
  });
  let publicUrl = config.publicUrl ?? '';
  const server = createHttpServer({
    networks,
    keys: stores.keys,
    ledger: stores.ledger,
    rateLimiter: stores.rateLimiter,
    usage: stores.usage,
    maxBodyBytes: config.maxBodyBytes,
    maxBatchSize: config.maxBatchSize,
    admin: config.adminToken ? { adminToken: config.adminToken } : undefined,
    publicUrl: () => publicUrl,
    extraHandlers: options.extraHandlers,
    onInternalError: (error, context) =>
      logger.warn(
        { ...context, err: error instanceof Error ? error.message : String(error) },
        'request failed in the gateway',
      ),
  });
  const address = await listen(server, config.port, config.host);
  const url = `http://${address.address.includes(':') ? `[${address.address}]` : address.address}:${address.port}`;
  publicUrl ||= url;
  logger.info({ url, networks: networks.map((n) => n.name) }, 'gateway listening');
  return {
    url,
    networks: networks.map((n) => ({
      name: n.name,
      kind: n.kind,
      chainId: n.chainId,
      baseUrl: `${publicUrl}${n.basePath}`,
    })),
    keys: stores.keys,
    ledger: stores.ledger,
    usage: stores.usage,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      for (const network of networks) network.heads.stop();
      await Promise.all(networks.map((n) => n.upstreams.close()));
      if (!options.stores) await stores.close();
    },
  };
}
