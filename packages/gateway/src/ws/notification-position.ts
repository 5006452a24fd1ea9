// Where a subscription notification stands in the chain, so a moved subscription sends nothing twice.
import { hexNumberOf } from '../rpc/hex-number.ts';
import type { SubscriptionType } from '../types.ts';

export const LOGS_PER_BLOCK = 1_000_000;

/**
 * A notification's place in the chain: a head's number; a log's block and index as one number.
 * Undefined for what has none, and for a log a reorg removed (`removed: true`), which is passed on
 * as it comes.
 */
export function positionOf(type: SubscriptionType, result: unknown): number | undefined {
  if (type === 'newHeads') return headNumberOf(result);
  const log = result as { blockNumber?: unknown; logIndex?: unknown; removed?: unknown } | null;
  if (log?.removed === true) return undefined;
  const block = hexNumberOf(log?.blockNumber);
  const index = hexNumberOf(log?.logIndex);
  return block === undefined || index === undefined || index >= LOGS_PER_BLOCK
    ? undefined
    : block * LOGS_PER_BLOCK + index;
}

/** The block number of a newHeads result (a header with a hex `number`). */
export function headNumberOf(result: unknown): number | undefined {
  return hexNumberOf((result as { number?: unknown } | null)?.number);
}
