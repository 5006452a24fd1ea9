import { invalidParams } from '../../rpc/errors.ts';
import type { ChainContext } from '../../types.ts';
import { expectArity, expectBlockParameter, expectHash } from './params.ts';

/**
 * eth_getLogs's filter, with a cap on the block range of one request (nodes and incumbents cap it
 * too: a wide range is the easiest way to make a node work for seconds). Tags count as the head.
 */
export async function checkLogsFilter(params: unknown[], chain: ChainContext, maxBlockRange: number) {
  expectArity(params, 1, 1, ['filter']);
  const filter = params[0];
  if (typeof filter !== 'object' || filter === null || Array.isArray(filter)) {
    throw invalidParams(
      'filter must be an object {fromBlock, toBlock, address, topics} or {blockHash, address, topics}',
    );
  }
  const { fromBlock, toBlock, blockHash } = filter as Record<string, unknown>;
  if (blockHash !== undefined) {
    expectHash(blockHash, 'filter.blockHash');
    if (fromBlock !== undefined || toBlock !== undefined) {
      throw invalidParams('filter.blockHash cannot be combined with fromBlock or toBlock');
    }
    return;
  }
  if (fromBlock !== undefined) expectBlockParameter(fromBlock, 'filter.fromBlock');
  if (toBlock !== undefined) expectBlockParameter(toBlock, 'filter.toBlock');
  const head = await chain.headNumber();
  const at = (value: unknown) =>
    value === undefined || (typeof value === 'string' && !value.startsWith('0x'))
      ? value === 'earliest'
        ? 0
        : head
      : Number(BigInt(value as string));
  const from = at(fromBlock);
  const to = at(toBlock);
  if (to - from + 1 > maxBlockRange) {
    throw invalidParams(
      `eth_getLogs block range too large: ${to - from + 1} blocks (${from} to ${to}), at most ${maxBlockRange} per request; split the range`,
    );
  }
}
