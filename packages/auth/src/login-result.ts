// The login result the service hands back (`#b64Params` of the redirect URL, or the JWT login's
// answer), and the base64url JSON format it travels in.
import type { MfaFactor } from './mfa-rules.ts';
import { type BrowserWindow, rawB64Params } from './popup.ts';
import type { StorageAdapter } from './storage.ts';

export interface LoginResult {
  /** The `state` of the login request, echoed by the service. */
  state?: string;
  /** Set on results of popup logins. */
  popup?: boolean;
  sessionId?: string;
  error?: string;
  code?: string;
  mfa?: { step: 'setup'; skippable: boolean; factors: Array<{ factor: MfaFactor; mandatory: boolean }> };
  backupPhrase?: string;
  /** v5/v6: the login's appState, echoed by the service. */
  appState?: string;
  /** From the login page's recovery screen: the factor the user typed (never sent to the service). */
  mfaFactor?: {
    backupPhrase?: string;
    password?: string;
    authenticatorCode?: string;
    passkeyAssertion?: string;
  };
}

/** base64url of UTF-8 JSON, the login page's `#b64Params` format. */
export function encodeB64Params(value: unknown): string {
  const bytes = new TextEncoder().encode(JSON.stringify(value));
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** Reads `b64Params` from a URL's fragment (or query); undefined when absent or malformed. */
export function decodeB64Params<T>(href: string): T | undefined {
  const raw = rawB64Params(href);
  return raw ? decodeB64Value<T>(raw) : undefined;
}

/** Decodes a `b64Params` value; undefined when malformed. */
export function decodeB64Value<T = LoginResult>(raw: string): T | undefined {
  try {
    const bin = atob(raw.replace(/-/g, '+').replace(/_/g, '/'));
    return JSON.parse(new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)))) as T;
  } catch {
    return undefined;
  }
}

/**
 * The result of a redirect-mode login in the page's address, taken out of the address. Only the
 * result of a redirect login this device started (its stored state) counts: a link carrying
 * somebody else's session must not log this app in as them. Such a result is 'foreign'.
 */
export async function takeRedirectResult(
  win: BrowserWindow,
  storage: StorageAdapter,
  stateKey: string,
): Promise<LoginResult | 'foreign' | undefined> {
  const result = decodeB64Params<LoginResult>(win.location.href);
  if (!result) return undefined;
  win.history?.replaceState(null, '', win.location.href.split('#')[0]);
  const expected = await storage.get(stateKey);
  if (expected) await storage.remove(stateKey);
  return result.popup || !expected || result.state !== expected ? 'foreign' : result;
}
