import type { NetworkKind } from '../types.ts';
import type { ChainHooks, MethodRule, MethodSpec, MethodSpecs, MethodTable } from './types.ts';

/**
 * A network's method table from its kind's specs: prices resolved (`passthrough` → the network's
 * `passthroughCost`, then the network's `methodCosts` overrides), rules by name, the writes.
 */
export function methodTable(
  kind: NetworkKind,
  specs: MethodSpecs,
  hooks: ChainHooks,
  passthroughCost: number,
  methodCosts: Readonly<Record<string, number>> = {},
): MethodTable {
  const resolved = new Map<string, MethodSpec>();
  const rules = new Map<string, MethodRule>();
  const writes = new Set<string>();
  for (const [name, spec] of Object.entries(specs)) {
    const cost = Object.hasOwn(methodCosts, name)
      ? methodCosts[name]
      : spec.cost === 'passthrough'
        ? passthroughCost
        : spec.cost;
    resolved.set(name, { ...spec, cost });
    rules.set(name, {
      cost,
      check: spec.check,
      prepare: spec.prepare,
      finish: spec.finish,
      serve: spec.serve,
      price: spec.price,
      contracts: spec.contracts,
    });
    if (spec.write) writes.add(name);
  }
  return { kind, specs: resolved, rules, passthroughCost, writes, hooks };
}
