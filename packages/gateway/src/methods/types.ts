import type { ResponseCache } from '../cache/response-cache.ts';
import type { JsonResult } from '../rpc/json-result.ts';
import type { JsonRpcError } from '../rpc/jsonrpc.ts';
import type { ChainContext, NetworkKind } from '../types.ts';
import type { HttpUpstream, UpstreamReply } from '../upstream/http-upstream.ts';
import type { AgreedHeights, UpstreamPool } from '../upstream/upstream-pool.ts';

/** What a method that is not sent to one upstream (`serve`) may use of its network. */
export type Fleet = {
  upstreams: UpstreamPool;
  /** Extra endpoints that take transactions only (the network's `broadcastUrls`). */
  relays: readonly HttpUpstream[];
  chain: ChainContext;
  heads: { readonly finalized: number };
  /** Finality-aware response cache; undefined when caching is off. */
  cache?: ResponseCache;
  /** Largest answer, in bytes: also the cap of an answer put together from several. */
  maxResponseBytes: number;
};

/** The rules and price of one JSON-RPC method on one kind of network. */
export type MethodRule = {
  /** Credits drawn from the key's daily balance. */
  cost: number;
  /** Throws GatewayError('invalidParams') with a message naming the parameter and the rule. */
  check?: (params: unknown[], chain: ChainContext) => void | Promise<void>;
  /** Rewrites valid parameters into the form every upstream accepts (e.g. decimal → hex). */
  prepare?: (params: unknown[]) => unknown[];
  /**
   * Adjusts a successful result to the spec's semantics (e.g. the pending block's null fields).
   * Reading `result.value` parses the node's text: only a rule that changes the result should.
   */
  finish?: (result: JsonResult, params: unknown[]) => JsonResult;
  /**
   * Serves the call itself instead of sending it to one upstream (a transaction to every node, a
   * wide eth_getLogs in parts); undefined: the usual path (cache, merged calls, one upstream).
   * Called with the prepared (and pinned) parameters after they passed `check`.
   */
  serve?: (params: unknown[], fleet: Fleet) => Promise<UpstreamReply> | undefined;
  /**
   * The price of this call when it depends on its parameters (eth_getLogs by blocks); `cost` is
   * the method's configured price. Absent: `cost`.
   */
  price?: (params: unknown[], chain: ChainContext, cost: number) => number | Promise<number>;
  /**
   * The contract addresses the call touches, for a key's `allowedContracts` (read before `check`:
   * any shape may arrive; none found is `[]`). Absent: the method names no contract.
   */
  contracts?: (params: unknown[]) => string[];
};

/**
 * Everything the gateway knows about one method, written once: its price, its parameter rule,
 * where its block parameter is, what may be cached and how final it is, and whether it changes
 * state. Every table the stages read (rules, block positions, cache decisions, the methods never
 * sent twice) is derived from these specs.
 */
export type MethodSpec = Omit<MethodRule, 'cost'> & {
  /** Credits; `passthrough`: the network's `passthroughCost`. A network's `methodCosts` overrides it. */
  cost: number | 'passthrough';
  /** What the parameter rule accepts, in words (the README's credit table is generated from it). */
  accepts?: string;
  /** Position of the block parameter (a tag, a number or an EIP-1898 object): tags there are pinned. */
  blockParam?: number;
  /** A block named by number that no upstream has reached is answered null without asking one. */
  nullBeyondHead?: boolean;
  /** Tag pinning for blocks that are not one parameter (eth_getLogs's filter bounds). */
  pinTags?: (params: unknown[], agreed: AgreedHeights) => unknown[];
  /**
   * The answer is the chain head (eth_blockNumber): with agreed tags it is answered from the heads
   * without an upstream call, and an upstream's answer tells its head.
   */
  answersHead?: boolean;
  /**
   * The answer is a transaction or its receipt: its `blockNumber` is a block the upstream that
   * answered has reached, so its head moves there before the next poll or push (a client that read
   * a receipt then reads at `latest` sees that block's state).
   */
  answersMinedBlock?: boolean;
  /**
   * When an answer may be cached, and how final it is: `always` (the same on every block: chain
   * id), `byHash` (names immutable data by hash), `byBlock` (as final as the block its block
   * parameter names; tags that move are not cached), or a function of the parameters. Left out:
   * never cached.
   */
  cache?: 'always' | 'byHash' | 'byBlock' | ((params: unknown[]) => CacheDecision);
  /** Changes state: sent once to one upstream (no retry, no hedge, identical calls not merged). */
  write?: boolean;
};

export type MethodSpecs = Readonly<Record<string, MethodSpec>>;

export type MethodTable = {
  kind: NetworkKind;
  /**
   * Rules by method name, every served method included. A Map, so that a name from a request
   * (`constructor`, `__proto__`, `toString`) can never find a member of Object.prototype.
   */
  rules: ReadonlyMap<string, MethodRule>;
  /** The specs the rules were derived from (after the network's cost overrides). */
  specs: ReadonlyMap<string, MethodSpec>;
  /** The network's `passthroughCost` (WebSocket subscriptions are priced with it). */
  passthroughCost: number;
  /** Methods that change state: never sent twice, never merged. */
  writes: ReadonlySet<string>;
  /** The kind's policy in the forward stage (block tags, future blocks, caching, error shapes). */
  hooks: ChainHooks;
};

/**
 * Whether a request may be served from the cache, and how final its data is. Data is final only
 * at or below the finalized block the upstreams report.
 */
export type CacheDecision =
  | { cacheable: false }
  | {
      cacheable: true;
      /** The block the request names, when it names one by number; else found in the result. */
      block?: number;
      /** Immutable whatever the block (chain id, `earliest`). */
      alwaysFinal?: boolean;
    };

/**
 * What a kind of network decides in the forward stage, which is otherwise the same for every
 * chain (cache → merge identical calls → upstream pool). A hook left out means: nothing to do.
 */
export type ChainHooks = {
  /**
   * With `blockTags: agreed`: rewrites moving tags into the heights every upstream has reached,
   * or answers at once (`answer`) when the heights are the answer.
   */
  pinBlockTags?: (
    method: string,
    params: unknown[],
    agreed: AgreedHeights,
  ) => { params: unknown[] } | { answer: unknown };
  /**
   * The block a request names by number: upstreams behind it are not asked, and when
   * `nullBeyondHeads` a block no upstream has reached is answered with null.
   */
  requestedBlock?: (
    method: string,
    params: unknown[],
  ) => { block: number; nullBeyondHeads: boolean } | undefined;
  /** Whether the answer may be cached (no hook: nothing is cached). */
  cacheDecision?: (method: string, params: unknown[]) => CacheDecision;
  /** The block a result belongs to, for a cacheable request that does not name one. */
  blockOfResult?: (result: unknown) => number | undefined;
  /** Rewrites an upstream's error answer into the shape the spec gives it (e.g. EVM reverts). */
  shapeError?: (error: JsonRpcError) => JsonRpcError;
  /**
   * The head an upstream reported in an answer (its `eth_blockNumber`, or the block of a mined
   * transaction or receipt it returned), so that traffic keeps the gateway's knowledge of each
   * upstream's head fresh between polls. Undefined: no head in it.
   */
  headOfAnswer?: (method: string, result: JsonResult) => number | undefined;
};
