// The public types around `Auth`: its runtime options, what a login resolves with, the session
// expiry event.
import type { MfaFactor } from './mfa-rules.ts';
import type { SessionCookieOption } from './session-cookie.ts';
import type { StorageAdapter } from './storage.ts';
import type { AuthState } from './types.ts';

/** Runtime hooks: none needed in a browser; outside one, `openUrl` plays the system browser. */
export interface AuthOptions {
  /** Where the sessionId is kept (default: localStorage in browsers, memory elsewhere). */
  storage?: StorageAdapter;
  /** Storage key of the sessionId (default `portico-auth:<clientId>`). */
  storageKey?: string;
  /**
   * Opens the login page and resolves with the URL the page finally sent the browser to (the one
   * starting with `redirectUrl`), like ASWebAuthenticationSession; reject with `AuthError.userCancelled()`
   * when the user closes it. Default in browsers: a popup (`uxMode: 'popup'`) or a full-page redirect.
   */
  openUrl?: (url: string, redirectUrl: string) => Promise<string>;
  uxMode?: 'popup' | 'redirect';
  /** Deprecation and adjustment warnings (default `console.warn`). */
  onWarning?: (message: string) => void;
  fetch?: typeof fetch;
  /**
   * Renew the session while the app is used, once half its idle window is gone (default true).
   * Off: the session ends after \`sessionTime\` unless the app calls \`refreshSession()\`.
   */
  autoRenew?: boolean;
  /**
   * How sessions of this device are named in `listSessions()` (at most 200 characters; default the
   * user agent, e.g. the browser's).
   */
  deviceName?: string;
  /**
   * Cookie mode for server-rendered apps (beyond `002_…txt`): the library posts the session's
   * idToken to this endpoint of the app (made with `createSessionCookieHandler` of
   * `@portico/auth/server`) after login, on restore and after every renewal, and DELETEs it on
   * logout and expiry; the app's server then reads the user from an HttpOnly cookie. `login()` and
   * `refreshSession()` resolve once the cookie is set.
   */
  sessionCookie?: SessionCookieOption;
}

/** Said at init when the social-backup factor is enabled. */
export const SOCIAL_BACKUP_WARNING =
  'mfaSettings.socialBackupFactor is enabled: the auth service then holds two shares of the key (its own and the social backup), so the service alone could rebuild the key. Leave it off if no single party may hold the key.';

/**
 * What `login()` resolves with: the state, plus the backup phrase on the login that enabled MFA
 * (shown once) and the v5/v6 `appState` the login was given.
 */
export type LoginOutcome = AuthState & { backupPhrase?: string; appState?: string };

/** A live session reached its `sessionTime`. */
export interface SessionExpiredEvent {
  /** When the instance noticed (ms since the epoch). */
  expiredAt: number;
}

/** What the user adds to an authenticator app (shown once: the service keeps the secret sealed). */
export interface AuthenticatorEnrolment {
  uri: string;
  qrSvg: string;
}

/** Said at init when the authenticator factor is enabled. */
export const AUTHENTICATOR_WARNING =
  "mfaSettings.authenticatorFactor is enabled: the auth service checks the codes, so it holds the authenticator secret and that factor's share beside its own, and could rebuild the key alone. Leave it off if no single party may hold the key.";

/** Said at init when the passkey factor is enabled (beyond `002_…txt`). */
export const PASSKEY_FACTOR_WARNING =
  "mfaSettings.passkeysFactor is enabled: the auth service checks the passkey's answers, so it holds that factor's share beside its own, and could rebuild the key alone. Leave it off if no single party may hold the key.";

/** A second login for the social-backup factor: a JWT from another verifier configured on the service. */
export interface SocialBackupLogin {
  verifier: string;
  id_token: string;
}

/**
 * MFA input of `login()`. Recovery on a device without a (valid) device share: one of
 * `backupPhrase`, `password`, `socialBackup` (else the dappShare of the login parameters, else this
 * device's share). Setup, when the service asks for it: `setup`.
 */
export interface MfaLoginInput {
  backupPhrase?: string;
  password?: string;
  /** The 6-digit code of the user's authenticator app (beyond `002_…txt`). */
  authenticatorCode?: string;
  /**
   * A passkey's answer as the login page's recovery screen hands it over (beyond `002_…txt`): made
   * by the page on the auth service's origin, never by the app.
   */
  passkeyAssertion?: string;
  socialBackup?: SocialBackupLogin;
  /** After recovering with another factor, register this device with a new device share (default true). */
  newDeviceShare?: boolean;
  /** Factors to set up when the login asks (mandatory ones must be there); `skip: true` skips when allowed. */
  setup?:
    | {
        factors: MfaFactor[];
        password?: string;
        socialBackup?: SocialBackupLogin;
        /**
         * With `authenticatorFactor`: show the user `uri` (`otpauth://`, or `qrSvg`, its QR code as
         * SVG) to add to their authenticator app, and resolve with the code the app then shows.
         */
        authenticator?: (enrol: AuthenticatorEnrolment) => Promise<string> | string;
      }
    | { skip: true };
}
