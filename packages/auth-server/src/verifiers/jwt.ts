import type { ExtraLoginOptions } from '@portico/auth';
import { ownValue } from '@portico/auth/protocol';
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  decodeProtectedHeader,
  type JWK,
  type JWTPayload,
  type JWTVerifyGetKey,
  jwtVerify,
} from 'jose';
import { JOSEError } from 'jose/errors';
import type { AuthStore } from '../store.ts';
import { appIdOptions, checkVerifierIdRules, type VerifierIdRules, verifierIdFrom } from './app-options.ts';
import { replayMark } from './replay-mark.ts';
import { type Identity, VerifierError } from './types.ts';

/**
 * A custom JWT verifier: the app's own tokens, checked against its JWKS. `verifierIdField`,
 * `isVerifierIdCaseSensitive` and `leeway` (default 0) are the defaults; an app may ask for other
 * values within `verifierIdFields`, `allowCaseInsensitive` and `maxLeeway` (see `VerifierIdRules`).
 */
export interface JwtVerifierConfig extends VerifierIdRules {
  type: 'jwt';
  /** Where the issuer publishes its JWKS; or give `keys`. */
  jwksUrl?: string;
  keys?: JWK[];
  /** Up to three exact claim checks, e.g. `{ iss: 'https://idp.example', aud: 'my-app' }`. */
  claims?: Record<string, string>;
  /** Oldest accepted `iat`, in seconds (default 60, as the reference). */
  maxTokenAgeSeconds?: number;
  /** Display name on the login page. */
  name?: string;
}

const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

/** Verifies custom JWTs: known kid, signature, recent iat, expiry, claim checks, accepted once. */
export class JwtVerifier {
  private readonly keySet: JWTVerifyGetKey;
  constructor(
    readonly name: string,
    readonly config: JwtVerifierConfig,
    private readonly store: AuthStore,
  ) {
    if (config.jwksUrl)
      this.keySet = reachable(createRemoteJWKSet(new URL(config.jwksUrl), { cooldownDuration: 5_000 }));
    else if (config.keys?.length) this.keySet = createLocalJWKSet({ keys: config.keys });
    else throw new Error(`verifier ${name}: give jwksUrl or keys`);
    if (config.claims && Object.keys(config.claims).length > 3) {
      throw new Error(`verifier ${name}: at most three claim checks`);
    }
    checkVerifierIdRules(name, config, 0);
  }

  /** Verifies `token`; `extra` carries the app's verifierIdField, isVerifierIdCaseSensitive and leeway. */
  async verify(token: string, extra?: ExtraLoginOptions): Promise<Identity> {
    const options = appIdOptions(this.name, this.config, extra, 0);
    let header: ReturnType<typeof decodeProtectedHeader>;
    try {
      header = decodeProtectedHeader(token);
    } catch {
      throw new VerifierError('Malformed token');
    }
    if (!header.alg || header.alg === 'none' || !ALGORITHMS.includes(header.alg)) {
      throw new VerifierError(`Token algorithm not allowed: ${String(header.alg)}`);
    }
    if (!header.kid) throw new VerifierError('Token has no kid');
    const { leeway } = options;
    const maxAge = this.config.maxTokenAgeSeconds ?? 60;
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.keySet, {
        algorithms: ALGORITHMS,
        clockTolerance: leeway,
        maxTokenAge: maxAge,
        requiredClaims: ['iat'],
      }));
    } catch (err) {
      throw new VerifierError(joseMessage(err, maxAge));
    }
    for (const [claim, expected] of Object.entries(this.config.claims ?? {})) {
      const actual = ownValue(payload, claim);
      const ok = Array.isArray(actual) ? actual.includes(expected) : actual === expected;
      if (!ok) throw new VerifierError(`Claim check failed: ${claim}`);
    }
    const verifierId = verifierIdFrom(payload, options);
    if (verifierId === undefined) throw new VerifierError(`Token has no verifier id in "${options.field}"`);
    // Named by what it says, not how it is spelled (see replay-mark.ts).
    const hash = replayMark(this.name, payload);
    const keepUntil = ((payload.exp ?? (payload.iat ?? 0) + maxAge) + leeway + 60) * 1000;
    if (!(await this.store.markTokenUsed(hash, Math.max(keepUntil, Date.now() + (maxAge + leeway) * 1000)))) {
      throw new VerifierError('Duplicate token found');
    }
    return {
      verifierId,
      claim: options.claim,
      email: typeof payload.email === 'string' ? payload.email : undefined,
      name: typeof payload.name === 'string' ? payload.name : undefined,
      profileImage: typeof payload.picture === 'string' ? payload.picture : undefined,
      oAuthIdToken: token,
    };
  }
}

/**
 * A remote key set whose endpoint cannot be reached (connection refused, DNS) fails with fetch's own
 * TypeError, which carries no code: named here so the refusal says the JWKS could not be fetched.
 */
function reachable(keySet: JWTVerifyGetKey): JWTVerifyGetKey {
  return async (header, token) => {
    try {
      return await keySet(header, token);
    } catch (err) {
      if (err instanceof JOSEError) throw err;
      throw new JOSEError('the JWKS endpoint could not be reached');
    }
  };
}

function joseMessage(err: unknown, maxAge: number): string {
  const code = (err as { code?: string }).code;
  const message = (err as Error).message ?? String(err);
  switch (code) {
    case 'ERR_JWKS_NO_MATCHING_KEY':
      return 'No key in the JWKS matches the token kid';
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
      return 'Invalid token signature';
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
      return 'Token algorithm not allowed';
    case 'ERR_JWT_EXPIRED':
      return /iat/.test(message) ? `Token is stale: signed more than ${maxAge} s ago` : 'Token expired';
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      return /iat/.test(message) ? `Token iat is invalid: ${message}` : `Token claim invalid: ${message}`;
    case 'ERR_JWKS_TIMEOUT':
    case 'ERR_JOSE_GENERIC':
      return `Could not fetch the verifier's JWKS: ${message}`;
    default:
      return `Invalid token: ${message}`;
  }
}
