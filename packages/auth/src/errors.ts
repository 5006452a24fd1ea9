export type AuthErrorCode =
  | 'NO_USER_FOUND'
  | 'USER_CANCELLED'
  | 'SESSION_EXPIRED'
  | 'LOGIN_FAILED'
  | 'SERVICE_ERROR'
  | 'NO_BROWSER'
  | 'MFA_REQUIRED'
  | 'MFA_SETUP_REQUIRED'
  | 'MFA_FACTOR_INVALID'
  /** A typed factor refused while the service's wait runs (a right one too): the message says until when. */
  | 'TOO_MANY_ATTEMPTS'
  /** Another tab or instance renewed this session a moment ago: read the stored sessionId again. */
  | 'SESSION_ROTATED'
  /** An init or login parameter with an invalid value (`AuthValidationError`: `field`, `allowed`). */
  | 'INVALID_PARAMS'
  /** `@portico/auth/server`: the auth service's JWKS could not be fetched (`AuthServiceUnreachableError`). */
  | 'AUTH_SERVICE_UNREACHABLE';

/** Errors of the client library; `code` is stable, `message` is for people. */
export class AuthError extends Error {
  override name = 'AuthError';
  readonly code: AuthErrorCode;
  constructor(code: AuthErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }

  static noUserFound(): AuthError {
    return new AuthError('NO_USER_FOUND', 'No user found, please login again!');
  }
  static userCancelled(): AuthError {
    return new AuthError('USER_CANCELLED', 'User cancelled.');
  }
  static sessionExpired(): AuthError {
    return new AuthError('SESSION_EXPIRED', 'Session expired, please login again!');
  }
}

/** An init or login parameter with an invalid value; names the field and what is allowed. */
export class AuthValidationError extends AuthError {
  override name = 'AuthValidationError';
  readonly field: string;
  readonly allowed: string;
  constructor(field: string, allowed: string, got?: unknown) {
    const shown = got === undefined ? 'missing' : JSON.stringify(got);
    super('INVALID_PARAMS', `Invalid ${field}: ${shown}. Allowed: ${allowed}`);
    this.field = field;
    this.allowed = allowed;
  }
}
