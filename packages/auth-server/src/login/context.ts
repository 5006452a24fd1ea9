// What every part of the login path shares: the service's parts (`LoginDeps`, handed in by
// `startAuthServer`), the redirect policy and the MFA store built from them, and the records the
// path keeps between requests.
import type { Struct } from '@metamask/superstruct';
import type { AuthLoginConfig, FactorStep, KeyExportPolicy, MfaFactor } from '@portico/auth';
import type { AttemptLimiter } from '../attempts.ts';
import type { AuditLog } from '../audit.ts';
import { parseBody } from '../body.ts';
import type { Envelope } from '../envelope.ts';
import type { KeyService, TokenSigner } from '../keys.ts';
import type { LoginEvent } from '../login-event.ts';
import { MfaStore } from '../mfa.ts';
import type { RedirectPolicy } from '../redirects.ts';
import type { SessionChains } from '../sessions.ts';
import type { AuthStore } from '../store.ts';
import type { VerifierConfig } from '../verifiers/config.ts';
import type { JwtVerifier } from '../verifiers/jwt.ts';
import type { OidcFlow, OidcVerifier } from '../verifiers/oidc.ts';
import type { Identity } from '../verifiers/types.ts';

/** How long a started login (provider round trip, MFA step) may take. */
export const FLOW_TTL_MS = 10 * 60 * 1000;

/** What the login path needs; handed in by `startAuthServer`. */
export interface LoginDeps {
  store: AuthStore;
  envelope: Envelope;
  keyService: KeyService;
  signer: TokenSigner;
  /** By name; a Map so that names such as `constructor` are looked up, never inherited. */
  verifierConfigs: ReadonlyMap<string, VerifierConfig>;
  jwtVerifiers: Map<string, JwtVerifier>;
  oidcVerifiers: Map<string, OidcVerifier>;
  devLogin: boolean;
  sdkUrl: string;
  allowedRedirectOrigins?: string[];
  allowedRedirects?: Record<string, string[]>;
  /** Longest session, in seconds (unset: as long as the app asks). */
  maxSessionTime?: number;
  /** Told of every completed login, awaited before the result goes back (a failure is logged). */
  onLogin?: (event: LoginEvent) => Promise<void> | void;
  now: () => number;
  log: (line: string) => void;
  /** Limits on typed factors, counted in the store. */
  attempts: AttemptLimiter;
  audit: AuditLog;
  /** Session chains: renewal, devices, ending. */
  chains: SessionChains;
  /** Who may read the key, by clientId (a Map: names are looked up, never inherited); unlisted: `app`. */
  exportPolicy: ReadonlyMap<string, KeyExportPolicy>;
}

/** Who sent a request: the client address (the socket's, or the proxy's X-Forwarded-For when trusted). */
export interface ClientInfo {
  address: string;
}

export interface LoginContext {
  deps: LoginDeps;
  redirectPolicy: RedirectPolicy;
  mfaStore: MfaStore;
}

export function loginContext(deps: LoginDeps): LoginContext {
  return {
    deps,
    redirectPolicy: {
      allowedRedirects: deps.allowedRedirects,
      allowedRedirectOrigins: deps.allowedRedirectOrigins,
      sdkUrl: deps.sdkUrl,
    },
    mfaStore: new MfaStore(deps.store, deps.envelope, deps.now),
  };
}

/** Where the login goes: the key's verifier, the verifier that authenticates, and how. */
export interface ResolvedProvider {
  provider: string;
  keyVerifier: string;
  authVerifier: string;
  typeOfLogin: string;
  entry?: AuthLoginConfig;
}

/** Server-side state between the authorization request and the callback (sealed in the store). */
export interface Flow {
  loginId: string;
  provider: string;
  oidc?: OidcFlow;
  /** Set only for flows the development login may complete. */
  dev?: true;
}

/** A login that stops for the MFA setup screen (page) or the library's setup call. */
export interface PendingMfa {
  step: 'setup';
  skippable: boolean;
  /** Enabled factors in setup order (ascending priority). */
  factors: FactorStep[];
  /** Custom (JWT) verifier: setup also yields a dappShare. */
  dappShare: boolean;
}

/** A page login of an MFA user on a device without a valid device share: the recovery screen. */
export interface RecoverMfa {
  step: 'recover';
  /** Factors the page can take (the app's library rebuilds the key; the service never sees them). */
  factors: MfaFactor[];
}

/**
 * A page login of an MFA user to an app that never holds the key (export policy `user` or `off`):
 * the page may confirm a factor with the service, which marks the new sign-in, or skip it.
 */
export interface ConfirmMfa {
  step: 'confirm';
  /** Factors the page can take (the service checks them; nothing of the key reaches the page). */
  factors: MfaFactor[];
}

/** A login stopped for MFA setup, kept (sealed) until the setup or skip call. */
export interface PendingState {
  provider: string;
  /** The resolved login (a passkey's names the account's own verifier, which the provider does not). */
  target?: ResolvedProvider;
  identity: Identity;
  skippable: boolean;
}

export type { Grant } from '../grant.ts';

/** An answer of the login API: status and JSON body (errors are thrown, answered by the server). */
export type Answer = [number, unknown];

/** One API route: the request body in, the answer out. */
export type Route = (
  ctx: LoginContext,
  body: Record<string, unknown>,
  path: string,
  client: ClientInfo,
) => Promise<Answer>;

/** A route whose body is checked against `schema` (400 `INVALID_BODY` naming the field) before `run`. */
export function route<T>(
  schema: Struct<T, unknown>,
  run: (ctx: LoginContext, body: T, path: string, client: ClientInfo) => Promise<Answer>,
): Route {
  return (ctx, body, path, client) => run(ctx, parseBody(schema, body), path, client);
}
