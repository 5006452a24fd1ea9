import { invalidParams } from '../../rpc/errors.ts';
import type { ChainContext } from '../../types.ts';
import { expectArity, expectBlockParameter, expectHash } from './params.ts';

/** Blocks one started unit of eth_getLogs's price covers: its price per started 1,000 blocks. */
export const LOGS_BLOCKS_PER_PRICE = 1000;

type LogsFilter = Record<string, unknown>;

/**
 * eth_getLogs's filter, with a cap on the block range of one request (`maxLogsBlockRangeTotal`:
 * however it is split across upstreams, a range makes the nodes work in proportion). Tags count
 * as the head.
 */
export async function checkLogsFilter(params: unknown[], chain: ChainContext, maxBlockRange: number) {
  expectArity(params, 1, 1, ['filter']);
  const filter = params[0];
  if (typeof filter !== 'object' || filter === null || Array.isArray(filter)) {
    throw invalidParams(
      'filter must be an object {fromBlock, toBlock, address, topics} or {blockHash, address, topics}',
    );
  }
  const { fromBlock, toBlock, blockHash } = filter as LogsFilter;
  if (blockHash !== undefined) {
    expectHash(blockHash, 'filter.blockHash');
    if (fromBlock !== undefined || toBlock !== undefined) {
      throw invalidParams('filter.blockHash cannot be combined with fromBlock or toBlock');
    }
    return;
  }
  if (fromBlock !== undefined) expectBlockParameter(fromBlock, 'filter.fromBlock');
  if (toBlock !== undefined) expectBlockParameter(toBlock, 'filter.toBlock');
  const { from, to } = rangeOf(filter as LogsFilter, await chain.headNumber());
  if (to - from + 1 > maxBlockRange) {
    throw invalidParams(
      `eth_getLogs block range too large: ${to - from + 1} blocks (${from} to ${to}), at most ${maxBlockRange} per request (maxLogsBlockRangeTotal); split the range`,
    );
  }
}

/**
 * The price of an eth_getLogs: the method's price per started 1,000 blocks it covers up to the
 * head (a filter by block hash is one block; a range past the head counts to the head).
 */
export async function priceOfLogs(params: unknown[], chain: ChainContext, cost: number): Promise<number> {
  const filter = params[0] as LogsFilter;
  if (filter.blockHash !== undefined) return cost;
  const head = await chain.headNumber();
  const { from, to } = rangeOf(filter, head);
  const blocks = Math.max(1, Math.min(to, head) - from + 1);
  return cost * Math.ceil(blocks / LOGS_BLOCKS_PER_PRICE);
}

/** The numbers of a checked filter's bounds; tags (and an absent bound) count as the head. */
export function rangeOf(filter: LogsFilter, head: number): { from: number; to: number } {
  const at = (value: unknown) =>
    value === undefined || (typeof value === 'string' && !value.startsWith('0x'))
      ? value === 'earliest'
        ? 0
        : head
      : Number(BigInt(value as string));
  return { from: at(filter.fromBlock), to: at(filter.toBlock) };
}
