import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import pino, { type Logger } from 'pino';
import { openResponseCaches } from './cache/open-response-caches.ts';
import type { GatewayConfig } from './config/config.ts';
import type { CreditLedger } from './credits/ledger.ts';
import { InFlight } from './http/drain.ts';
import type { KeyStore } from './keys/key-store.ts';
import { methodTableFor } from './methods/index.ts';
import type { Network } from './network.ts';
import { GatewayMetrics, type RpcItemEvent } from './observability/metrics.ts';
import { type GatewayStores, openEmbeddedStores, openSharedStores } from './open-stores.ts';
import { createHttpServer, type HttpServerDependencies, listen } from './server/http-server.ts';
import type { AccessEntry } from './types.ts';
import { createChainContext } from './upstream/chain-context.ts';
import { HeadTracker } from './upstream/head-tracker.ts';
import { HttpUpstream } from './upstream/http-upstream.ts';
import { UpstreamPool } from './upstream/upstream-pool.ts';
import { pushAddressesOf, wsAddressesOf } from './upstream/websocket-addresses.ts';
import type { UsageRecorder } from './usage/usage-recorder.ts';
import { attachWebSocket } from './ws/ws-server.ts';

export type Gateway = {
  /** http://host:port of the running server. */
  url: string;
  networks: { name: string; kind: string; chainId: string; baseUrl: string }[];
  keys: KeyStore;
  ledger: CreditLedger;
  usage: UsageRecorder;
  /** The Prometheus registry behind `/metrics` (also when the endpoint is disabled). */
  metrics: GatewayMetrics;
  /**
   * Stops accepting connections, lets requests in flight finish (at most `shutdownTimeoutMs`),
   * then closes the remaining connections, the upstreams and the stores.
   */
  close: () => Promise<void>;
};

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
  // The pid tells the workers of `--workers N` apart in one log.
  const logger =
    options.logger ?? pino({ level: config.logLevel, base: { service: 'gateway', pid: process.pid } });
  const stores =
    options.stores ??
    (config.stores?.kind === 'shared'
      ? await openSharedStores(config.stores, { logger })
      : openEmbeddedStores(config.dataDir, {
          onError: (error) => logger.warn({ err: error.message }, 'usage could not be written to SQLite'),
        }));
  const caches = await openResponseCaches(config, logger);
  const wsUpstreams = new Map<Network, { urls: () => string[]; timeoutMs: number }>();
  const networks: Network[] = config.networks.map((n) => {
    const methods = methodTableFor(
      n.kind,
      n.passthroughCost,
      n.maxLogsBlockRange,
      n.methodCosts,
      n.maxLogsBlockRangeTotal,
    );
    const upstreams = new UpstreamPool(
      n.upstreams.map(
        (entry) =>
          new HttpUpstream(typeof entry === 'string' ? entry : entry.url, {
            timeoutMs: n.timeoutMs,
            maxResponseBytes: n.maxResponseBytes,
            exactIntegers: n.kind === 'solana',
          }),
      ),

      {
        breakerThreshold: n.breaker.failures,
        breakerCooldownMs: n.breaker.cooldownMs,
        hedgeAfterMs: n.hedge?.afterMs,
        headOfAnswer: methods.hooks.headOfAnswer,
        writes: methods.writes,
        onHedge: (outcome) => metrics.hedged(n.name, outcome),
        network: `network ${n.name}`,
        refusedMethodTtlMs: n.refusedMethodTtlMs,
        upstreamSettings: n.upstreams.map((entry) => (typeof entry === 'string' ? {} : entry)),
        maxLag: n.maxLagBlocks,
      },
    );
    const relays = (n.broadcastUrls ?? []).map(
      (url) => new HttpUpstream(url, { timeoutMs: n.timeoutMs, maxResponseBytes: n.maxResponseBytes }),
    );
    const heads = new HeadTracker(upstreams, n.kind, n.headPollMs);
    if (n.headPush) heads.pushFrom(pushAddressesOf(n.upstreams, n.wsUpstreams), n.timeoutMs);
    const cache = caches.cacheFor(n);
    heads.onHead(({ reorg, finalized }) => {
      if (reorg) cache?.evictAfterReorg(finalized);
    });
    heads.start();
    const network: Network = {
      name: n.name,
      kind: n.kind,
      chainId: n.chainId,
      basePath: n.basePath,
      host: n.host,
      methods,
      upstreams,
      relays,
      heads,
      blockTags: n.kind === 'evm' ? n.blockTags : 'upstream',
      maxResponseBytes: n.maxResponseBytes,
      cache,
      chain: createChainContext(upstreams),
      inflight: new Map(),
      subscriptionCosts: n.subscriptionCosts,
    };
    // Subscriptions go to the configured WebSocket nodes, else to where the HTTP upstreams' own may
    // be (wsAddressesOf), those whose breaker is not open and that are not cordoned first.
    const outOfService = (m: (typeof upstreams.members)[number]) => m.cordoned || m.breaker.state === 'open';
    const configured = n.wsUpstreams;
    wsUpstreams.set(network, {
      timeoutMs: n.timeoutMs,
      urls: () =>
        configured ??
        [...upstreams.members]
          .sort((a, b) => Number(outOfService(a)) - Number(outOfService(b)))
          .flatMap((m) => wsAddressesOf(m.upstream.url)),
    });
    return network;
  });
  let publicUrl = config.publicUrl ?? '';
  const metrics = new GatewayMetrics(networks);
  const metricsConfig = config.metrics ?? { enabled: true, requireAdminToken: false };
  let shuttingDown = false;
  let closing: Promise<void> | undefined;
  // One debug line per answered request: key id, network, method, status, ms (never the key).
  // Without debug logging the request path does not even build the entry.
  const onAnswered = logger.isLevelEnabled('debug')
    ? (entry: AccessEntry) => logger.debug(entry, 'rpc request')
    : undefined;
  const onInternalError: HttpServerDependencies['onInternalError'] = (error, context) =>
    logger.warn(
      { ...context, err: error instanceof Error ? error.message : String(error) },
      'request failed in the gateway',
    );
  // What both entry points (HTTP and WebSocket) need to run the pipeline.
  const pipeline = {
    networks,
    keys: stores.keys,
    ledger: stores.ledger,
    rateLimiter: stores.rateLimiter,
    usage: stores.usage,
    maxBodyBytes: config.maxBodyBytes,
    maxBatchSize: config.maxBatchSize,
    maxJsonDepth: config.maxJsonDepth,
    observe: (event: RpcItemEvent) => metrics.observe(event),
    onAnswered,
    onInternalError,
  };
  const server = createHttpServer({
    ...pipeline,
    admin: config.adminToken ? { adminToken: config.adminToken } : undefined,
    adminCorsOrigins: new Set(config.admin?.corsOrigins ?? []),
    publicUrl: () => publicUrl,
    extraHandlers: options.extraHandlers,
    tls: config.tls && { cert: readFileSync(config.tls.certFile), key: readFileSync(config.tls.keyFile) },
    metrics: metricsConfig.enabled
      ? {
          render: () => metrics.text(),
          adminToken: metricsConfig.requireAdminToken ? config.adminToken : undefined,
        }
      : undefined,
    shuttingDown: () => shuttingDown,
  });
  const inFlight = new InFlight();
  const webSockets = attachWebSocket(server, {
    ...pipeline,
    inFlight,
    upstreamsOf: (network) => wsUpstreams.get(network)!,
    metrics,
  });
  // Runs before the request handler: counts the request until its response is closed, and once
  // the gateway is shutting down asks keep-alive clients to reconnect elsewhere. One shared
  // 'close' listener (a response closes once): no closure per request.
  function onResponseClosed(this: ServerResponse) {
    inFlight.end();
    if (this.headersSent) metrics.httpResponse(this.statusCode);
    if (shuttingDown) server.closeIdleConnections();
  }
  server.prependListener('request', (_request, response) => {
    inFlight.start();
    if (shuttingDown) response.setHeader('connection', 'close');
    response.on('close', onResponseClosed);
  });
  const address = await listen(server, config.port, config.host);
  const url = `${config.tls ? 'https' : 'http'}://${address.address.includes(':') ? `[${address.address}]` : address.address}:${address.port}`;
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
    metrics,
    close() {
      closing ??= (async () => {
        shuttingDown = true;
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        const finished = await inFlight.idle(config.shutdownTimeoutMs ?? 10_000);
        if (!finished) logger.warn({ inFlight: inFlight.size }, 'shutdown: cutting requests still in flight');
        await webSockets.close();
        if (finished) server.closeIdleConnections();
        else server.closeAllConnections();
        await closed;
        for (const network of networks) network.heads.stop();
        await Promise.all(
          networks.flatMap((n) => [
            finished ? n.upstreams.close() : n.upstreams.destroy(),
            ...n.relays.map((relay) => (finished ? relay.close() : relay.destroy())),
          ]),
        );
        await caches.close();
        if (!options.stores) await stores.close();
      })();
      return closing;
    },
  };
}
