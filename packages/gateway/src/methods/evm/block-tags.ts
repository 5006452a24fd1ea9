import type { AgreedHeights } from '../../upstream/upstream-pool.ts';
import { BLOCK_PARAMETER_INDEX } from './spec.ts';

const hex = (n: number) => `0x${n.toString(16)}`;

/** The block parameter of a call (undefined when the method takes none or it was left out). */
export function blockParameterOf(method: string, params: unknown[]): unknown {
  const index = BLOCK_PARAMETER_INDEX.get(method);
  const value = index === undefined ? undefined : params[index];
  if (typeof value === 'object' && value !== null && Object.hasOwn(value, 'blockNumber'))
    return (value as { blockNumber: unknown }).blockNumber;
  return value;
}

/**
 * Rewrites `latest`, `safe` and `finalized` into the block numbers every upstream has reached, so
 * that the answer does not depend on which upstream serves it (`pending` and `earliest` stay).
 * Returns the parameters unchanged (the same array) when there is nothing to rewrite.
 */
export function pinBlockTags(method: string, params: unknown[], agreed: AgreedHeights): unknown[] {
  if (method === 'eth_getLogs') return pinLogsFilter(params, agreed);
  const index = BLOCK_PARAMETER_INDEX.get(method);
  if (index === undefined || index >= params.length) return params;
  const pinned = pinBlockParameter(params[index], agreed);
  if (pinned === params[index]) return params;
  const copy = [...params];
  copy[index] = pinned;
  return copy;
}

/** The number a tag stands for; undefined when the tag is not pinned or its height is unknown. */
function pinnedTag(tag: unknown, agreed: AgreedHeights): string | undefined {
  const height =
    tag === 'latest'
      ? agreed.latest
      : tag === 'safe'
        ? agreed.safe
        : tag === 'finalized'
          ? agreed.finalized
          : -1;
  return height >= 0 ? hex(height) : undefined;
}

function pinBlockParameter(value: unknown, agreed: AgreedHeights): unknown {
  const pinned = pinnedTag(value, agreed);
  if (pinned !== undefined) return pinned;
  if (typeof value === 'object' && value !== null && Object.hasOwn(value, 'blockNumber')) {
    const inner = pinnedTag((value as { blockNumber: unknown }).blockNumber, agreed);
    if (inner !== undefined) return { ...value, blockNumber: inner };
  }
  return value;
}

/** An eth_getLogs filter without blockHash covers `latest` when a bound is absent: both get pinned. */
function pinLogsFilter(params: unknown[], agreed: AgreedHeights): unknown[] {
  const filter = params[0];
  if (
    typeof filter !== 'object' ||
    filter === null ||
    Array.isArray(filter) ||
    Object.hasOwn(filter, 'blockHash')
  )
    return params;
  const { fromBlock = 'latest', toBlock = 'latest' } = filter as { fromBlock?: unknown; toBlock?: unknown };
  const from = pinnedTag(fromBlock, agreed);
  const to = pinnedTag(toBlock, agreed);
  if (from === undefined && to === undefined) return params;
  return [{ ...filter, fromBlock: from ?? fromBlock, toBlock: to ?? toBlock }, ...params.slice(1)];
}
