export type PorticoReactErrorCode =
  /** A hook ran outside `<PorticoAuthProvider>`. */
  | 'NO_AUTH_PROVIDER'
  /** The `Auth` instance is not there yet (server render, hydration, `Auth.create` still running or failed). */
  | 'AUTH_NOT_READY'
  /** `<PorticoAuthProvider auth>` was given another instance on a later render. */
  | 'AUTH_CHANGED'
  /** wagmi connector: no session (reconnecting without one, or a login that gave no provider). */
  | 'NO_SESSION'
  /** wagmi connector: the auth instance's chainConfig is not an eip155 chain. */
  | 'NOT_EIP155';

/** Errors of the React bindings; `code` is stable, `message` is for people. */
export class PorticoReactError extends Error {
  override name = 'PorticoReactError';
  readonly code: PorticoReactErrorCode;
  constructor(code: PorticoReactErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}
