import type { ResponseCache } from './cache/response-cache.ts';
import type { MethodTable } from './methods/types.ts';
import type { ChainContext, NetworkKind, SubscriptionCosts } from './types.ts';
import type { HeadTracker } from './upstream/head-tracker.ts';
import type { HttpUpstream, UpstreamReply } from './upstream/http-upstream.ts';
import type { UpstreamPool } from './upstream/upstream-pool.ts';

/** One network the gateway serves: its base address, its methods and the nodes behind it. */
export type Network = {
  name: string;
  kind: NetworkKind;
  /** CAIP-2 chain id, e.g. eip155:31337. */
  chainId: string;
  /** Path prefix of the base address, e.g. `/local` (empty when served by host name). */
  basePath: string;
  /** Host name that selects this network regardless of path, e.g. `eth.example.com`. */
  host?: string;
  methods: MethodTable;
  upstreams: UpstreamPool;
  /** Endpoints that take transactions only (`broadcastUrls`: private relays), beside the upstreams. */
  relays: readonly HttpUpstream[];
  heads: HeadTracker;
  chain: ChainContext;
  /**
   * `agreed`: `latest`, `safe` and `finalized` are sent upstream as the numbers every upstream in
   * service has reached (and eth_blockNumber is answered with that head); `pushed`: as `agreed`
   * while every upstream in service pushes its heads (HeadTracker.pushLive), else as `upstream`;
   * `upstream`: sent as is.
   */
  blockTags: 'agreed' | 'pushed' | 'upstream';
  /** Largest upstream answer, in bytes; also the cap of an answer assembled from several (eth_getLogs in parts). */
  maxResponseBytes: number;
  /** Finality-aware response cache; undefined when caching is off. */
  cache?: ResponseCache;
  /** Identical requests in flight share one upstream call. */
  inflight: Map<string, Promise<UpstreamReply>>;
  /** Credits of each eth_subscription notification delivered over WebSocket, by subscription type. */
  subscriptionCosts: SubscriptionCosts;
};
