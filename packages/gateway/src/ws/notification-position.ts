// Where a subscription notification stands in the chain, so a moved subscription sends nothing twice.
import type { SubscriptionType } from '../types.ts';

export const LOGS_PER_BLOCK = 1_000_000;

/**
 * A notification's place in the chain: a head's number; a log's block and index as one number.
 * Undefined for what has none, and for a log a reorg removed (`removed: true`), which is passed on
 * as it comes.
 */
export function positionOf(type: SubscriptionType, result: unknown): number | undefined {
  if (type === 'newHeads') return blockNumberOf(result);
  const log = result as { blockNumber?: unknown; logIndex?: unknown; removed?: unknown } | null;
  if (log?.removed === true) return undefined;
  const block = blockNumberOf({ number: log?.blockNumber });
  const index = blockNumberOf({ number: log?.logIndex });
  return block === undefined || index === undefined || index >= LOGS_PER_BLOCK
    ? undefined
    : block * LOGS_PER_BLOCK + index;
}

/** The block number of a newHeads result (a header with a hex `number`). */
export function blockNumberOf(result: unknown): number | undefined {
  const number = (result as { number?: unknown } | null)?.number;
  return typeof number === 'string' && /^0x[0-9a-fA-F]{1,16}$/.test(number)
    ? Number(BigInt(number))
    : undefined;
}
