export {
  AUTHENTICATOR_WARNING,
  Auth,
  type AuthenticatorEnrolment,
  type AuthOptions,
  decodeB64Params,
  encodeB64Params,
  type LoginOutcome,
  type MfaLoginInput,
  PASSKEY_FACTOR_WARNING,
  type SessionExpiredEvent,
  SOCIAL_BACKUP_WARNING,
  type SocialBackupLogin,
} from './auth.ts';
export { CHAIN_ID_RULES, normalizeChainId } from './chain-id.ts';
export { resolveSdkUrl, SDK_URLS } from './endpoints.ts';
export { AuthError, type AuthErrorCode, AuthValidationError } from './errors.ts';
export {
  DEFAULT_MFA_SETTINGS,
  type FactorStep,
  type MfaFactor,
  type MfaPrompt,
  type MfaSetupChoice,
} from './mfa-rules.ts';
// The protocol the auth service shares with the library (sealed requests, shares, key derivation)
// is `@portico/auth/protocol`.
export {
  type MigrateInitParamsResult,
  migrateInitParams,
} from './migrate.ts';
export {
  type AnnouncedProvider,
  type AnnounceOptions,
  announceAuthProvider,
  type ProviderIdentity,
} from './providers/announce.ts';
// Types only: the providers themselves load on login (or from @portico/auth/providers/*).
export type { Eip155Provider } from './providers/eip155/provider.ts';
export type { ProviderEventMap, RequestArguments } from './providers/key-backed-provider.ts';
export type { AuthProvider } from './providers/load.ts';
export type { SolanaProvider } from './providers/solana/provider.ts';
export {
  type AnnounceSolanaOptions,
  type AuthSolanaAccount,
  type AuthSolanaWallet,
  announceAuthSolanaWallet,
  type SolanaSignInInput,
  type SolanaSignInOutput,
} from './providers/solana-standard.ts';
export type { SessionInfo } from './service-client.ts';
export type { SessionCookieOption } from './session-cookie.ts';
export {
  BrowserStorage,
  defaultStorage,
  MemoryStorage,
  type StorageAdapter,
} from './storage.ts';
export * from './types.ts';
export {
  type MigratedLoginParams,
  type MigrationChange,
  migrateLoginParams,
  type NormalizedInit,
  normalizeInitParams,
  validateChainConfig,
  validateExtraLoginOptions,
  validateLoginParams,
} from './validate.ts';
