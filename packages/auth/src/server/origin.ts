// Who may set or clear the cookie: only pages of the app itself. A cross-site page could otherwise
// post its own valid idToken and sign the visitor into the attacker's account (login CSRF).
import { AuthValidationError } from '../errors.ts';

/** What the checks read from a request. */
export interface RequestFacts {
  origin?: string;
  host?: string;
  /** `Sec-Fetch-Site`, sent by current browsers. */
  fetchSite?: string;
}

/**
 * The request comes from an allowed origin: one of `allowed` when given, else the request's own
 * host (the Origin's host equals the Host header). No Origin header (not a browser fetch) is refused.
 */
export function originAllowed(facts: RequestFacts, allowed: readonly string[] | undefined): boolean {
  if (facts.fetchSite === 'cross-site') return false;
  if (!facts.origin || facts.origin === 'null' || !URL.canParse(facts.origin)) return false;
  const origin = new URL(facts.origin);
  if (allowed) return allowed.includes(origin.origin);
  return facts.host !== undefined && origin.host === facts.host.toLowerCase();
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * `Secure` unless the page is plain http on this machine (development: not every browser keeps a
 * Secure cookie an http://localhost page sets). Everywhere else a plain-http app gets a Secure
 * cookie the browser drops: the session cookie never travels unencrypted.
 */
export function secureFor(origin: string | undefined, option: boolean | undefined): boolean {
  if (option !== undefined) return option;
  if (!origin || !URL.canParse(origin)) return true;
  const url = new URL(origin);
  return !(url.protocol === 'http:' && (LOOPBACK.has(url.hostname) || url.hostname.endsWith('.localhost')));
}

/** The allow-list option, normalised to origins (`https://app.example`, no path). */
export function checkOrigins(value: unknown): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string' || !URL.canParse(v))) {
    throw new AuthValidationError(
      'allowedOrigins',
      'an array of origins such as "https://app.example"',
      value,
    );
  }
  return value.map((v: string) => new URL(v).origin);
}
