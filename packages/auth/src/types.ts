export type { ChainConfig } from './params/chain-config.ts';
export type { AuthInitParams } from './params/init.ts';
export type { AuthLoginParams } from './params/login.ts';
export type { AuthLoginConfig, ExtraLoginOptions } from './params/login-config.ts';
export type { MfaSetting, MfaSettings } from './params/mfa-settings.ts';
export {
  BUILD_ENVS,
  type BuildEnv,
  CURVES,
  type Curve,
  DEFAULT_SESSION_TIME,
  LANGUAGES,
  type Language,
  LOGIN_PROVIDERS,
  type LoginProvider,
  MFA_FACTORS,
  MFA_LEVELS,
  type MfaLevel,
  NETWORKS,
  type Network,
  PROVIDER_NAMESPACES,
  type ProviderNamespace,
  THEME_MODES,
  type ThemeModes,
  TYPES_OF_LOGIN,
  type TypeOfLogin,
  V6_NETWORKS,
} from './params/values.ts';
export type { AuthWhiteLabelData } from './params/white-label.ts';

import type { AuthInitParams } from './params/init.ts';
import type { AuthLoginParams } from './params/login.ts';
import type { AuthLoginConfig } from './params/login-config.ts';
import type { V6_NETWORKS } from './params/values.ts';

/** CAIP-2 namespace: `eip155`, `solana`, or any other chain family's namespace. */
export type ChainNamespace = string;

/** v5/v6 login parameters, still accepted: v7 moved `redirectUrl` and `sessionTime` to the init parameters. */
export interface AuthLoginParamsV6 extends AuthLoginParams {
  redirectUrl?: string;
  sessionTime?: number;
}

export interface AuthUserInfo {
  email?: string;
  name?: string;
  profileImage?: string;
  aggregateVerifier?: string;
  verifier: string;
  verifierId: string;
  typeOfLogin: string;
  dappShare?: string;
  /** JWT signed by the auth service; verify it against the service's JWKS. */
  idToken?: string;
  oAuthIdToken?: string;
  oAuthAccessToken?: string;
  isMfaEnabled?: boolean;
}

export interface AuthState {
  privKey?: string;
  ed25519PrivKey?: string;
  sessionId?: string;
  userInfo?: AuthUserInfo;
  error?: string;
  coreKitKey?: string;
  coreKitEd25519PrivKey?: string;
}

/** v6 white-label input, still accepted and converted. */
export interface AuthWhiteLabelDataV6 {
  name?: string;
  logoLight?: string;
  logoDark?: string;
  defaultLanguage?: string;
  dark?: boolean;
  theme?: Record<string, string>;
}

/** v6 init parameters, still accepted and converted. */
export interface AuthInitParamsV6 {
  clientId: string;
  network: (typeof V6_NETWORKS)[number];
  sdkUrl?: string;
  redirectUrl?: string;
  whiteLabel?: AuthWhiteLabelDataV6;
  loginConfig?: Record<string, AuthLoginConfig>;
  useCoreKitKey?: boolean;
  chainNamespace?: ChainNamespace;
}

/** The request the library parks in the session store for the login page. */
export interface LoginRequest {
  options: AuthInitParams & { redirectUrl: string; sdkUrl: string };
  params: AuthLoginParams;
  actionType: 'login';
  /** The origin of the page the library runs on (browsers): the login page names the app after it. */
  origin?: string;
  /** MFA: the device factor this client holds (its id only; the share never leaves the device). */
  mfa?: { deviceId?: string };
  /**
   * A random value of this login attempt, echoed in its result: the library accepts only the
   * result of the login it started (no result injected by another page or link).
   */
  state?: string;
  /** Popup login: the result is marked so that a library loaded in the popup hands it to its opener. */
  popup?: boolean;
  /** How the session is named in the user's session list (the user agent, or `deviceName`). */
  device?: string;
}

/** A share's public index and its value (64 hex). */
export interface MfaShare {
  index: number;
  value: string;
}

/**
 * What a session carries for a user with MFA on, instead of the keys: the service's share and the
 * public bookkeeping the library needs to rebuild the key with a second factor.
 */
export interface MfaSessionData {
  serviceShare: MfaShare;
  /** secp256k1 public key of coreKitKey: the rebuilt key must match it. */
  publicKey: string;
  factors: string[];
  backupIndex?: number;
  dappIndex?: number;
  /** The password share, sealed under the password (scrypt + AES-GCM). */
  passwordShare?: string;
  /** The wrapping key of the presenting device's share; absent when unknown or revoked. */
  deviceKey?: string;
  /** Set when the presenting device was revoked. */
  deviceRevoked?: boolean;
  /** Only on the login that enabled MFA: the device's sealed share for the storage adapter. */
  newDevice?: { deviceId: string; sealed: string };
}

/** The session's content as the service stores it (ECIES to the sessionId). */
export type SessionPayload = AuthState & {
  mfa?: MfaSessionData;
  /** The service's export policy for this app when it withholds the keys (absent: `app`). */
  keyExport?: 'user' | 'off';
};

/**
 * Who may read the user's key, per clientId in the auth service's `exportPolicy` (beyond `002_…txt`):
 * `app` (default, as v7: `getPrivKey()` returns it), `user` (the app never receives it: the user's
 * own export on the auth service's page is still to come), `off` (nobody reads it out).
 */
export type KeyExportPolicy = 'app' | 'user' | 'off';

/**
 * A second factor shown to the auth service by `confirmSecondFactor` (export policy `user` or `off`):
 * the account's password, its backup phrase, a code of its authenticator app, or `{ passkey: true }`
 * for its MFA passkey, which answers on the auth service's own page in a popup (`lang`: one of the
 * login page's languages, else the browser's).
 */
export type SecondFactorInput =
  | { password: string }
  | { backupPhrase: string }
  | { authenticatorCode: string }
  | { passkey: true; lang?: string };

export const DEFAULT_PRIMARY_COLOR = '#0364FF';
