import { BaseError } from '../base-error.ts';
import type { JsonRpcError } from '../rpc/jsonrpc.ts';
import type { UpstreamReply } from './http-upstream.ts';

/**
 * How nodes say they no longer hold the state of an older block (pruned): geth and erigon
 * "missing trie node", geth "state histories haven't been fully indexed", Nethermind "No state
 * available", Besu "World state unavailable", reth "state at block … is pruned", anvil with
 * --prune-history "BlockOutOfRangeError: block height is N but requested was M", and "header not
 * found" for a block a pruned node dropped. Only read as such for a block below the node's head.
 */
const MISSING_STATE = [
  /missing trie node/i,
  /header not found/i,
  /\bstate\b.*\b(not available|unavailable|pruned|not found)\b/i,
  /\bpruned\b/i,
  /\bBlockOutOfRangeError\b/,
  /historical state .*not available/i,
];

/** Whether a node's error says it does not hold the state of the block the call named. */
export function isMissingState(error: JsonRpcError): boolean {
  return MISSING_STATE.some((pattern) => pattern.test(error.message));
}

/** An upstream does not hold the state the call needs: try another; `reply` is its answer. */
export class MissingState extends BaseError {
  override readonly name: string = 'MissingState';
  constructor(readonly reply: UpstreamReply) {
    super('missing_state', 'missing state');
  }
}
