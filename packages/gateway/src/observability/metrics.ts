import { Counter, Gauge, Registry } from 'prom-client';
import type { Network } from '../network.ts';
import { EVM_SUBSCRIBE, EVM_UNSUBSCRIBE } from '../rpc/method-names.ts';
import type { CacheStatus, SubscriptionType } from '../types.ts';
import { type UpstreamState, upstreamStates } from '../upstream/upstream-states.ts';
import { NetworkTally } from './request-tally.ts';
import { TallyHistogram } from './tally-histogram.ts';

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

/**
 * The gateway's Prometheus metrics, on a registry of their own (several gateways can live in one
 * process). The request path adds to plain tallies (`request-tally.ts`); the metrics read them
 * when scraped, so answering a request hashes no label set. Upstream health and cache store errors
 * are read when scraped too. Keys never appear: only key ids; upstreams appear as their index and
 * host (never path, query or credentials).
 */
export class GatewayMetrics {
  readonly registry = new Registry();
  private readonly tallies = new Map<Network, NetworkTally>();
  private readonly statuses = new Map<number, number>();
  private readonly hedges: Counter<'network' | 'outcome'>;
  readonly wsConnections: Gauge;
  readonly wsSubscriptions: Gauge<'network'>;

  constructor(networks: readonly Network[]) {
    const registers = [this.registry];
    for (const network of networks) {
      const tally = this.tallyOf(network);
      for (const method of network.methods.rules.keys()) tally.method(method);
    }
    const tallies = () => [...this.tallies].map(([network, tally]) => ({ network: network.name, tally }));
    const counted = <L extends string>(
      name: string,
      help: string,
      labelNames: L[],
      read: (add: (labels: Record<L, string>, value: number) => void) => void,
    ) =>
      new Counter({
        name,
        help,
        labelNames,
        registers,
        collect() {
          this.reset();
          read((labels, value) => this.inc(labels, value));
        },
      });

    counted(
      'portico_rpc_requests_total',
      'JSON-RPC requests answered (each batch item counts), by network and method',
      ['network', 'method'],
      (add) => {
        for (const { network, tally } of tallies())
          for (const [method, counts] of tally.methods) add({ network, method }, counts.requests);
      },
    );
    counted(
      'portico_rpc_errors_total',
      'JSON-RPC requests answered with an error, by network, method and JSON-RPC error code',
      ['network', 'method', 'code'],
      (add) => {
        for (const { network, tally } of tallies())
          for (const [method, counts] of tally.methods)
            for (const [code, n] of counts.errors) add({ network, method, code: String(code) }, n);
      },
    );
    new TallyHistogram(
      {
        name: 'portico_rpc_duration_seconds',
        help: 'Time from a parsed request to its answer inside the gateway, by network and method',
        registers,
      },
      function* () {
        for (const { network, tally } of tallies())
          for (const [method, counts] of tally.methods) yield [{ network, method }, counts];
      },
    );
    counted(
      'portico_credits_charged_total',
      'Credits drawn from daily balances, by network and key id',
      ['network', 'key_id'],
      (add) => {
        for (const { network, tally } of tallies())
          for (const [keyId, credits] of tally.credits) add({ network, key_id: keyId }, credits);
      },
    );
    const cacheCounter = (name: string, help: string, read: (tally: NetworkTally) => number) =>
      counted(name, help, ['network'], (add) => {
        for (const { network, tally } of tallies()) add({ network }, read(tally));
      });
    cacheCounter(
      'portico_cache_hits_total',
      'Requests answered from the response cache, by network',
      (t) => t.cacheHits,
    );
    cacheCounter(
      'portico_cache_misses_total',
      'Cacheable requests the response cache could not answer, by network',
      (t) => t.cacheMisses,
    );
    cacheCounter(
      'portico_cache_stale_total',
      'Requests answered from final data in the cache because no upstream could answer (X-Cache: STALE), by network',
      (t) => t.cacheStale,
    );
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
    const gaugeOfStates = (
      gauge: Gauge<'network' | 'upstream' | 'host'>,
      value: (state: UpstreamState) => number,
    ) => {
      gauge.reset();
      for (const network of networks) {
        for (const state of upstreamStates(network.upstreams)) {
          gauge.set(
            { network: network.name, upstream: String(state.upstream), host: state.host },
            value(state),
          );
        }
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
        eachUpstream(this, (m) => (!m.cordoned && m.breaker.state !== 'open' && m.head >= 0 ? 1 : 0));
      },
    });
    new Gauge({
      name: 'portico_upstream_lag_blocks',
      help: 'Blocks each upstream is behind the head the upstreams in service agree on; -1 when unknown',
      labelNames: upstreamLabels,
      registers,
      collect() {
        gaugeOfStates(this, (state) => state.lag);
      },
    });
    new Gauge({
      name: 'portico_upstream_cordoned',
      help: 'Whether an operator cordoned the upstream (no new calls): 1 cordoned, 0 not',
      labelNames: upstreamLabels,
      registers,
      collect() {
        gaugeOfStates(this, (state) => (state.cordoned ? 1 : 0));
      },
    });
    new Gauge({
      name: 'portico_upstream_in_flight',
      help: 'Calls in flight on each upstream',
      labelNames: upstreamLabels,
      registers,
      collect() {
        gaugeOfStates(this, (state) => state.inFlight);
      },
    });
    new Gauge({
      name: 'portico_upstream_oldest_state_block',
      help: 'Oldest block whose state each upstream holds, learned from its pruned-state answers; 0 when not known to be pruned',
      labelNames: upstreamLabels,
      registers,
      collect() {
        gaugeOfStates(this, (state) => state.oldestState);
      },
    });
    new Gauge({
      name: 'portico_upstream_methods_refused',
      help: 'Methods each upstream answered it does not serve (sent to the others for a while)',
      labelNames: upstreamLabels,
      registers,
      collect() {
        gaugeOfStates(this, (state) => state.methodsRefused.length);
      },
    });
    new Gauge({
      name: 'portico_upstream_heads_pushed',
      help: 'Whether each upstream pushes its new heads (its newHeads subscription is open): 1 pushed, 0 polled only',
      labelNames: upstreamLabels,
      registers,
      collect() {
        gaugeOfStates(this, (state) => (state.headsPushed ? 1 : 0));
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
    counted(
      'portico_http_responses_total',
      'HTTP responses by status, including refusals before the pipeline (401, 404, 413, 415)',
      ['status'],
      (add) => {
        for (const [status, n] of this.statuses) add({ status: String(status) }, n);
      },
    );
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
    counted(
      'portico_ws_notifications_total',
      'eth_subscription notifications delivered (and charged), by network and subscription type',
      ['network', 'type'],
      (add) => {
        for (const { network, tally } of tallies())
          for (const [type, n] of tally.notifications) add({ network, type }, n);
      },
    );
  }

  /** Counts one answered JSON-RPC request. */
  observe(event: RpcItemEvent) {
    const { network } = event;
    const tally = this.tallyOf(network);
    tally.method(servedMethod(network, event.method)).add(event.seconds, event.errorCode);
    if (event.cache === 'HIT') tally.cacheHits += 1;
    else if (event.cache === 'MISS') tally.cacheMisses += 1;
    else if (event.cache === 'STALE') tally.cacheStale += 1;
    if (event.cost > 0) tally.charge(event.keyId, event.cost);
  }

  /** Counts one eth_subscription notification delivered over WebSocket and the credits it cost. */
  notification(network: Network, keyId: string, type: SubscriptionType, cost: number) {
    const tally = this.tallyOf(network);
    tally.notifications.set(type, (tally.notifications.get(type) ?? 0) + 1);
    if (cost > 0) tally.charge(keyId, cost);
  }

  hedged(network: string, outcome: 'sent' | 'won') {
    this.hedges.inc({ network, outcome });
  }

  /** Counts one HTTP response by its status. */
  httpResponse(status: number) {
    this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1);
  }

  /** The text exposition format. */
  async text(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }

  private tallyOf(network: Network): NetworkTally {
    let tally = this.tallies.get(network);
    if (!tally) {
      tally = new NetworkTally();
      this.tallies.set(network, tally);
    }
    return tally;
  }
}

/** Methods the network serves keep their name; anything else is `(other)` (callers choose names). */
const SESSION_METHODS = new Set<string>([EVM_SUBSCRIBE, EVM_UNSUBSCRIBE]);

function servedMethod(network: Network, method: string): string {
  if (method.startsWith('(')) return method;
  if (network.methods.rules.has(method) || SESSION_METHODS.has(method)) return method;
  return OTHER_METHOD;
}
