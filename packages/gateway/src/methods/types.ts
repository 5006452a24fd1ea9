import type { JsonResult } from '../rpc/json-result.ts';
import type { JsonRpcError } from '../rpc/jsonrpc.ts';
import type { ChainContext, NetworkKind } from '../types.ts';
import type { AgreedHeights } from '../upstream/upstream-pool.ts';

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
};

export type MethodTable = {
  kind: NetworkKind;
  /**
   * Rules by method name. A Map, so that a name from a request (`constructor`, `__proto__`,
   * `toString`) can never find a member of Object.prototype.
   */
  rules: ReadonlyMap<string, MethodRule>;
  /** Methods served without rules of their own (pass-through), and their cost. */
  passthrough: { methods: ReadonlySet<string> | 'any'; cost: number };
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
   * The head an upstream reported in an answer (its `eth_blockNumber`), so that traffic keeps the
   * gateway's knowledge of each upstream's head fresh between polls. Undefined: no head in it.
   */
  headOfAnswer?: (method: string, result: JsonResult) => number | undefined;
};
