import type { NetworkKind } from '../types.ts';
import { evmMethodTable } from './evm/methods.ts';
import { solanaMethodTable } from './solana/methods.ts';
import type { MethodTable } from './types.ts';

/** The methods, rules and prices of a kind of network. */
export function methodTableFor(
  kind: NetworkKind,
  passthroughCost: number,
  maxLogsBlockRange?: number,
  methodCosts?: Readonly<Record<string, number>>,
  maxLogsBlockRangeTotal?: number,
): MethodTable {
  if (kind === 'evm')
    return evmMethodTable(passthroughCost, maxLogsBlockRange, methodCosts, maxLogsBlockRangeTotal);
  if (kind === 'solana') return solanaMethodTable(passthroughCost, methodCosts);
  throw new Error(`networks of kind ${kind} are not supported yet`);
}
