// The gateway's shared vocabulary, at the ground floor: every layer may import from here, and
// this file imports from none of them, so imports run one way (transports → pipeline → methods
// → upstream → rpc and these types).

/** The kinds of network the gateway serves; error codes differ where the chain's own RPC owns a code. */
export type NetworkKind = 'evm' | 'solana';

/** STALE: no upstream could answer, and the cache held the answer as final data (stale-if-error). */
export type CacheStatus = 'HIT' | 'MISS' | 'BYPASS' | 'STALE';

/** One answered RPC request, for the access log; key ids only, never keys. */
export type AccessEntry = {
  transport: 'http' | 'ws';
  keyId: string;
  network: string;
  /** The method, or `batch` for a batch. */
  method: string;
  batchSize?: number;
  status: number;
  ms: number;
};

/** What a method's parameter rules may ask about the chain (answered by the upstream, never charged). */
export type ChainContext = {
  /** The gas limit of the current block, for the 10x `gas` cap. */
  blockGasLimit: () => Promise<bigint>;
  /** The newest block (or slot) the upstreams report. */
  headNumber: () => Promise<number>;
};

/** eth_subscribe types the gateway relays (and prices) over WebSocket. */
export const SUBSCRIPTION_TYPES = ['newHeads', 'logs'] as const;

export type SubscriptionType = (typeof SUBSCRIPTION_TYPES)[number];

/** Credits drawn from the key's daily balance for each notification delivered, per subscription type. */
export type SubscriptionCosts = Readonly<Record<SubscriptionType, number>>;

/** Our defaults (configurable per network with `subscriptionCosts`). */
export const DEFAULT_SUBSCRIPTION_COSTS: SubscriptionCosts = { newHeads: 50, logs: 300 };

export function isSubscriptionType(value: unknown): value is SubscriptionType {
  return typeof value === 'string' && (SUBSCRIPTION_TYPES as readonly string[]).includes(value);
}

/** The usage and metrics name of a notification: `eth_subscription:newHeads`, `eth_subscription:logs`. */
export function notificationMethod(type: SubscriptionType): string {
  return `eth_subscription:${type}`;
}
