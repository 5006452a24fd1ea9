import type { AgreedHeights } from '../../upstream/upstream-pool.ts';
import { BLOCK_PARAMETER_INDEX, EVM_METHOD_SPECS } from './spec.ts';
import { pinnedTag } from './tags.ts';

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
  const pinTags = Object.hasOwn(EVM_METHOD_SPECS, method) ? EVM_METHOD_SPECS[method].pinTags : undefined;
  if (pinTags) return pinTags(params, agreed);
  const index = BLOCK_PARAMETER_INDEX.get(method);
  if (index === undefined || index >= params.length) return params;
  const pinned = pinBlockParameter(params[index], agreed);
  if (pinned === params[index]) return params;
  const copy = [...params];
  copy[index] = pinned;
  return copy;
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
