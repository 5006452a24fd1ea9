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

export type VerifierConfig =
  | OidcVerifierConfig
  | JwtVerifierConfig
  | AggregateVerifierConfig
  | DevVerifierConfig;
