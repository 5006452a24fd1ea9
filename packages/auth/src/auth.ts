import { decryptJson, encryptJsonTo, signStoreMessage, storeKeyOf } from './ecies.ts';
import { resolveSdkUrl } from './endpoints.ts';
import { AuthError } from './errors.ts';
import { getAppScopedKey, getEd25519PrivKey, randomPrivKey, secp256k1PublicKey } from './keys.ts';
import {
  combineShares,
  type KeyShare,
  mnemonicToShare,
  openShareWithKey,
  openShareWithPassword,
  sealShareWithKey,
  shareAt,
} from './mfa.ts';
import type { MfaFactor } from './mfa-rules.ts';
import { defaultStorage, type StorageAdapter } from './storage.ts';
import type {
  AuthInitParams,
  AuthLoginParams,
  AuthState,
  AuthUserInfo,
  LoginRequest,
  MfaSessionData,
  SessionPayload,
} from './types.ts';
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
  mfa?: { step: 'setup'; skippable: boolean; factors: Array<{ factor: MfaFactor; mandatory: boolean }> };
  backupPhrase?: string;
  /** From the login page's recovery screen: the factor the user typed (never sent to the service). */
  mfaFactor?: { backupPhrase?: string; password?: string };
}

/** Said at init when the social-backup factor is enabled. */
export const SOCIAL_BACKUP_WARNING =
  'mfaSettings.socialBackupFactor is enabled: the auth service then holds two shares of the key (its own and the social backup), so the service alone could rebuild the key. Leave it off if no single party may hold the key.';

/** Only the two fields the page may hand over, as strings. */
function pickFactor(f: { backupPhrase?: unknown; password?: unknown }): MfaLoginInput {
  if (typeof f.backupPhrase === 'string') return { backupPhrase: f.backupPhrase };
  if (typeof f.password === 'string') return { password: f.password };
  return {};
}

/** A second login for the social-backup factor: a JWT from another verifier configured on the service. */
export interface SocialBackupLogin {
  verifier: string;
  id_token: string;
}

/**
 * MFA input of `login()`. Recovery on a device without a (valid) device share: one of
 * `backupPhrase`, `password`, `socialBackup` (else the dappShare of the login parameters, else this
 * device's share). Setup, when the service asks for it: `setup`.
 */
export interface MfaLoginInput {
  backupPhrase?: string;
  password?: string;
  socialBackup?: SocialBackupLogin;
  /** After recovering with another factor, register this device with a new device share (default true). */
  newDeviceShare?: boolean;
  /** Factors to set up when the login asks (mandatory ones must be there); `skip: true` skips when allowed. */
  setup?: { factors: MfaFactor[]; password?: string; socialBackup?: SocialBackupLogin } | { skip: true };
}

/** What `login()` resolves with: the state, plus the backup phrase on the login that enabled MFA (shown once). */
export type LoginOutcome = AuthState & { backupPhrase?: string };

interface StoredDevice {
  deviceId: string;
  sealed: string;
}

/** The v7 client: `await Auth.create(initParams)`, then `login`, the key getters and `logout`. */
export class Auth {
  private current: AuthState = {};
  private readonly sdkUrl: string;
  private readonly storage: StorageAdapter;
  private readonly storageKey: string;
  private readonly fetcher: typeof fetch;
  /** A session of an MFA user whose key is not rebuilt yet (wrong factor: retry with `completeMfa`). */
  private pendingMfa?: { sessionId: string; payload: SessionPayload; dappShare?: string };
  /** A factor typed on the login page's recovery screen (redirect mode), used once. */
  private redirectFactor?: MfaLoginInput;

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
    if (params.mfaSettings?.socialBackupFactor?.enable) warn(`[portico/auth] ${SOCIAL_BACKUP_WARNING}`);
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
          if (result.mfaFactor) this.redirectFactor = pickFactor(result.mfaFactor);
        } else if (result.error) {
          this.current = { error: result.error };
          return;
        }
      }
    }
    const sessionId = await this.storage.get(this.storageKey);
    if (!sessionId) return;
    const state = await this.readSession(sessionId);
    if (!state) {
      await this.storage.remove(this.storageKey);
      return;
    }
    if (!state.mfa) {
      this.current = state;
      return;
    }
    // MFA: rebuild from the service's share and this device's share; else wait for completeMfa.
    this.pendingMfa = { sessionId, payload: state };
    const factor = this.redirectFactor;
    this.redirectFactor = undefined;
    await this.rebuild(factor ?? { newDeviceShare: false }).catch((err: unknown) => {
      if (factor) this.current = { error: (err as Error).message };
    });
  }

  private get deviceStorageKey(): string {
    return `${this.storageKey}:device`;
  }

  private async storedDevice(): Promise<StoredDevice | undefined> {
    const raw = await this.storage.get(this.deviceStorageKey);
    if (!raw) return undefined;
    try {
      return JSON.parse(raw) as StoredDevice;
    } catch {
      return undefined;
    }
  }

  /** The id of this device's MFA share (to revoke it from another device), if it has one. */
  async mfaDeviceId(): Promise<string | undefined> {
    return (await this.storedDevice())?.deviceId;
  }

  private async signedMfaCall<T>(path: string, sessionId: string, payload: unknown) {
    const key = storeKeyOf(sessionId);
    return this.post<T & { error?: string }>(path, {
      key,
      payload,
      signature: signStoreMessage(sessionId, `${path}:${JSON.stringify(payload ?? {})}`),
    });
  }

  /** The second share for an MFA login, from the given factor or the device. Throws MFA_* errors. */
  private async secondShare(
    mfa: MfaSessionData,
    sessionId: string,
    input: MfaLoginInput,
    dappShare: string | undefined,
  ): Promise<{ share: KeyShare; factor: string }> {
    const invalid = (m: string) => new AuthError('MFA_FACTOR_INVALID', m);
    if (input.backupPhrase !== undefined) {
      if (mfa.backupIndex === undefined) throw invalid('No backup phrase is set up for this account');
      try {
        return { share: mnemonicToShare(input.backupPhrase, mfa.backupIndex), factor: 'backup' };
      } catch {
        throw invalid('Wrong backup phrase');
      }
    }
    if (input.password !== undefined) {
      if (!mfa.passwordShare) throw invalid('No password is set up for this account');
      try {
        return { share: await openShareWithPassword(mfa.passwordShare, input.password), factor: 'password' };
      } catch {
        throw invalid('Wrong password');
      }
    }
    if (input.socialBackup) {
      const res = await this.signedMfaCall<{ share?: KeyShare }>(
        '/api/mfa/social',
        sessionId,
        input.socialBackup,
      );
      if (res.status !== 200 || !res.body.share) {
        throw invalid(`Social backup refused: ${res.body.error ?? res.status}`);
      }
      return { share: res.body.share, factor: 'social' };
    }
    if (dappShare && mfa.dappIndex !== undefined) {
      try {
        return { share: mnemonicToShare(dappShare, mfa.dappIndex), factor: 'dapp' };
      } catch {
        throw invalid('Wrong dappShare');
      }
    }
    const device = await this.storedDevice();
    if (!device) {
      throw new AuthError(
        'MFA_REQUIRED',
        'This device has no MFA share: give a backup phrase, password or social backup',
      );
    }
    if (mfa.deviceRevoked) {
      throw new AuthError('MFA_REQUIRED', "This device's share was revoked: use another factor");
    }
    if (!mfa.deviceKey) {
      throw new AuthError(
        'MFA_REQUIRED',
        "This device's share is not known to the service: use another factor",
      );
    }
    try {
      return { share: openShareWithKey(device.sealed, mfa.deviceKey), factor: 'device' };
    } catch {
      throw new AuthError('MFA_REQUIRED', "This device's share could not be opened: use another factor");
    }
  }

  /** Rebuilds the key of a pending MFA session and installs it; keeps the session pending on failure. */
  private async rebuild(input: MfaLoginInput): Promise<AuthState> {
    const pending = this.pendingMfa;
    if (!pending?.payload.mfa) throw AuthError.noUserFound();
    const { payload, sessionId } = pending;
    const mfa = payload.mfa as MfaSessionData;
    const { share, factor } = await this.secondShare(mfa, sessionId, input, pending.dappShare);
    let coreKitKey: string;
    try {
      coreKitKey = await combineShares(mfa.serviceShare, share);
    } catch {
      throw new AuthError('MFA_FACTOR_INVALID', `The ${factor} share does not belong to this account`);
    }
    if (secp256k1PublicKey(coreKitKey) !== mfa.publicKey) {
      const what =
        factor === 'backup'
          ? 'Wrong backup phrase'
          : factor === 'dapp'
            ? 'Wrong dappShare'
            : `The ${factor} share does not belong to this account`;
      throw new AuthError('MFA_FACTOR_INVALID', what);
    }
    if (factor !== 'device' && input.newDeviceShare !== false && mfa.factors.includes('deviceShareFactor')) {
      const res = await this.signedMfaCall<{ deviceId?: string; index?: number; wrapKey?: string }>(
        '/api/mfa/device',
        sessionId,
        {},
      );
      if (res.status === 200 && res.body.deviceId && res.body.index && res.body.wrapKey) {
        const deviceShare = await shareAt(mfa.serviceShare, share, res.body.index);
        const stored: StoredDevice = {
          deviceId: res.body.deviceId,
          sealed: sealShareWithKey(deviceShare, res.body.wrapKey),
        };
        await this.storage.set(this.deviceStorageKey, JSON.stringify(stored));
      }
    }
    const privKey = getAppScopedKey(coreKitKey, this.initParams.clientId);
    const { mfa: _m, ...rest } = payload;
    this.pendingMfa = undefined;
    this.current = {
      ...rest,
      coreKitKey,
      coreKitEd25519PrivKey: getEd25519PrivKey(coreKitKey),
      privKey,
      ed25519PrivKey: getEd25519PrivKey(privKey),
      sessionId,
    };
    await this.storage.set(this.storageKey, sessionId);
    return this.state;
  }

  /**
   * Finishes an MFA login that stopped for a second factor (`MFA_REQUIRED`, or `MFA_FACTOR_INVALID`
   * after a wrong password or phrase: nothing is locked, try again).
   */
  async completeMfa(input: MfaLoginInput): Promise<AuthState> {
    return this.rebuild(input);
  }

  /** Revokes a device's MFA share (e.g. a lost phone): the service deletes its wrapping key. */
  async revokeDevice(deviceId: string): Promise<void> {
    const sessionId = this.current.sessionId;
    if (!sessionId || !this.current.userInfo?.isMfaEnabled) throw AuthError.noUserFound();
    const res = await this.signedMfaCall('/api/mfa/revoke', sessionId, { deviceId });
    if (res.status !== 200)
      throw new AuthError('SERVICE_ERROR', `Revoke failed: ${res.body.error ?? res.status}`);
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
  private async readSession(sessionId: string): Promise<SessionPayload | undefined> {
    const res = await this.post<{ data?: string; error?: string }>('/api/session/get', {
      key: storeKeyOf(sessionId),
    });
    if (res.status === 404) return undefined;
    if (res.status !== 200 || !res.body.data) {
      throw new AuthError('SERVICE_ERROR', `Auth service: ${res.body.error ?? `status ${res.status}`}`);
    }
    try {
      const state = decryptJson<SessionPayload>(sessionId, res.body.data);
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
  async login(loginParams: AuthLoginParams = {}, mfaInput: MfaLoginInput = {}): Promise<LoginOutcome> {
    const { dappShare, ...params } = validateLoginParams(loginParams, this.initParams);
    const loginId = randomPrivKey();
    const deviceId = (await this.storedDevice())?.deviceId;
    // The dappShare stays here: it is a factor, and the service must not see it.
    const request: LoginRequest = {
      options: { ...this.initParams, sdkUrl: this.sdkUrl, redirectUrl: this.redirectUrl },
      params,
      actionType: 'login',
      mfa: deviceId ? { deviceId } : undefined,
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
      if (result.mfa) result = await this.answerSetup(loginId, result.mfa, mfaInput);
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
    if (state.mfa?.newDevice) {
      // The login that enabled MFA: keep this device's (sealed) share.
      const { deviceId, sealed } = state.mfa.newDevice;
      await this.storage.set(this.deviceStorageKey, JSON.stringify({ deviceId, sealed }));
    }
    if (state.mfa && !state.coreKitKey) {
      this.pendingMfa = { sessionId: result.sessionId, payload: state, dappShare };
      await this.rebuild(result.mfaFactor ? { ...mfaInput, ...pickFactor(result.mfaFactor) } : mfaInput);
    } else {
      const { mfa: _m, ...rest } = state;
      await this.storage.set(this.storageKey, result.sessionId);
      this.current = rest;
    }
    // The new session replaces the old one: end the old one on the service too (best effort).
    if (previous && previous !== result.sessionId) await this.invalidate(previous).catch(() => {});
    return result.backupPhrase ? { ...this.state, backupPhrase: result.backupPhrase } : this.state;
  }

  /** The service asks for MFA setup (JWT logins, no page): set up, skip, or refuse. */
  private async answerSetup(
    loginId: string,
    ask: NonNullable<LoginResult['mfa']>,
    input: MfaLoginInput,
  ): Promise<LoginResult> {
    const setup = input.setup;
    if (!setup || 'skip' in setup) {
      if (!ask.skippable) {
        await this.post('/api/login/cancel', { loginId }).catch(() => {});
        throw new AuthError(
          'MFA_SETUP_REQUIRED',
          `MFA setup is mandatory: pass setup.factors (in this order: ${ask.factors.map((f) => f.factor).join(', ')})`,
        );
      }
      const res = await this.post<LoginResult>('/api/mfa/skip', { loginId });
      return res.status === 200 ? res.body : { error: res.body.error ?? `status ${res.status}` };
    }
    const res = await this.post<LoginResult>('/api/mfa/setup', {
      loginId,
      factors: setup.factors,
      password: setup.password,
      socialBackup: setup.socialBackup,
    });
    if (res.status !== 200) {
      throw new AuthError('LOGIN_FAILED', `MFA setup refused: ${res.body.error ?? res.status}`);
    }
    return res.body;
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
