/** A mistake in how the command was called or configured: printed without a stack trace. */
export class CliError extends Error {
  override readonly name = 'CliError';
}
