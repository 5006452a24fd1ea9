import { type DataWithOptionalCause, JsonRpcError, rpcErrors } from '@metamask/rpc-errors';

/** One JSON-RPC call to a chain's `rpcTarget`; rejects with a `JsonRpcError` carrying the node's code. */
export type RpcCall = (method: string, params?: unknown) => Promise<unknown>;

type RpcReply = { result?: unknown; error?: { code?: unknown; message?: unknown; data?: unknown } };

let nextId = 1;

/**
 * A JSON-RPC client over HTTP POST. Errors keep the endpoint's code, message and data (a Portico
 * gateway already strips upstream secrets from them); the URL itself never appears in an error,
 * since it carries the API key.
 */
export function createRpcClient(
  url: () => string,
  fetcher: typeof fetch = (i, init) => fetch(i, init),
): RpcCall {
  return async (method, params) => {
    let response: Response;
    try {
      response = await fetcher(url(), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params: params ?? [] }),
      });
    } catch {
      throw rpcErrors.internal(`The chain's RPC endpoint (rpcTarget) could not be reached (${method})`);
    }
    let reply: RpcReply;
    try {
      reply = (await response.json()) as RpcReply;
    } catch {
      throw rpcErrors.internal(`The chain's RPC endpoint answered HTTP ${response.status} without JSON-RPC`);
    }
    const { error } = reply;
    if (error) {
      const code = typeof error.code === 'number' && Number.isInteger(error.code) ? error.code : -32603;
      const message = typeof error.message === 'string' && error.message ? error.message : 'RPC error';
      throw new JsonRpcError(code, message, error.data as DataWithOptionalCause | undefined);
    }
    if (!('result' in reply)) {
      throw rpcErrors.internal(`The chain's RPC endpoint answered HTTP ${response.status} without a result`);
    }
    return reply.result;
  };
}
