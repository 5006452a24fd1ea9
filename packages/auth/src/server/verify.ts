// Who the user is, from an idToken the auth service signed: checked against the service's JWKS
// (public keys only), its issuer, this app's clientId as audience, and expiry.
import { createRemoteJWKSet, errors, type JWTPayload, jwtVerify } from 'jose';
import { AuthError, AuthValidationError } from '../errors.ts';

/** The auth service's JWKS could not be fetched: no token can be checked (not the user's fault). */
export class AuthServiceUnreachableError extends AuthError {
  override name = 'AuthServiceUnreachableError';
  override readonly code = 'AUTH_SERVICE_UNREACHABLE' as const;
  constructor(url: string, cause: unknown) {
    super(
      'AUTH_SERVICE_UNREACHABLE',
      `The auth service's JWKS at ${url} could not be fetched: ${(cause as Error).message}`,
      { cause },
    );
  }
}

/** A key of the user, as the idToken lists it (public keys only). */
export interface SessionWallet {
  public_key: string;
  type: string;
  curve: string;
}

/** The signed-in user, as the verified idToken says. */
export interface SessionUser {
  verifier: string;
  verifierId: string;
  /** Set when the user signed in through an aggregate verifier. */
  aggregateVerifier?: string;
  email?: string;
  name?: string;
  wallets: SessionWallet[];
  /** When the idToken (and so the cookie) stops being accepted, ms since the epoch. */
  expiresAt: number;
}

export interface SessionVerifierOptions {
  /** The auth service's base URL (the library's `sdkUrl`); its JWKS is `<url>/.well-known/jwks.json`. */
  authServiceUrl: string;
  /** This app's clientId: the idToken's audience. */
  clientId: string;
  /** The idTokens' `iss` when the service sets `issuerUrl` (default `authServiceUrl`). */
  issuer?: string;
  /** The current time in ms (tests); default `Date.now`. */
  now?: () => number;
}

export interface SessionVerifier {
  /**
   * The user of a valid idToken of this app; null for anything else (forged, expired, another
   * app's). Rejects with `AuthServiceUnreachableError` when the service's JWKS cannot be fetched.
   */
  verify(idToken: string): Promise<SessionUser | null>;
}

function checkedUrl(value: unknown, name: string): URL {
  if (typeof value !== 'string' || !URL.canParse(value)) {
    throw new AuthValidationError(name, "an absolute URL (the auth service's base URL)", value);
  }
  return new URL(value);
}

const isString = (v: unknown): v is string => typeof v === 'string';

function userOf(payload: JWTPayload): SessionUser | null {
  const { verifier, verifierId, aggregateVerifier, email, name, wallets, exp } = payload;
  if (!isString(verifier) || !isString(verifierId) || exp === undefined) return null;
  const list = Array.isArray(wallets) ? (wallets as unknown[]) : [];
  return {
    verifier,
    verifierId,
    ...(isString(aggregateVerifier) ? { aggregateVerifier } : {}),
    ...(isString(email) ? { email } : {}),
    ...(isString(name) ? { name } : {}),
    wallets: list.filter(
      (w): w is SessionWallet =>
        typeof w === 'object' &&
        w !== null &&
        isString((w as SessionWallet).public_key) &&
        isString((w as SessionWallet).type) &&
        isString((w as SessionWallet).curve),
    ),
    expiresAt: exp * 1000,
  };
}

export function createSessionVerifier(options: SessionVerifierOptions): SessionVerifier {
  const base = checkedUrl(options.authServiceUrl, 'authServiceUrl').href.replace(/\/+$/, '');
  if (typeof options.clientId !== 'string' || options.clientId === '') {
    throw new AuthValidationError(
      'clientId',
      'a non-empty string (the app’s clientId on the auth service)',
      options.clientId,
    );
  }
  // Verbatim: the service signs with its `issuerUrl` as given.
  const issuer = options.issuer ?? base;
  const jwksUrl = `${base}/.well-known/jwks.json`;
  const keys = createRemoteJWKSet(new URL(jwksUrl));
  const now = options.now ?? Date.now;
  return {
    async verify(idToken) {
      if (typeof idToken !== 'string' || idToken === '') return null;
      try {
        const { payload } = await jwtVerify(idToken, keys, {
          issuer,
          audience: options.clientId,
          algorithms: ['ES256'],
          requiredClaims: ['exp'],
          currentDate: new Date(now()),
        });
        return userOf(payload);
      } catch (err) {
        // jose's own errors are about the token; anything else (fetch failed) is about the service.
        if (
          err instanceof errors.JWKSTimeout ||
          err instanceof errors.JWKSInvalid ||
          !(err instanceof errors.JOSEError)
        ) {
          throw new AuthServiceUnreachableError(jwksUrl, err);
        }
        return null;
      }
    },
  };
}
