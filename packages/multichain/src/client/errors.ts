import { MultichainError } from '../base-error.ts';
import type { Json } from '../caip/types.ts';

/**
 * The wallet answered with a JSON-RPC error: `code` is its number, as the wallet sent it (e.g. 4001
 * rejected, 4100 unauthorised, 5100 unsupported).
 */
export class MultichainRpcError extends MultichainError {
  override readonly name: string = 'MultichainRpcError';
  readonly code: number;
  readonly data?: Json;
  constructor(method: string, error: { code: number; message: string; data?: Json }) {
    super('wallet_error', `${method} failed: ${error.message} (code ${error.code})`);
    this.code = error.code;
    this.data = error.data;
  }
}

/** The wallet did not answer within the timeout. */
export class MultichainTimeoutError extends MultichainError {
  override readonly name: string = 'MultichainTimeoutError';
  constructor(method: string, timeoutMs: number) {
    super('timeout', `${method} got no answer from the wallet within ${timeoutMs} ms`);
  }
}

/** The connection to the wallet is down (and could not be re-established). */
export class MultichainConnectionError extends MultichainError {
  override readonly name: string = 'MultichainConnectionError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('connection', message, options);
  }
}
