import { hexNumberOf } from '../../rpc/hex-number.ts';
import type { CacheDecision, ChainHooks } from '../types.ts';
import { blockParameterOf, pinBlockTags } from './block-tags.ts';
import { blockOfResult, byBlockParameter, NOT_CACHEABLE } from './cache-policy.ts';
import { isRevertError, normaliseRevert } from './revert.ts';
import { EVM_METHOD_SPECS } from './spec.ts';

/** A mined transaction's block in a node's JSON text (a pending one has `"blockNumber":null`). */
const MINED_IN = /"blockNumber"\s*:\s*"(0x[0-9a-fA-F]{1,16})"/;

const ALWAYS: CacheDecision = { cacheable: true, alwaysFinal: true };
const BY_HASH: CacheDecision = { cacheable: true };
const specOf = (method: string) =>
  Object.hasOwn(EVM_METHOD_SPECS, method) ? EVM_METHOD_SPECS[method] : undefined;

/** Whether an EVM request may be served from the cache, by its method's spec. */
export function evmCacheDecision(method: string, params: unknown[]): CacheDecision {
  const spec = specOf(method);
  if (spec?.cache === undefined) return NOT_CACHEABLE;
  if (spec.cache === 'always') return ALWAYS;
  if (spec.cache === 'byHash') return BY_HASH;
  if (spec.cache === 'byBlock') return byBlockParameter(params[spec.blockParam ?? 0]);
  return spec.cache(params);
}

/** EVM policy in the forward stage: tag pinning, future blocks, the cache policy, revert errors. */
export const evmHooks: ChainHooks = {
  pinBlockTags(method, params, agreed) {
    // The head every upstream has reached, known from the head polls: no upstream call needed.
    if (specOf(method)?.answersHead) return { answer: `0x${agreed.latest.toString(16)}` };
    return { params: pinBlockTags(method, params, agreed) };
  },
  requestedBlock(method, params) {
    const block = hexNumberOf(blockParameterOf(method, params));
    if (block === undefined) return undefined;
    return { block, nullBeyondHeads: specOf(method)?.nullBeyondHead === true };
  },
  cacheDecision: evmCacheDecision,
  blockOfResult,
  shapeError: (error) => (isRevertError(error) ? normaliseRevert(error) : error),
  headOfAnswer(method, result) {
    const spec = specOf(method);
    // A short hex string: reading it costs nothing worth avoiding.
    if (spec?.answersHead) return hexNumberOf(result.value);
    if (!spec?.answersMinedBlock || result.isNull) return undefined;
    // A receipt or transaction is found in the node's text, not parsed: a 3 KB receipt costs
    // JSON.parse about 5 µs, this search 0.1 µs, on a path with a budget of a few µs per request.
    // Its first `blockNumber` is the transaction's own or one of its logs', which is the same block.
    return hexNumberOf(MINED_IN.exec(result.text)?.[1]);
  },
};
