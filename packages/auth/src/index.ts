export {
  AUTHENTICATOR_WARNING,
  Auth,
  type AuthenticatorEnrolment,
  type AuthOptions,
  decodeB64Params,
  encodeB64Params,
  type LoginOutcome,
  type MfaLoginInput,
  type SessionExpiredEvent,
  SOCIAL_BACKUP_WARNING,
  type SocialBackupLogin,
} from './auth.ts';
export { CHAIN_ID_RULES, normalizeChainId } from './chain-id.ts';
export {
  decryptJson,
  type EciesOptions,
  type EciesPayload,
  eciesDecrypt,
  eciesEncrypt,
  encryptJsonTo,
  mfaProofMessage,
  signStoreMessage,
  storeKeyOf,
  verifyStoreMessage,
} from './ecies.ts';
export { resolveSdkUrl, SDK_URLS } from './endpoints.ts';
export { AuthError, type AuthErrorCode, AuthValidationError } from './errors.ts';
export {
  decodeBase64Lenient,
  ed25519PublicKey,
  getAppScopedKey,
  getEd25519PrivKey,
  mimcSpongeHash,
  randomPrivKey,
  SECP256K1_N,
  secp256k1PublicKey,
} from './keys.ts';
export {
  combineShares,
  type KeyShare,
  mnemonicToShare,
  openShareWithKey,
  openShareWithPassword,
  SHARE_THRESHOLD,
  sealShareWithKey,
  sealShareWithPassword,
  shareAt,
  shareToMnemonic,
  splitKey,
} from './mfa.ts';
export {
  checkSetupChoice,
  DEFAULT_MFA_SETTINGS,
  type FactorStep,
  type MfaFactor,
  type MfaPrompt,
  type MfaSetupChoice,
  mfaPrompt,
  setupOrder,
} from './mfa-rules.ts';
export {
  type MigrateInitParamsResult,
  migrateInitParams,
} from './migrate.ts';
export { ownValue, setOwn } from './own.ts';
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
export type { SessionInfo } from './service-client.ts';
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
