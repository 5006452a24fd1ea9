import type { AgreedHeights } from '../../upstream/upstream-pool.ts';

/** The number a tag stands for; undefined when the tag is not pinned or its height is unknown. */
export function pinnedTag(tag: unknown, agreed: AgreedHeights): string | undefined {
  const height =
    tag === 'latest'
      ? agreed.latest
      : tag === 'safe'
        ? agreed.safe
        : tag === 'finalized'
          ? agreed.finalized
          : -1;
  return height >= 0 ? `0x${height.toString(16)}` : undefined;
}

/** An eth_getLogs filter without blockHash covers `latest` when a bound is absent: both get pinned. */
export function pinLogsFilter(params: unknown[], agreed: AgreedHeights): unknown[] {
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
