/** The stable kinds of `WalletError`. */
export type WalletErrorKind = 'rpc_error' | 'request_refused';

/**
 * The base of every error this package throws: `name` is its class, `kind` a stable string,
 * `status` the HTTP status where one applies, `cause` the error behind it.
 *
 * Why `kind` and not a string `code` (the gateway's `BaseError`): `RpcError` is a JSON-RPC error
 * that reaches the dapp as the error of wallet_invokeMethod. The multichain engine answers with its
 * `code`, which must be the JSON-RPC number (4001, 4100, -32602, 8000 ...) that dapps and
 * EIP-1193 providers test (`error.code === 4001`), so `code` stays that number and the stable
 * string lives in `kind`.
 */
export class WalletError extends Error {
  override readonly name: string = 'WalletError';
  readonly status?: number;

  constructor(
    readonly kind: WalletErrorKind,
    message: string,
    options: { status?: number; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    if (options.status !== undefined) this.status = options.status;
  }
}
