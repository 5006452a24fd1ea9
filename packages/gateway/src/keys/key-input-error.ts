/**
 * A key's field given a value it cannot take (the admin API answers 400 `invalid_input` with the
 * message). A RangeError, as before, so callers that caught those keep working.
 */
export class KeyInputError extends RangeError {
  override name = 'KeyInputError';
}
