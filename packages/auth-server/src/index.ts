export { type AttemptLimits, DEFAULT_ATTEMPT_LIMITS } from './attempts.ts';
export { AUDIT_EVENTS, type AuditBreak, type AuditEvent, auditHash, verifyAuditChain } from './audit.ts';
export {
  type AuditWebhook,
  type AuditWebhookBody,
  signWebhook,
  verifyWebhookSignature,
} from './audit-webhooks.ts';
export { BaseError } from './base-error.ts';
export {
  DEV_JWT_ISSUER,
  DEV_JWT_VERIFIER,
  DEV_TOKEN_SECONDS,
  type DevJwtOptions,
  type DevTokenClaims,
  devJwtVerifier,
  devTokenClaims,
  loadDevJwtKey,
  signDevToken,
} from './dev-jwt.ts';
export { Envelope, resolveMasterKey } from './envelope.ts';
export { ERROR_CODES, type ErrorCode } from './error-codes.ts';
export {
  DEFAULT_LEGACY_NETWORK,
  type DerivedKeys,
  type KeyScope,
  KeyService,
  TokenSigner,
  type Wallet,
  walletsFor,
} from './keys.ts';
export type { LoginAccount, LoginEvent } from './login-event.ts';
export {
  type AggregateVerifierConfig,
  type AuthServer,
  type DevVerifierConfig,
  type PasskeyVerifierConfig,
  type StartAuthServerOptions,
  startAuthServer,
  type VerifierConfig,
} from './server.ts';
export { type AuditRow, type AuthStore, type PasskeyRow, PostgresStore, SqliteStore } from './store.ts';
export { DEFAULT_MAX_LEEWAY, type VerifierIdRules } from './verifiers/app-options.ts';
export { JwtVerifier, type JwtVerifierConfig } from './verifiers/jwt.ts';
export { OidcVerifier, type OidcVerifierConfig } from './verifiers/oidc.ts';
export { type Identity, VerifierError } from './verifiers/types.ts';
