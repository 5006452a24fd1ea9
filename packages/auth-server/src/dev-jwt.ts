// The development JWT issuer of `portico dev`: an ES256 key kept in the data folder, a custom-JWT
// verifier that trusts it, and `POST /dev/token`, which signs a token for any user id. It gives
// scripts, CI and headless apps a login without a browser. Anyone who can reach the endpoint (or
// read the key file) can log in as anyone: it exists only where `devJwt` is passed, which
// `portico dev` does and `portico start` never does.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { exportJWK, generateKeyPair, importJWK, type JWK, SignJWT } from 'jose';
import { fields, optional, parseBody, rule } from './body.ts';
import type { JwtVerifierConfig } from './verifiers/jwt.ts';

/** The verifier's default name: `loginProvider: 'jwt'` reaches it with no `loginConfig`. */
export const DEV_JWT_VERIFIER = 'jwt';
/** `iss` of the development tokens (the verifier checks it). */
export const DEV_JWT_ISSUER = 'portico-dev';
/** Seconds a development token stays usable (the verifier accepts an `iat` up to 60 s old). */
export const DEV_TOKEN_SECONDS = 60;

export interface DevJwtOptions {
  /** The ES256 private key (a JWK with `kid`): `loadDevJwtKey(file)`. */
  key: JWK;
  /** The verifier's name (default `jwt`). */
  verifier?: string;
}

/** Who a development token is for. */
export interface DevTokenClaims {
  /** The user id (the verifier id, from `sub`). */
  sub: string;
  email?: string;
  name?: string;
}

/**
 * The development signing key kept in `file` (a private JWK, mode 0600). A missing file is created
 * with a new key unless `create` is false (then: an error naming the file).
 */
export async function loadDevJwtKey(
  file: string,
  { create = true }: { create?: boolean } = {},
): Promise<JWK> {
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as JWK;
  if (!create) throw new Error(`no development JWT key at ${file}`);
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk: JWK = {
    ...(await exportJWK(privateKey)),
    kid: `dev-${randomBytes(6).toString('hex')}`,
    alg: 'ES256',
  };
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, `${JSON.stringify(jwk)}\n`, { mode: 0o600 });
  return jwk;
}

/** The custom-JWT verifier that trusts the key: `sub` is the user id (`email` may be asked for). */
export function devJwtVerifier(key: JWK): JwtVerifierConfig {
  const { d: _private, ...publicJwk } = key;
  return {
    type: 'jwt',
    name: 'Development JWT',
    keys: [publicJwk],
    claims: { iss: DEV_JWT_ISSUER },
    verifierIdField: 'sub',
    verifierIdFields: ['email'],
    allowCaseInsensitive: true,
  };
}

/** A claim as text: not blank, at most `max` characters, no control characters. */
function claimText(max: number): (value: unknown) => true | string {
  return (value) =>
    (typeof value === 'string' &&
      value.trim() !== '' &&
      value.length <= max &&
      ![...value].some((c) => c.charCodeAt(0) < 0x20)) ||
    `must be a non-empty string of at most ${max} characters, without control characters`;
}

/** What `POST /dev/token` (or `portico dev-token`) takes. */
const DEV_TOKEN_BODY = fields({
  sub: rule<string>((value) => (value === undefined ? '(the user id) is required' : claimText(256)(value))),
  email: optional(
    rule<string>((value) => {
      const text = claimText(254)(value);
      if (text !== true) return text;
      return /^[^\s@]+@[^\s@]+$/.test(String(value)) || 'is not an email address';
    }),
  ),
  name: optional(rule<string>(claimText(256))),
});

/** Checks what `POST /dev/token` (or `portico dev-token`) was given; throws a 400 naming the field. */
export function devTokenClaims(body: unknown): DevTokenClaims {
  const { sub, email, name } = parseBody(DEV_TOKEN_BODY, body);
  return { sub, email, name };
}

/** A token the development verifier accepts once, within `DEV_TOKEN_SECONDS`. */
export async function signDevToken(key: JWK, claims: DevTokenClaims): Promise<string> {
  const payload: Record<string, string> = { sub: claims.sub };
  if (claims.email !== undefined) payload.email = claims.email;
  if (claims.name !== undefined) payload.name = claims.name;
  return new SignJWT(payload)
    .setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'JWT' })
    .setIssuer(DEV_JWT_ISSUER)
    .setIssuedAt()
    .setExpirationTime(`${DEV_TOKEN_SECONDS}s`)
    .setJti(randomBytes(12).toString('hex'))
    .sign(await importJWK(key, 'ES256'));
}
