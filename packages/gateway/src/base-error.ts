/**
 * The base of every error the gateway raises: `name` is its class, `code` a stable string
 * (documented where it reaches a client: JSON-RPC error kinds, the admin API's codes), `status` the
 * HTTP status where one applies, `cause` the error behind it. Built-in errors are thrown only for
 * programming mistakes (a cost that is not a count), never as signals a caller acts on.
 */
export class BaseError extends Error {
  override readonly name: string = 'BaseError';
  readonly status?: number;

  constructor(
    readonly code: string,
    message: string,
    options: { status?: number; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.status = options.status;
  }
}
