import { BaseError } from '../base-error.ts';

/** A key's field given a value it cannot take (the admin API answers 400 `INVALID_INPUT` with the message). */
export class KeyInputError extends BaseError {
  override readonly name: string = 'KeyInputError';

  constructor(message: string) {
    super('INVALID_INPUT', message, { status: 400 });
  }
}
