import { decryptJson, encryptJsonTo, signStoreMessage, storeKeyOf } from './ecies.ts';
import { resolveSdkUrl } from './endpoints.ts';
import { AuthError } from './errors.ts';
import { randomPrivKey } from './keys.ts';
import { defaultStorage, type StorageAdapter } from './storage.ts';
import type { AuthInitParams, AuthLoginParams, AuthState, AuthUserInfo, LoginRequest } from './types.ts';
import { type NormalizedInit, normalizeInitParams, validateLoginParams } from './validate.ts';

/** Runtime hooks: none needed in a browser; outside one, `openUrl` plays the system browser. */
export interface AuthOptions {
  /** Where the sessionId is kept (default: localStorage in browsers, memory elsewhere). */
  storage?: StorageAdapter;
  /** Storage key of the sessionId (default `portico-auth:<clientId>`). */
  storageKey?: string;
  /**
   * Opens the login page and resolves with the URL the page finally sent the browser to (the one
   * starting with `redirectUrl`), like ASWebAuthenticationSession; reject with `AuthError.userCancelled()`
   * when the user closes it. Default in browsers: a popup (`uxMode: 'popup'`) or a full-page redirect.
   */
  openUrl?: (url: string, redirectUrl: string) => Promise<string>;
  uxMode?: 'popup' | 'redirect';
  /** Deprecation and adjustment warnings (default `console.warn`). */
  onWarning?: (message: string) => void;
  fetch?: typeof fetch;
}

interface BrowserWindow {
  location: { href: string; hash: string; assign(url: string): void };
  history?: { replaceState(data: unknown, unused: string, url?: string): void };
  open(url: string, target: string, features: string): BrowserWindow | null;
  closed?: boolean;
  close(): void;
}

function browserWindow(): BrowserWindow | undefined {
  const g = globalThis as { window?: BrowserWindow; document?: unknown };
  return g.window && g.document ? g.window : undefined;
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
  const u = new URL(href);
  const raw = new URLSearchParams(u.hash.slice(1)).get('b64Params') ?? u.searchParams.get('b64Params');
  if (!raw) return undefined;
  try {
    const bin = atob(raw.replace(/-/g, '+').replace(/_/g, '/'));
    return JSON.parse(new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)))) as T;
  } catch {
    return undefined;
  }
}

interface LoginResult {
  sessionId?: string;
  error?: string;
  code?: string;
}

/** The v7 client: `await Auth.create(initParams)`, then `login`, the key getters and `logout`. */
export class Auth {
  private current: AuthState = {};
  private readonly sdkUrl: string;
  private readonly storage: StorageAdapter;
  private readonly storageKey: string;
  private readonly fetcher: typeof fetch;

  private constructor(
    readonly initParams: NormalizedInit['params'],
    private readonly options: AuthOptions,
  ) {
    this.sdkUrl = resolveSdkUrl(initParams);
    this.storage = options.storage ?? defaultStorage();
    this.storageKey = options.storageKey ?? `portico-auth:${initParams.clientId}`;
    this.fetcher = options.fetch ?? ((input, init) => fetch(input, init));
  }

  /**
   * Validates the init parameters (v6 input converted with one warning per field) and restores a
   * live session: from `#b64Params` after a redirect-mode login, else from the stored sessionId.
   */
  static async create(initParams: AuthInitParams, options: AuthOptions = {}): Promise<Auth> {
    const { params, changes } = normalizeInitParams(initParams);
    const warn = options.onWarning ?? ((m: string) => console.warn(m));
    for (const change of changes) warn(`[portico/auth] deprecated: ${change.message}`);
    const auth = new Auth(params, options);
    await auth.restore();
    return auth;
  }

  /** The login page base this instance talks to. */
  get serviceUrl(): string {
    return this.sdkUrl;
  }

  /** A copy of the current state (empty when logged out). */
  get state(): AuthState {
    return structuredClone(this.current);
  }

  private get redirectUrl(): string {
    if (this.initParams.redirectUrl) return this.initParams.redirectUrl;
    const win = browserWindow();
    if (win) return win.location.href.split('#')[0];
    return `${this.sdkUrl}/done`;
  }

  private async restore(): Promise<void> {
    const win = browserWindow();
    if (win && !this.options.openUrl) {
      const result = decodeB64Params<LoginResult>(win.location.href);
      if (result) {
        win.history?.replaceState(null, '', win.location.href.split('#')[0]);
        if (result.sessionId) {
          await this.storage.set(this.storageKey, result.sessionId);
        } else if (result.error) {
          this.current = { error: result.error };
          return;
        }
      }
    }
    const sessionId = await this.storage.get(this.storageKey);
    if (!sessionId) return;
    const state = await this.readSession(sessionId);
    if (state) this.current = state;
    else await this.storage.remove(this.storageKey);
  }

  private async post<T>(path: string, body: unknown): Promise<{ status: number; body: T }> {
    let res: Response;
    try {
      res = await this.fetcher(`${this.sdkUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    } catch (err) {
      throw new AuthError(
        'SERVICE_ERROR',
        `Auth service unreachable at ${this.sdkUrl}: ${(err as Error).message}`,
      );
    }
    const text = await res.text();
    let parsed: unknown = {};
    try {
      parsed = text ? JSON.parse(text) : {};
    } catch {
      parsed = { error: text };
    }
    return { status: res.status, body: parsed as T };
  }

  /** Reads and decrypts a session; undefined when it is gone or expired. */
  private async readSession(sessionId: string): Promise<AuthState | undefined> {
    const res = await this.post<{ data?: string; error?: string }>('/api/session/get', {
      key: storeKeyOf(sessionId),
    });
    if (res.status === 404) return undefined;
    if (res.status !== 200 || !res.body.data) {
      throw new AuthError('SERVICE_ERROR', `Auth service: ${res.body.error ?? `status ${res.status}`}`);
    }
    try {
      const state = decryptJson<AuthState>(sessionId, res.body.data);
      return { ...state, sessionId };
    } catch {
      return undefined; // not ours or damaged: treated as no session
    }
  }

  /**
   * Logs in: parks the request ECIES-encrypted under a fresh loginId, opens the login page (or, for a
   * JWT provider with `extraLoginOptions.id_token`, asks the service directly), then reads
   * the new session. Resolves with the state; rejects with `AuthError` (`USER_CANCELLED`, `LOGIN_FAILED`).
   */
  async login(loginParams: AuthLoginParams = {}): Promise<AuthState> {
    const params = validateLoginParams(loginParams, this.initParams);
    const loginId = randomPrivKey();
    const request: LoginRequest = {
      options: { ...this.initParams, sdkUrl: this.sdkUrl, redirectUrl: this.redirectUrl },
      params,
      actionType: 'login',
    };
    const key = storeKeyOf(loginId);
    const data = encryptJsonTo(key, request);
    const parked = await this.post<{ error?: string }>('/api/session', {
      key,
      data,
      signature: signStoreMessage(loginId, data),
      timeout: 600,
    });
    if (parked.status !== 201) {
      throw new AuthError(
        'SERVICE_ERROR',
        `Auth service refused the login request: ${parked.body.error ?? parked.status}`,
      );
    }

    let result: LoginResult;
    const provider = params.loginProvider;
    const isJwt =
      provider === 'jwt' || (provider && this.initParams.loginConfig?.[provider]?.typeOfLogin === 'jwt');
    if (isJwt && params.extraLoginOptions?.id_token) {
      const res = await this.post<LoginResult>('/api/login/jwt', { loginId });
      result = res.status === 200 ? res.body : { error: res.body.error ?? `status ${res.status}` };
    } else {
      const url = `${this.sdkUrl}/start#b64Params=${encodeB64Params({ loginId })}`;
      const finalUrl = await this.open(url);
      result = decodeB64Params<LoginResult>(finalUrl) ?? { error: 'The login page returned no result' };
    }
    if (!result.sessionId) {
      if (result.code === 'USER_CANCELLED') throw AuthError.userCancelled();
      // A failed attempt keeps any session already in place and records why.
      this.current = { ...this.current, error: result.error };
      throw new AuthError('LOGIN_FAILED', result.error ?? 'Login failed');
    }
    const state = await this.readSession(result.sessionId);
    if (!state) throw new AuthError('LOGIN_FAILED', 'The new session could not be read');
    const previous = this.current.sessionId;
    await this.storage.set(this.storageKey, result.sessionId);
    this.current = state;
    // The new session replaces the old one: end the old one on the service too (best effort).
    if (previous && previous !== result.sessionId) await this.invalidate(previous).catch(() => {});
    return this.state;
  }

  private open(url: string): Promise<string> {
    if (this.options.openUrl) return this.options.openUrl(url, this.redirectUrl);
    const win = browserWindow();
    if (!win) {
      return Promise.reject(
        new AuthError(
          'NO_BROWSER',
          'No browser here: pass options.openUrl to open the login page, or log in with "jwt"',
        ),
      );
    }
    if (this.options.uxMode === 'redirect') {
      win.location.assign(url);
      return new Promise<string>(() => {});
    }
    const popup = win.open(url, 'portico-auth', 'popup,width=480,height=720');
    if (!popup) {
      return Promise.reject(
        new AuthError('NO_BROWSER', 'The login popup was blocked: use uxMode "redirect"'),
      );
    }
    const redirectUrl = this.redirectUrl;
    return new Promise<string>((resolve, reject) => {
      const timer = setInterval(() => {
        if (popup.closed) {
          clearInterval(timer);
          reject(AuthError.userCancelled());
          return;
        }
        let href = '';
        try {
          href = popup.location.href;
        } catch {
          return; // still on another origin
        }
        if (href.startsWith(redirectUrl) && href.includes('b64Params=')) {
          clearInterval(timer);
          popup.close();
          resolve(href);
        }
      }, 250);
    });
  }

  /** Invalidates the session on the service at once and forgets it here. */
  async logout(): Promise<void> {
    const sessionId = this.current.sessionId;
    if (!sessionId) throw AuthError.noUserFound();
    await this.invalidate(sessionId);
    await this.storage.remove(this.storageKey);
    this.current = {};
  }

  private async invalidate(sessionId: string): Promise<void> {
    const key = storeKeyOf(sessionId);
    const res = await this.post<{ error?: string }>('/api/session/invalidate', {
      key,
      signature: signStoreMessage(sessionId, `invalidate:${key}`),
    });
    if (res.status !== 200 && res.status !== 404) {
      throw new AuthError('SERVICE_ERROR', `Logout failed: ${res.body.error ?? res.status}`);
    }
  }

  /** `coreKitKey` when `useCoreKitKey`, else the app-scoped `privKey`; `""` with no session. */
  getPrivKey(): string {
    if (!this.current.sessionId) return '';
    return (this.initParams.useCoreKitKey ? this.current.coreKitKey : this.current.privKey) ?? '';
  }

  /** The ed25519 key matching `getPrivKey()`; `""` with no session. */
  getEd25519PrivKey(): string {
    if (!this.current.sessionId) return '';
    return (
      (this.initParams.useCoreKitKey ? this.current.coreKitEd25519PrivKey : this.current.ed25519PrivKey) ?? ''
    );
  }

  /** The logged-in user's info; throws "No user found, please login again!" with no session. */
  getUserInfo(): AuthUserInfo {
    if (!this.current.sessionId || !this.current.userInfo) throw AuthError.noUserFound();
    return structuredClone(this.current.userInfo);
  }
}
