import { BaseError } from '../base-error.ts';

/** Who the verifier says logged in. */
export interface Identity {
  verifierId: string;
  /** The claim the id came from when it is not the verifier's own verifierIdField (keys kept apart per claim). */
  claim?: string;
  email?: string;
  name?: string;
  profileImage?: string;
  oAuthIdToken?: string;
  oAuthAccessToken?: string;
}

/** A refused login (401); the message is shown to the user and returned to the app. */
export class VerifierError extends BaseError {
  override readonly name: string = 'VerifierError';
  declare readonly code: 'LOGIN_FAILED' | 'USER_CANCELLED';

  constructor(message: string, code: 'LOGIN_FAILED' | 'USER_CANCELLED' = 'LOGIN_FAILED', cause?: unknown) {
    super(code, message, { status: 401, cause });
  }
}
