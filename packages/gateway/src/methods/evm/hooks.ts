import type { ChainHooks } from '../types.ts';
import { blockParameterOf, pinBlockTags } from './block-tags.ts';
import { blockOfResult, evmCacheDecision } from './cache-policy.ts';
import { blockNumberOf } from './params.ts';
import { isRevertError, normaliseRevert } from './revert.ts';

/** Methods whose first parameter names a block by number: beyond every upstream's head they are null. */
const BLOCK_NUMBER_METHODS = new Set([
  'eth_getBlockByNumber',
  'eth_getBlockReceipts',
  'eth_getTransactionByBlockNumberAndIndex',
  'eth_getUncleByBlockNumberAndIndex',
]);

/** EVM policy in the forward stage: tag pinning, future blocks, the cache policy, revert errors. */
export const evmHooks: ChainHooks = {
  pinBlockTags(method, params, agreed) {
    // The head every upstream has reached, known from the head polls: no upstream call needed.
    if (method === 'eth_blockNumber') return { answer: `0x${agreed.latest.toString(16)}` };
    return { params: pinBlockTags(method, params, agreed) };
  },
  requestedBlock(method, params) {
    const block = blockNumberOf(blockParameterOf(method, params));
    return block === undefined ? undefined : { block, nullBeyondHeads: BLOCK_NUMBER_METHODS.has(method) };
  },
  cacheDecision: evmCacheDecision,
  blockOfResult,
  shapeError: (error) => (isRevertError(error) ? normaliseRevert(error) : error),
  // The answer is a short hex string: reading it costs nothing worth avoiding.
  headOfAnswer: (method, result) => (method === 'eth_blockNumber' ? blockNumberOf(result.value) : undefined),
};
