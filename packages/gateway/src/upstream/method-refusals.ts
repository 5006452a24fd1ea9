import { BaseError } from '../base-error.ts';
import type { JsonRpcError } from '../rpc/jsonrpc.ts';

/**
 * Codes that mean "this node does not serve the method" whatever the message: -32601 (JSON-RPC,
 * geth, Nethermind, Besu, Solana), -32004 (EIP-1474 "Method not supported"), -32604 (Besu "Method
 * not enabled").
 */
const REFUSAL_CODES = new Set([-32601, -32004, -32604]);

/**
 * Messages that say the same under another code: ganache answers -32700 "The method X does not
 * exist/is not available", hosted nodes -32600/-32000 "Unsupported method: X", "method X not
 * allowed", "the method X is not supported on this plan".
 */
const REFUSAL_MESSAGES = [
  /\bmethod\b.*\b(not found|does not exist|not available|not supported|unsupported|not implemented|not enabled|not allowed|is disabled)\b/i,
  /\b(unsupported|unknown|unavailable|disabled) (rpc )?method\b/i,
];

/**
 * A revert's message carries the contract's own reason ("execution reverted: method not allowed"):
 * that is the call's answer, never a node refusing the method.
 */
const REVERT =
  /^(Error: )?(execution reverted|VM Exception while processing transaction|Transaction reverted)\b/i;

/** Whether a node's error says it does not serve the method (not that the request is wrong). */
export function isMethodRefusal(error: JsonRpcError): boolean {
  if (REFUSAL_CODES.has(error.code)) return true;
  if (error.code === 3 || REVERT.test(error.message)) return false;
  return REFUSAL_MESSAGES.some((pattern) => pattern.test(error.message));
}

/**
 * The methods one upstream refused, each remembered for `ttlMs` (then tried there again: a node
 * may be upgraded or reconfigured), so that a refused method is not sent there on every request.
 */
export class MethodRefusals {
  private readonly until = new Map<string, number>();

  constructor(private readonly ttlMs = 600_000) {}

  note(method: string, now = Date.now()) {
    this.until.set(method, now + this.ttlMs);
  }

  refuses(method: string, now = Date.now()): boolean {
    const until = this.until.get(method);
    if (until === undefined) return false;
    if (until > now) return true;
    this.until.delete(method);
    return false;
  }

  /** The methods refused now, sorted (for /readyz, metrics and the admin API). */
  list(now = Date.now()): string[] {
    return [...this.until.keys()].filter((method) => this.refuses(method, now)).sort();
  }
}

/** An upstream answered that it does not serve the method: try another, never held against it. */
export class MethodRefused extends BaseError {
  override readonly name: string = 'MethodRefused';

  constructor(message: string) {
    super('method_refused', message);
  }
}
