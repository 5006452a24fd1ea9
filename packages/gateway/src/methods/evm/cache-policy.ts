import { hexNumberOf } from '../../rpc/hex-number.ts';
import type { CacheDecision } from '../types.ts';
import { isBlockTag } from './params.ts';

/**
 * The cache rules of EVM requests, used by the method specs. Tags that move (`latest`, `pending`,
 * `safe`, `finalized`) are never cached as if fixed; a block above every upstream's head is not
 * cached at all (the forward stage checks the head).
 */
export const NOT_CACHEABLE: CacheDecision = { cacheable: false };
const NO = NOT_CACHEABLE;

/** As final as the block a block parameter names (a number, `earliest`, a hash, an EIP-1898 object). */
export function byBlockParameter(value: unknown): CacheDecision {
  if (value === 'earliest') return { cacheable: true, alwaysFinal: true };
  if (isBlockTag(value)) return NO;
  if (typeof value === 'string' && value.startsWith('0x')) {
    return value.length === 66 ? { cacheable: true } : { cacheable: true, block: Number(BigInt(value)) };
  }
  if (typeof value === 'object' && value !== null) {
    const object = value as { blockHash?: string; blockNumber?: unknown };
    if (object.blockHash) return { cacheable: true };
    return byBlockParameter(object.blockNumber);
  }
  return NO;
}

/**
 * The logs of a range fixed by numbers are as final as its last block (a reorg evicts them like a
 * block); a range that reaches a moving tag, or is left open (`latest`), is not cached. A filter
 * by block hash names one block: its block comes from the result.
 */
export function byLogsRange(filter: unknown): CacheDecision {
  if (typeof filter !== 'object' || filter === null || Array.isArray(filter)) return NO;
  const { blockHash, fromBlock, toBlock } = filter as Record<string, unknown>;
  if (blockHash !== undefined) return typeof blockHash === 'string' ? { cacheable: true } : NO;
  const from = fixedBlock(fromBlock);
  const to = fixedBlock(toBlock);
  return from === undefined || to === undefined ? NO : { cacheable: true, block: to };
}

/** A block named by number (or `earliest`, block 0); undefined for tags that move and for anything else. */
function fixedBlock(value: unknown): number | undefined {
  return value === 'earliest' ? 0 : hexNumberOf(value);
}

/** The block number a result belongs to (blocks, transactions, receipts, receipt lists). */
export function blockOfResult(result: unknown): number | undefined {
  const item = Array.isArray(result) ? result[0] : result;
  if (typeof item !== 'object' || item === null) return undefined;
  const record = item as { number?: unknown; blockNumber?: unknown };
  // The node's text: a number it wrote wrong is no block (and no reason to fail the answer).
  return hexNumberOf(record.blockNumber ?? record.number);
}
