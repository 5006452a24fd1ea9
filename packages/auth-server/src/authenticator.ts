// The authenticator-app factor (TOTP, RFC 6238): the service makes the secret, shows it once as an
// `otpauth://` URI and QR code, and checks codes by its own clock. Codes are the usual 6 digits of
// HMAC-SHA1 over 30 s steps (what every authenticator app reads); a code is accepted one step
// early or late (clock drift, RFC 6238 §5.2) and at most once: a step used is never accepted again.
import { encodeQR } from '@paulmillr/qr';
import { Secret, TOTP } from 'otpauth';

const PERIOD = 30;
const DIGITS = 6;

/** What the service keeps of a user's authenticator (inside the sealed MFA record). */
export interface AuthenticatorSecret {
  /** base32. */
  secret: string;
  /** The time step of the code that confirmed the setup (no code of it or earlier is accepted). */
  lastStep?: number;
}

/** A new secret and what the user scans: the `otpauth://` URI and its QR code (SVG). */
export function newAuthenticator(
  issuer: string,
  account: string,
): { secret: string; uri: string; qrSvg: string } {
  const totp = new TOTP({
    issuer,
    label: account,
    secret: new Secret({ size: 20 }),
    algorithm: 'SHA1',
    digits: DIGITS,
    period: PERIOD,
  });
  const uri = totp.toString();
  return { secret: totp.secret.base32, uri, qrSvg: encodeQR(uri, 'svg', { ecc: 'medium' }) };
}

/**
 * Checks `code` at `now` (ms): the time step it belongs to, or undefined when it is wrong, or of a
 * step at or before `lastStep` (used already).
 */
export function checkAuthenticatorCode(
  authenticator: AuthenticatorSecret,
  code: string,
  now: number,
): number | undefined {
  if (!/^\d{6}$/.test(code)) return undefined;
  const delta = TOTP.validate({
    token: code,
    secret: Secret.fromBase32(authenticator.secret),
    algorithm: 'SHA1',
    digits: DIGITS,
    period: PERIOD,
    timestamp: now,
    window: 1,
  });
  if (delta === null) return undefined;
  const step = Math.floor(now / 1000 / PERIOD) + delta;
  if (authenticator.lastStep !== undefined && step <= authenticator.lastStep) return undefined;
  return step;
}
