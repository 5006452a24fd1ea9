import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Network } from '../network.ts';
import type { CacheStatus, SubscriptionType } from '../types.ts';

/** What the pipeline reports about one JSON-RPC request (one item of a batch counts as one). */
export type RpcItemEvent = {
  network: Network;
  /** The method as the caller sent it; labelled only when the network serves it. */
  method: string;
  keyId: string;
  /** Credits finally charged (0 when refunded or refused). */
  cost: number;
  /** JSON-RPC error code of the answer, undefined for a result. */
  errorCode?: number;
  cache?: CacheStatus;
  /** Seconds spent in the gateway for this item. */
  seconds: number;
};

/** Method label of calls the network does not serve (keeps the label set bounded). */
export const OTHER_METHOD = '(other)';

type MethodChildren = {
  requests: Counter.Internal;
  duration: Histogram.Internal<'network' | 'method'>;
};

type NetworkChildren = {
  methods: Map<string, MethodChildren>;
  cacheHits: Counter.Internal;
  cacheMisses: Counter.Internal;
  cacheStale: Counter.Internal;
  credits: Map<string, Counter.Internal>;
  notifications: Map<string, Counter.Internal>;
};

/**
 * The gateway's Prometheus metrics, on a registry of their own (several gateways can live in one
 * process). Label children are created once per network/method/key and kept, so the request path
 * only increments. Upstream health and cache store errors are read when scraped. Keys never appear: only
 * key ids; upstreams appear as their index and host (never path, query or credentials).
 */
export class GatewayMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'network' | 'method'>;
  private readonly errors: Counter<'network' | 'method' | 'code'>;
  private readonly duration: Histogram<'network' | 'method'>;
  private readonly credits: Counter<'network' | 'key_id'>;
  private readonly cacheHits: Counter<'network'>;
  private readonly cacheMisses: Counter<'network'>;
  private readonly cacheStale: Counter<'network'>;
  private readonly byNetwork = new Map<Network, NetworkChildren>();
  private readonly httpResponses: Counter<'status'>;
  private readonly hedges: Counter<'network' | 'outcome'>;
  private readonly byStatus = new Map<number, Counter.Internal>();
  readonly wsConnections: Gauge;
  readonly wsSubscriptions: Gauge<'network'>;
  private readonly wsNotifications: Counter<'network' | 'type'>;

  constructor(networks: readonly Network[]) {
    const registers = [this.registry];
    this.requests = new Counter({
      name: 'portico_rpc_requests_total',
      help: 'JSON-RPC requests answered (each batch item counts), by network and method',
      labelNames: ['network', 'method'],
      registers,
    });
    this.errors = new Counter({
      name: 'portico_rpc_errors_total',
      help: 'JSON-RPC requests answered with an error, by network, method and JSON-RPC error code',
      labelNames: ['network', 'method', 'code'],
      registers,
    });
    this.duration = new Histogram({
      name: 'portico_rpc_duration_seconds',
      help: 'Time from a parsed request to its answer inside the gateway, by network and method',
      labelNames: ['network', 'method'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.credits = new Counter({
      name: 'portico_credits_charged_total',
      help: 'Credits drawn from daily balances, by network and key id',
      labelNames: ['network', 'key_id'],
      registers,
    });
    this.cacheHits = new Counter({
      name: 'portico_cache_hits_total',
      help: 'Requests answered from the response cache, by network',
      labelNames: ['network'],
      registers,
    });
    this.cacheMisses = new Counter({
      name: 'portico_cache_misses_total',
      help: 'Cacheable requests the response cache could not answer, by network',
      labelNames: ['network'],
      registers,
    });
    this.cacheStale = new Counter({
      name: 'portico_cache_stale_total',
      help: 'Requests answered from final data in the cache because no upstream could answer (X-Cache: STALE), by network',
      labelNames: ['network'],
      registers,
    });
    new Counter({
      name: 'portico_cache_store_errors_total',
      help: 'Response cache reads and writes that failed (a shared cache store unreachable or slow), by network',
      labelNames: ['network'],
      registers,
      collect() {
        this.reset();
        for (const network of networks) {
          if (network.cache) this.inc({ network: network.name }, network.cache.storeErrors);
        }
      },
    });
    const upstreamLabels = ['network', 'upstream', 'host'] as const;
    const eachUpstream = (
      gauge: Gauge<'network' | 'upstream' | 'host'>,
      value: (member: Network['upstreams']['members'][number]) => number,
    ) => {
      gauge.reset();
      for (const network of networks) {
        network.upstreams.members.forEach((member, index) => {
          gauge.set(
            { network: network.name, upstream: String(index), host: member.upstream.host },
            value(member),
          );
        });
      }
    };
    new Gauge({
      name: 'portico_upstream_breaker_state',
      help: 'Circuit breaker of each upstream: 0 closed, 1 half-open, 2 open',
      labelNames: upstreamLabels,
      registers,
      collect() {
        eachUpstream(this, (m) =>
          m.breaker.state === 'closed' ? 0 : m.breaker.state === 'half-open' ? 1 : 2,
        );
      },
    });
    new Gauge({
      name: 'portico_upstream_up',
      help: 'Whether an upstream can take requests: 1 when its breaker is not open and it reported a head',
      labelNames: upstreamLabels,
      registers,
      collect() {
        eachUpstream(this, (m) => (m.breaker.state !== 'open' && m.head >= 0 ? 1 : 0));
      },
    });
    new Gauge({
      name: 'portico_upstream_head',
      help: 'Latest block (or slot) each upstream reported; -1 before the first report',
      labelNames: upstreamLabels,
      registers,
      collect() {
        eachUpstream(this, (m) => m.head);
      },
    });
    new Gauge({
      name: 'portico_network_finalized_block',
      help: 'Finalized block (or slot) the upstreams of each network report',
      labelNames: ['network'],
      registers,
      collect() {
        this.reset();
        for (const network of networks) this.set({ network: network.name }, network.heads.finalized);
      },
    });
    this.hedges = new Counter({
      name: 'portico_upstream_hedges_total',
      help: 'Hedged upstream calls: sent (a second upstream asked), won (its answer came first)',
      labelNames: ['network', 'outcome'],
      registers,
    });
    this.httpResponses = new Counter({
      name: 'portico_http_responses_total',
      help: 'HTTP responses by status, including refusals before the pipeline (401, 404, 413, 415)',
      labelNames: ['status'],
      registers,
    });
    this.wsConnections = new Gauge({
      name: 'portico_ws_connections',
      help: 'Open WebSocket connections',
      registers,
    });
    this.wsSubscriptions = new Gauge({
      name: 'portico_ws_subscriptions',
      help: 'Active eth_subscribe subscriptions, by network',
      labelNames: ['network'],
      registers,
    });
    this.wsNotifications = new Counter({
      name: 'portico_ws_notifications_total',
      help: 'eth_subscription notifications delivered (and charged), by network and subscription type',
      labelNames: ['network', 'type'],
      registers,
    });
    for (const network of networks) {
      const children = this.childrenOf(network);
      for (const method of network.methods.rules.keys()) this.methodChildren(network, children, method);
    }
  }

  /** Counts one answered JSON-RPC request. */
  observe(event: RpcItemEvent) {
    const { network } = event;
    const children = this.childrenOf(network);
    const method = servedMethod(network, event.method);
    const perMethod = this.methodChildren(network, children, method);
    perMethod.requests.inc();
    perMethod.duration.observe(event.seconds);
    if (event.errorCode !== undefined) {
      this.errors.labels(network.name, method, String(event.errorCode)).inc();
    }
    if (event.cache === 'HIT') children.cacheHits.inc();
    else if (event.cache === 'MISS') children.cacheMisses.inc();
    else if (event.cache === 'STALE') children.cacheStale.inc();
    if (event.cost > 0) this.charged(network, children, event.keyId, event.cost);
  }

  /** Counts one eth_subscription notification delivered over WebSocket and the credits it cost. */
  notification(network: Network, keyId: string, type: SubscriptionType, cost: number) {
    const children = this.childrenOf(network);
    let delivered = children.notifications.get(type);
    if (!delivered) {
      delivered = this.wsNotifications.labels(network.name, type);
      children.notifications.set(type, delivered);
    }
    delivered.inc();
    if (cost > 0) this.charged(network, children, keyId, cost);
  }

  /** Counts one HTTP response by its status. */
  hedged(network: string, outcome: 'sent' | 'won') {
    this.hedges.inc({ network, outcome });
  }

  httpResponse(status: number) {
    let child = this.byStatus.get(status);
    if (!child) {
      child = this.httpResponses.labels(String(status));
      this.byStatus.set(status, child);
    }
    child.inc();
  }

  /** The text exposition format. */
  async text(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }

  private charged(network: Network, children: NetworkChildren, keyId: string, cost: number) {
    let credits = children.credits.get(keyId);
    if (!credits) {
      credits = this.credits.labels(network.name, keyId);
      children.credits.set(keyId, credits);
    }
    credits.inc(cost);
  }

  private childrenOf(network: Network): NetworkChildren {
    let children = this.byNetwork.get(network);
    if (!children) {
      children = {
        methods: new Map(),
        cacheHits: this.cacheHits.labels(network.name),
        cacheMisses: this.cacheMisses.labels(network.name),
        cacheStale: this.cacheStale.labels(network.name),
        credits: new Map(),
        notifications: new Map(),
      };
      this.byNetwork.set(network, children);
    }
    return children;
  }

  private methodChildren(network: Network, children: NetworkChildren, method: string): MethodChildren {
    let found = children.methods.get(method);
    if (!found) {
      found = {
        requests: this.requests.labels(network.name, method),
        duration: this.duration.labels(network.name, method),
      };
      children.methods.set(method, found);
    }
    return found;
  }
}

/** Methods the network serves keep their name; anything else is `(other)` (callers choose names). */
const SESSION_METHODS = new Set(['eth_subscribe', 'eth_unsubscribe']);

function servedMethod(network: Network, method: string): string {
  if (method.startsWith('(')) return method;
  if (network.methods.rules.has(method) || SESSION_METHODS.has(method)) return method;
  const { passthrough } = network.methods;
  if (passthrough.methods !== 'any' && passthrough.methods.has(method)) return method;
  return OTHER_METHOD;
}
