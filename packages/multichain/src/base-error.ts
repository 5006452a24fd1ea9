/** The stable kinds of `MultichainError`: what went wrong, whichever class carries it. */
export type MultichainErrorKind = 'wallet_error' | 'provider_error' | 'timeout' | 'connection';

/**
 * The base of every error this package throws: `name` is its class, `kind` a stable string,
 * `cause` the error behind it.
 *
 * Why `kind` and not a string `code` (the gateway's `BaseError`): the errors a dapp receives from
 * the wallet carry the wallet's JSON-RPC error as a numeric `code` (4001 rejected, 4100
 * unauthorised, 5100 scopes not supported, -32602 ...). EIP-1193's `ProviderRpcError` requires
 * `code: number`, and dapps, like users of `@metamask/multichain-api-client`, test
 * `error.code === 4001`; so `code` stays that number on `MultichainRpcError` and
 * `ProviderRpcError`, and the stable string lives in `kind`.
 */
export class MultichainError extends Error {
  override readonly name: string = 'MultichainError';

  constructor(
    readonly kind: MultichainErrorKind,
    message: string,
    options: { cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
  }
}
