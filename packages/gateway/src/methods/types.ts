import type { ChainContext, NetworkKind } from '../types.ts';

/** The rules and price of one JSON-RPC method on one kind of network. */
export type MethodRule = {
  /** Credits drawn from the key's daily balance. */
  cost: number;
  /** Throws GatewayError('invalidParams') with a message naming the parameter and the rule. */
  check?: (params: unknown[], chain: ChainContext) => void | Promise<void>;
  /** Rewrites valid parameters into the form every upstream accepts (e.g. decimal → hex). */
  prepare?: (params: unknown[]) => unknown[];
  /** Adjusts a successful result to the spec's semantics (e.g. the pending block's null fields). */
  finish?: (result: unknown, params: unknown[]) => unknown;
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
};
