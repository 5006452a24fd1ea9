export { Envelope, resolveMasterKey } from './envelope.ts';
export { type DerivedKeys, KeyService, TokenSigner, type Wallet, walletsFor } from './keys.ts';
export {
  type AggregateVerifierConfig,
  type AuthServer,
  type DevVerifierConfig,
  type StartAuthServerOptions,
  startAuthServer,
  type VerifierConfig,
} from './server.ts';
export { type AuthStore, PostgresStore, SqliteStore } from './store.ts';
export { JwtVerifier, type JwtVerifierConfig } from './verifiers/jwt.ts';
export { OidcVerifier, type OidcVerifierConfig } from './verifiers/oidc.ts';
export { type Identity, VerifierError } from './verifiers/types.ts';
