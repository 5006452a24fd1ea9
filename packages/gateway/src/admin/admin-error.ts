import { BaseError } from '../base-error.ts';

/**
 * An admin API refusal: its HTTP status and a stable UPPER_SNAKE code (`NOT_FOUND`, `INVALID_INPUT`,
 * …; docs/http-errors.md lists them).
 */
export class AdminError extends BaseError {
  override readonly name: string = 'AdminError';
  declare readonly status: number;
  declare readonly code: Uppercase<string>;

  constructor(status: number, code: Uppercase<string>, message: string) {
    super(code, message, { status });
  }
}
