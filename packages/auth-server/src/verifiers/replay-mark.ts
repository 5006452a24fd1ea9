// The name a one-time token is remembered by. It must name what the token says, never how it is
// spelled: an ECDSA signature (r, s) is as valid as (r, n − s), and a base64url segment's last
// character carries unused low bits, so one token has many spellings. Only the verified claims
// are used, decoded from JSON, so no re-spelling of the signature or the segments changes the mark.
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import type { JWTPayload } from 'jose';

/** JSON with object keys sorted at every depth: one text for one value. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * The replay mark of a verified token. With a `jti` the issuer promises the token is unique, so
 * the mark is the issuer (else the verifier's name, which then stands for it) and the `jti`.
 * Without one, the mark is the hash of the canonical claims: two tokens with the same claims are
 * the same token. The verifier's name is left out when `iss` is known, so a token is accepted
 * once by the service whichever verifier trusting that issuer it is shown to.
 */
export function replayMark(verifierName: string, payload: JWTPayload): string {
  const issuer = typeof payload.iss === 'string' ? `iss:${payload.iss}` : `verifier:${verifierName}`;
  const text =
    typeof payload.jti === 'string' && payload.jti !== ''
      ? `jwt-jti\n${issuer}\n${payload.jti}`
      : `jwt-claims\n${issuer}\n${canonicalJson(payload)}`;
  return bytesToHex(sha256(utf8ToBytes(text)));
}
