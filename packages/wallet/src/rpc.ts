import type { Json } from '@portico/multichain';
import { WalletError } from './base-error.ts';

/**
 * A JSON-RPC error as thrown by the wallet's chain code: becomes the top-level error of
 * wallet_invokeMethod, with `code` its JSON-RPC number.
 */
export class RpcError extends WalletError {
  override readonly name: string = 'RpcError';
  readonly code: number;
  readonly data?: Json;
  constructor(code: number, message: string, data?: Json) {
    super('rpc_error', message);
    this.code = code;
    if (data !== undefined) this.data = data;
  }
}

/** The error code of a signing request nobody answered in time (WalletConnect's "Request expired"). */
export const REQUEST_EXPIRED_CODE = 8000;

export type RpcClient = { url: string; request: (method: string, params?: Json) => Promise<Json> };

/** Plain JSON-RPC over HTTP to a chain's RPC URL (in `portico dev`, the gateway's `<baseUrl>/v3/<apiKey>`). */
export function createRpcClient(url: string, options: { timeoutMs?: number } = {}): RpcClient {
  let id = 0;
  return {
    url,
    async request(method, params = []) {
      let response: Response;
      try {
        response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
          signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
        });
      } catch (error) {
        throw new RpcError(-32603, `the chain's RPC endpoint could not be reached: ${String(error)}`);
      }
      const text = await response.text();
      let body: { result?: Json; error?: { code: number; message: string; data?: Json } };
      try {
        body = JSON.parse(text);
      } catch {
        throw new RpcError(
          -32603,
          `the chain's RPC endpoint answered HTTP ${response.status} without JSON-RPC`,
        );
      }
      if (body.error) throw new RpcError(body.error.code, body.error.message, body.error.data);
      if (!('result' in body))
        throw new RpcError(
          -32603,
          `the chain's RPC endpoint answered HTTP ${response.status} without a result`,
        );
      return body.result ?? null;
    },
  };
}
