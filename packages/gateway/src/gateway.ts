import { join } from 'node:path';
import pino, { type Logger } from 'pino';
import type { GatewayConfig } from './config/config.ts';
import type { CreditLedger } from './credits/ledger.ts';
import { MemoryCreditLedger } from './credits/memory-ledger.ts';
import { MemoryRateLimiter, type RateLimiter } from './credits/rate-limiter.ts';
import { SqliteUsageRecorder, type UsageRecorder } from './credits/usage-recorder.ts';
import { createHttpServer, listen } from './http/server.ts';
import type { KeyStore } from './keys/key-store.ts';
import { SqliteKeyStore } from './keys/sqlite-key-store.ts';
import { methodTableFor } from './methods/index.ts';
import type { Network } from './network.ts';
import { openSqlite, type SqliteDatabase } from './store/sqlite.ts';
import { createChainContext } from './upstream/chain-context.ts';
import { HttpUpstream } from './upstream/http-upstream.ts';

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
  options: { stores?: GatewayStores; logger?: Logger } = {},
): Promise<Gateway> {
  const logger = options.logger ?? pino({ level: config.logLevel, base: { service: 'gateway' } });
  const stores = options.stores ?? openEmbeddedStores(config.dataDir);
  const networks: Network[] = config.networks.map((n) => {
    const upstream = new HttpUpstream(n.upstreams[0], { timeoutMs: n.timeoutMs });
    return {
      name: n.name,
      kind: n.kind,
      chainId: n.chainId,
      basePath: n.basePath,
      host: n.host,
      methods: methodTableFor(n.kind, n.passthroughCost),
      upstream,
      chain: createChainContext(upstream),
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
      await Promise.all(networks.map((n) => n.upstream.close()));
      if (!options.stores) await stores.close();
    },
  };
}
