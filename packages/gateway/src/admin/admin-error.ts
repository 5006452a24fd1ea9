/** An admin API refusal: its HTTP status and a stable code (`not_found`, `invalid_input`, …). */
export class AdminError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}
