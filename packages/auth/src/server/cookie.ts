// The session cookie on the wire: what Set-Cookie says, and reading it back from a Cookie header.
import { AuthValidationError } from '../errors.ts';

/** The default cookie name (`__Host-` would forbid the localhost development case, where Secure is off). */
export const DEFAULT_COOKIE_NAME = 'portico_session';

// RFC 6265 cookie-name: a token (no separators, no controls).
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

export function checkCookieName(name: unknown): string {
  if (typeof name !== 'string' || !TOKEN.test(name)) {
    throw new AuthValidationError('cookieName', "a cookie token (letters, digits, !#$%&'*+-.^_`|~)", name);
  }
  return name;
}

/** Set-Cookie of the idToken: the browser keeps it until the token expires, never hands it to scripts. */
export function setCookie(name: string, value: string, maxAgeSeconds: number, secure: boolean): string {
  const attrs = [
    `${name}=${value}`,
    `Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}`,
    'Path=/',
    'HttpOnly',
  ];
  if (secure) attrs.push('Secure');
  attrs.push('SameSite=Lax');
  return attrs.join('; ');
}

/** Set-Cookie that removes it (same Path and attributes, so the browser matches the one it has). */
export function clearCookie(name: string, secure: boolean): string {
  return setCookie(name, '', 0, secure);
}

/** The value of `name` in a Cookie request header, if present. */
export function readCookie(header: string | null | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
