import type { ChainHooks } from '../types.ts';

/**
 * Solana policy in the forward stage: none yet. Slots are not pinned (`blockTags` is `upstream`),
 * nothing is cached, and node errors are relayed as they are.
 */
export const solanaHooks: ChainHooks = {};
