import type { JwtVerifierConfig } from './jwt.ts';
import type { OidcVerifierConfig } from './oidc.ts';

/** Several sub-verifiers sharing one key per user (the loginConfig entry's `verifierSubIdentifier`). */
export interface AggregateVerifierConfig {
  type: 'aggregate';
  subVerifiers: string[];
}

/** The built-in development login: a form that accepts any email. Never for production. */
export interface DevVerifierConfig {
  type: 'dev';
  name?: string;
}

/**
 * Passkeys (WebAuthn) on the login page, beyond `002_…txt`. The relying party is the service itself:
 * RP ID the host name of `publicUrl`, origin its origin. A passkey signs in to the account it was
 * registered for: one linked by a signed-in user (`auth.linkPasskey()`) gets that account's key
 * (the key of the verifier the user had signed in with), one registered on the login page without
 * a session makes a fresh account of this verifier.
 */
export interface PasskeyVerifierConfig {
  type: 'passkey';
  /** The button's and the passkey dialog's name of the service (default `Passkey`, RP name `Portico`). */
  name?: string;
  /** The relying party's name shown by the browser (default `Portico`). */
  rpName?: string;
  /** Whether the login page offers to create a passkey as a fresh account (default true). */
  allowRegistration?: boolean;
  /** `required` (default: a PIN or biometric each time) or `preferred`. */
  userVerification?: 'required' | 'preferred';
  /** How long a challenge may be answered, in seconds (default 300, at most 600). */
  timeoutSeconds?: number;
}

export type VerifierConfig =
  | OidcVerifierConfig
  | JwtVerifierConfig
  | AggregateVerifierConfig
  | DevVerifierConfig
  | PasskeyVerifierConfig;
