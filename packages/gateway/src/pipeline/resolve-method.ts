import type { MethodRule } from '../methods/types.ts';
import type { Network } from '../network.ts';
import { GatewayError } from '../rpc/errors.ts';

/** Resolve: the method must be served on this network; its rule gives the price and the checks. */
export function resolveMethod(network: Network, method: string): MethodRule {
  const rule = network.methods.rules.get(method);
  if (rule) return rule;
  // The name is the client's: a megabyte of it is not echoed back.
  const shown = method.length > 100 ? `${method.slice(0, 100)}…` : method;
  throw new GatewayError(
    'methodNotFound',
    `Method not found: ${shown} is not served on network ${network.name}`,
  );
}
