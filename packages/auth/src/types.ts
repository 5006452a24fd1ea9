/** Networks a v7 client may log in from (v6 lacks the two sapphire ones). */
export const NETWORKS = [
  'mainnet',
  'aqua',
  'testnet',
  'cyan',
  'sapphire_devnet',
  'sapphire_mainnet',
] as const;
export type Network = (typeof NETWORKS)[number];
/** The v6 network set. */
export const V6_NETWORKS = ['mainnet', 'aqua', 'testnet', 'cyan'] as const;

/** Auth service environments; `production` is the default. */
export const BUILD_ENVS = ['production', 'staging', 'testing'] as const;
export type BuildEnv = (typeof BUILD_ENVS)[number];

/** The nine login-page languages. */
export const LANGUAGES = ['en', 'de', 'ja', 'ko', 'zh', 'es', 'fr', 'pt', 'nl'] as const;
export type Language = (typeof LANGUAGES)[number];

export const THEME_MODES = ['auto', 'light', 'dark'] as const;
export type ThemeModes = (typeof THEME_MODES)[number];

/** Built-in login providers; any key of `loginConfig` is accepted as well. */
export const LOGIN_PROVIDERS = [
  'google',
  'facebook',
  'reddit',
  'discord',
  'twitch',
  'apple',
  'line',
  'github',
  'kakao',
  'linkedin',
  'twitter',
  'weibo',
  'wechat',
  'email_passwordless',
  'jwt',
] as const;
export type LoginProvider = (typeof LOGIN_PROVIDERS)[number];

/** `typeOfLogin` of a `loginConfig` entry. */
export const TYPES_OF_LOGIN = [
  'google',
  'facebook',
  'reddit',
  'discord',
  'twitch',
  'apple',
  'github',
  'linkedin',
  'twitter',
  'weibo',
  'line',
  'email_password',
  'passwordless',
  'jwt',
] as const;
export type TypeOfLogin = (typeof TYPES_OF_LOGIN)[number];

export const MFA_LEVELS = ['default', 'optional', 'mandatory', 'none'] as const;
export type MfaLevel = (typeof MFA_LEVELS)[number];

export const CURVES = ['secp256k1', 'ed25519'] as const;
export type Curve = (typeof CURVES)[number];

/** CAIP-2 namespace: `eip155`, `solana`, or any other chain family's namespace. */
export type ChainNamespace = string;

export interface AuthWhiteLabelData {
  appName?: string;
  /** Logo for a dark background. */
  logoLight?: string;
  /** Logo for a light background. */
  logoDark?: string;
  defaultLanguage?: Language;
  mode?: ThemeModes;
  /** `primary` sets the login page's primary colour (default `#0364FF`). */
  theme?: Record<string, string>;
  appUrl?: string;
  useLogoLoader?: boolean;
}

export interface MfaSetting {
  enable: boolean;
  /** The lowest number is set up first. */
  priority?: number;
  mandatory?: boolean;
}

export interface MfaSettings {
  deviceShareFactor?: MfaSetting;
  backUpShareFactor?: MfaSetting;
  socialBackupFactor?: MfaSetting;
  passwordFactor?: MfaSetting;
}
export const MFA_FACTORS = [
  'deviceShareFactor',
  'backUpShareFactor',
  'socialBackupFactor',
  'passwordFactor',
] as const;

export interface ExtraLoginOptions {
  display?: string;
  prompt?: string;
  max_age?: string;
  ui_locales?: string;
  id_token_hint?: string;
  id_token?: string;
  login_hint?: string;
  acr_values?: string;
  scope?: string;
  audience?: string;
  connection?: string;
  domain?: string;
  client_id?: string;
  redirect_uri?: string;
  leeway?: number;
  verifierIdField?: string;
  isVerifierIdCaseSensitive?: boolean;
  additionalParams?: Record<string, string>;
}

export interface AuthLoginConfig {
  verifier: string;
  typeOfLogin: TypeOfLogin;
  clientId: string;
  name?: string;
  verifierSubIdentifier?: string;
  description?: string;
  logoHover?: string;
  logoLight?: string;
  logoDark?: string;
  mainOption?: boolean;
  showOnModal?: boolean;
  showOnDesktop?: boolean;
  showOnMobile?: boolean;
  jwtParameters?: ExtraLoginOptions;
}

export interface AuthInitParams {
  clientId: string;
  network: Network;
  buildEnv?: BuildEnv;
  sdkUrl?: string;
  redirectUrl?: string;
  whiteLabel?: AuthWhiteLabelData;
  loginConfig?: Record<string, AuthLoginConfig>;
  useCoreKitKey?: boolean;
  chainNamespace?: ChainNamespace;
  /** The chain `auth.provider` serves after login (beyond the seed: Web3Auth's chainConfig). */
  chainConfig?: ChainConfig;
  mfaSettings?: MfaSettings;
  /** Seconds; default 86400, no cap (the service may set one: `maxSessionTime`). */
  sessionTime?: number;
}

/** The namespaces `auth.provider` serves. */
export const PROVIDER_NAMESPACES = ['eip155', 'solana'] as const;
export type ProviderNamespace = (typeof PROVIDER_NAMESPACES)[number];

/**
 * A chain for `auth.provider`, named as Web3Auth's `chainConfig` (`CustomChainConfig`). Not in the
 * seed: the seed only names `chainNamespace`.
 */
export interface ChainConfig {
  chainNamespace: ProviderNamespace;
  /**
   * eip155: hex, e.g. `0x7a69` (31337). solana: a CAIP-2 id (`solana:<genesis hash prefix>`), its
   * reference alone, or Web3Auth's `0x1` (mainnet), `0x2` (testnet), `0x3` (devnet).
   */
  chainId: string;
  /** JSON-RPC URL every read and broadcast goes to: a Portico gateway URL `<baseUrl>/v3/<API_KEY>`. */
  rpcTarget: string;
  displayName?: string;
  blockExplorerUrl?: string;
  /** Native currency symbol, e.g. `ETH`. */
  ticker?: string;
  /** Native currency name, e.g. `Ether`. */
  tickerName?: string;
  logo?: string;
  /** Native currency decimals (default 18 on eip155, 9 on solana). */
  decimals?: number;
}

export interface AuthLoginParams {
  /** A built-in provider or a key of `loginConfig`; omitted, the login page lists the providers. */
  loginProvider?: LoginProvider | string;
  dappShare?: string;
  extraLoginOptions?: ExtraLoginOptions;
  mfaLevel?: MfaLevel;
  /**
   * Which public key the service-signed idToken carries in `wallets` (default `secp256k1`). It does
   * not change the keys: `getPrivKey()` is always the secp256k1 key, `getEd25519PrivKey()` the ed25519 one.
   */
  curve?: Curve;
  /** v5/v6: opaque app state handed back with the result (`LoginOutcome.appState`; redirect mode: `auth.appState`). */
  appState?: string;
}

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
export type SessionPayload = AuthState & { mfa?: MfaSessionData };

export const DEFAULT_SESSION_TIME = 86_400;
export const DEFAULT_PRIMARY_COLOR = '#0364FF';
