import type { Json } from '../caip/types.ts';

/** The wallet answered with a JSON-RPC error (e.g. 4001 rejected, 4100 unauthorised, 5100 unsupported). */
export class MultichainRpcError extends Error {
  override name = 'MultichainRpcError';
  readonly code: number;
  readonly data?: Json;
  constructor(method: string, error: { code: number; message: string; data?: Json }) {
    super(`${method} failed: ${error.message} (code ${error.code})`);
    this.code = error.code;
    this.data = error.data;
  }
}

/** The wallet did not answer within the timeout. */
export class MultichainTimeoutError extends Error {
  override name = 'MultichainTimeoutError';
  constructor(method: string, timeoutMs: number) {
    super(`${method} got no answer from the wallet within ${timeoutMs} ms`);
  }
}

/** The connection to the wallet is down (and could not be re-established). */
export class MultichainConnectionError extends Error {
  override name = 'MultichainConnectionError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
