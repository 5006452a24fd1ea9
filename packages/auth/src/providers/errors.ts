import { JsonRpcError, rpcErrors } from '@metamask/rpc-errors';

/**
 * EIP-1193's `ProviderRpcError`: what a provider's caller catches. At run time these are
 * `@metamask/rpc-errors` errors; declared by their members so the public types need no other
 * package's declarations (those of `@metamask/utils` fail a strict check under newer libs).
 */
export type ProviderError = Error & { readonly code: number; readonly data?: unknown };

/**
 * The error a provider's caller gets: a `JsonRpcError` (or an `EthereumProviderError`) as it is,
 * else the first one in the `cause` chain (a node's error wrapped by viem keeps its code, e.g. 3 with
 * the revert data), else -32603 with the error's short message.
 */
export function toProviderError(error: unknown): ProviderError {
  for (let e: unknown = error, depth = 0; e && depth < 10; depth++) {
    if (e instanceof JsonRpcError) return e as ProviderError;
    e = (e as { cause?: unknown }).cause;
  }
  const message =
    (error as { shortMessage?: unknown }).shortMessage ??
    (error instanceof Error ? error.message : String(error));
  return rpcErrors.internal(typeof message === 'string' && message ? message : 'Internal error');
}
