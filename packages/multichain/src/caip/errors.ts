import { JsonRpcError, providerErrors, rpcErrors } from '@metamask/rpc-errors';
import type { Json } from './types.ts';

/**
 * What the helpers below return: `JsonRpcError`s of `@metamask/rpc-errors`, declared by the members
 * the engine reads (code, message, data) so the public types need no other package's. Throw them
 * from wallet hooks; the engine answers with their code, message and data.
 */
export type WalletRpcError = Error & { readonly code: number; readonly data?: Json };

/** One failing location in the params, e.g. `{ path: ['optionalScopes', 'eip155:1', 'methods'], message }`. */
export type ParamIssue = { path: string[]; message: string };

/** The error codes of the Multichain API, as MetaMask answers them. */
export const MultichainErrorCode = {
  invalidParams: -32602,
  methodNotFound: -32601,
  userRejected: 4001,
  unauthorized: 4100,
  unknown: 5000,
  scopesNotSupported: 5100,
  invalidSessionProperties: 5302,
} as const;

/** -32602 "Invalid method parameter(s)." with every failing path in `data`. */
export function invalidParamsError(issues: ParamIssue[]): WalletRpcError {
  return rpcErrors.invalidParams({
    message: 'Invalid method parameter(s).',
    data: issues as unknown as Json,
  });
}

/** 5100: nothing the dapp asked for is supported by the wallet. */
export function scopesNotSupportedError(): WalletRpcError {
  return new JsonRpcError(MultichainErrorCode.scopesNotSupported, 'Requested scopes are not supported');
}

/** 5302: `sessionProperties` present but empty. */
export function invalidSessionPropertiesError(): WalletRpcError {
  return new JsonRpcError(
    MultichainErrorCode.invalidSessionProperties,
    'Invalid sessionProperties requested',
  );
}

/** 4001: the person rejected the request. */
export function userRejectedError(): WalletRpcError {
  return providerErrors.userRejectedRequest({ message: 'User rejected the request.' });
}

/** 4100: scope or method not authorised in the origin's session. */
export function unauthorizedError(): WalletRpcError {
  return providerErrors.unauthorized({
    message: 'The requested account and/or method has not been authorized by the user.',
  });
}

/** -32601 for any method other than the four of the Multichain API. */
export function methodNotFoundError(): WalletRpcError {
  return rpcErrors.methodNotFound();
}
