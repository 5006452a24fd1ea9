import { methodTable } from '../table.ts';
import type { MethodRule, MethodTable } from '../types.ts';
import { evmHooks } from './hooks.ts';
import { DEFAULT_LOGS_LIMITS, EVM_METHOD_SPECS, EVM_SPEC_METHOD_NAMES, evmMethodSpecs } from './spec.ts';

/** The nine EVM methods of the gateway spec, with its credit table. */
export const EVM_METHOD_RULES: Readonly<Record<string, MethodRule>> = Object.fromEntries(
  EVM_SPEC_METHOD_NAMES.map((name) => {
    const { cost, check, prepare, finish } = EVM_METHOD_SPECS[name];
    return [name, { cost: cost as number, check, prepare, finish }];
  }),
);

/** Common methods a wallet or dapp needs beside the nine; forwarded as they are. */
export const EVM_PASSTHROUGH_METHODS: ReadonlySet<string> = new Set(
  Object.keys(EVM_METHOD_SPECS).filter((name) => !Object.hasOwn(EVM_METHOD_RULES, name)),
);

export function evmMethodTable(
  passthroughCost = 80,
  maxLogsBlockRange = DEFAULT_LOGS_LIMITS.maxBlockRange,
  methodCosts?: Readonly<Record<string, number>>,
  maxLogsBlockRangeTotal = DEFAULT_LOGS_LIMITS.maxTotalRange,
): MethodTable {
  const specs = evmMethodSpecs({ maxBlockRange: maxLogsBlockRange, maxTotalRange: maxLogsBlockRangeTotal });
  return methodTable('evm', specs, evmHooks, passthroughCost, methodCosts);
}
