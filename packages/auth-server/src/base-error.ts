/**
 * The base of every error the auth service raises: `name` is its class, `code` a stable string
 * (the codes an HTTP answer carries are listed in docs/http-errors.md), `status` the HTTP status
 * where one applies, `details` the fields an error answer carries beside code and message (e.g.
 * `retryAfter`), `cause` the error behind it. Built-in errors are thrown only for configuration
 * and programming mistakes, never as signals a caller acts on.
 */
export class BaseError extends Error {
  override readonly name: string = 'BaseError';
  readonly status?: number;
  readonly details?: Readonly<Record<string, unknown>>;

  constructor(
    readonly code: Uppercase<string>,
    message: string,
    options: { status?: number; cause?: unknown; details?: Record<string, unknown> } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.status = options.status;
    this.details = options.details;
  }
}
