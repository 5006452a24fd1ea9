// The allowed values of the init and login parameters. The schemas (./init.ts, ./login.ts) take
// them from here; ../types.ts re-exports them for the library's users.

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
  // Beyond `002_…txt`: a passkey (WebAuthn) on the login page, when the service has a passkey verifier.
  'passkey',
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

export const MFA_FACTORS = [
  'deviceShareFactor',
  'backUpShareFactor',
  'socialBackupFactor',
  'passwordFactor',
  /** Beyond `002_…txt`: an authenticator app (TOTP, RFC 6238). */
  'authenticatorFactor',
  /** Beyond `002_…txt`: a passkey (WebAuthn) on the login page. */
  'passkeysFactor',
] as const;

/** The namespaces `auth.provider` serves. */
export const PROVIDER_NAMESPACES = ['eip155', 'solana'] as const;
export type ProviderNamespace = (typeof PROVIDER_NAMESPACES)[number];

export const DEFAULT_SESSION_TIME = 86_400;
