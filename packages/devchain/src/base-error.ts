/**
 * The base of every error this package throws as a signal: `name` is its class, `code` a stable
 * string (the faucet's answer carries it), `status` the HTTP status where one applies, `cause` the
 * error behind it. As the gateway's `BaseError`: a JSON-RPC error's number is `rpcCode`
 * (`solana/errors.ts`), since these errors are written onto the wire by the dev chain's own
 * server and never reach a dapp as thrown objects.
 */
export class DevchainError extends Error {
  override readonly name: string = 'DevchainError';
  readonly status?: number;

  constructor(
    readonly code: string,
    message: string,
    options: { status?: number; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    if (options.status !== undefined) this.status = options.status;
  }
}
