import { bytesToHex, randomBytes } from '@noble/hashes/utils.js';
import { decryptJson, encryptJsonTo, signStoreMessage, storeKeyOf } from './ecies.ts';
import { resolveSdkUrl } from './endpoints.ts';
import { AuthError, AuthValidationError } from './errors.ts';
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
import { ownValue } from './own.ts';
import { browserWindow, handOffToOpener, POPUP_NAME, rawB64Params, waitForPopup } from './popup.ts';
import { ChainRegistry } from './providers/chains.ts';
import { type AuthProvider, loadProvider } from './providers/load.ts';
import { jwtExpiry, SessionDeadline } from './session-deadline.ts';
import { defaultStorage, type StorageAdapter } from './storage.ts';
import type {
  AuthInitParams,
  AuthLoginParams,
  AuthLoginParamsV6,
  AuthState,
  AuthUserInfo,
  ChainConfig,
  LoginRequest,
  MfaSessionData,
  SessionPayload,
} from './types.ts';
import {
  migrateLoginParams,
  type NormalizedInit,
  normalizeInitParams,
  validateLoginParams,
} from './validate.ts';

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
  return raw ? decodeRaw<T>(raw) : undefined;
}

/** Decodes a `b64Params` value; undefined when malformed. */
function decodeRaw<T = LoginResult>(raw: string): T | undefined {
  try {
    const bin = atob(raw.replace(/-/g, '+').replace(/_/g, '/'));
    return JSON.parse(new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)))) as T;
  } catch {
    return undefined;
  }
}

interface LoginResult {
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

/**
 * What `login()` resolves with: the state, plus the backup phrase on the login that enabled MFA
 * (shown once) and the v5/v6 `appState` the login was given.
 */
export type LoginOutcome = AuthState & { backupPhrase?: string; appState?: string };

interface StoredDevice {
  deviceId: string;
  sealed: string;
}

/** A live session reached its `sessionTime`. */
export interface SessionExpiredEvent {
  /** When the instance noticed (ms since the epoch). */
  expiredAt: number;
}

/** A session as read from the service: its content and the seconds it has left. */
interface ReadSession {
  state: SessionPayload;
  expiresIn?: number;
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
  /** The chains of `chainConfig` and `addChain`; shared with the provider. */
  private readonly chains?: ChainRegistry;
  /** Loaded on the first login/restore with a chainConfig; kept (disconnected) across logouts. */
  private chainProvider?: AuthProvider;
  /** When the session ends: the keys are dropped then and `sessionExpired` listeners are told. */
  private readonly deadline = new SessionDeadline(() => this.expire());
  private readonly expiredListeners = new Set<(event: SessionExpiredEvent) => void>();
  /** The appState that came back with a redirect-mode login result. */
  private returnedAppState?: string;
  /** Set when the last session expired (cleared by the next login). */
  private expiredAt?: number;

  private constructor(
    readonly initParams: NormalizedInit['params'],
    private readonly options: AuthOptions,
  ) {
    this.sdkUrl = resolveSdkUrl(initParams);
    this.storage = options.storage ?? defaultStorage();
    this.storageKey = options.storageKey ?? `portico-auth:${initParams.clientId}`;
    this.fetcher = options.fetch ?? ((input, init) => fetch(input, init));
    if (initParams.chainConfig) this.chains = new ChainRegistry(initParams.chainConfig);
  }

  /**
   * Validates the init parameters (v6 input converted with one warning per field) and restores a
   * live session: from `#b64Params` after a redirect-mode login, else from the stored sessionId.
   */
  static async create(initParams: AuthInitParams, options: AuthOptions = {}): Promise<Auth> {
    // A login popup that landed on an app page: the result belongs to the opener, and nothing
    // else of this page's app runs on it (the promise stays pending; the opener closes the popup).
    const win = browserWindow();
    if (win && !options.openUrl && handOffToOpener(win, (raw) => decodeRaw(raw)?.popup === true)) {
      return new Promise<Auth>(() => {});
    }
    const { params, changes } = normalizeInitParams(initParams);
    const auth = new Auth(params, options);
    for (const change of changes) auth.warn(change.message);
    if (params.mfaSettings?.socialBackupFactor?.enable) auth.warn(SOCIAL_BACKUP_WARNING);
    await auth.restore();
    await auth.syncProvider();
    return auth;
  }

  /** v5/v6 redirect mode: the `appState` of the login that brought the app back to this page. */
  get appState(): string | undefined {
    return this.returnedAppState;
  }

  /** The login page base this instance talks to. */
  get serviceUrl(): string {
    return this.sdkUrl;
  }

  /** A copy of the current state (empty when logged out; only `error` once the session expired). */
  get state(): AuthState {
    this.checkExpiry();
    return structuredClone(this.current);
  }

  /** When the live session ends (ms since the epoch, this device's clock); undefined without one. */
  get sessionExpiresAt(): number | undefined {
    this.checkExpiry();
    return this.deadline.expiresAt;
  }

  /**
   * `sessionExpired`: the session reached its `sessionTime`. By then the instance has dropped the
   * keys, the user info and the stored sessionId, and `state.error` says so. Returns an unsubscribe.
   */
  on(event: 'sessionExpired', listener: (event: SessionExpiredEvent) => void): () => void {
    if (event !== 'sessionExpired') throw new TypeError(`Unknown event: ${String(event)}`);
    this.expiredListeners.add(listener);
    return () => this.expiredListeners.delete(listener);
  }

  private warn(message: string): void {
    (this.options.onWarning ?? ((m: string) => console.warn(m)))(`[portico/auth] ${message}`);
  }

  /** Drops the session once its deadline passed (timers stop while devices sleep, so getters ask too). */
  private checkExpiry(): void {
    if (this.deadline.passed()) this.expire();
  }

  private expire(): void {
    if (!this.current.sessionId && !this.pendingMfa) return;
    this.deadline.clear();
    this.pendingMfa = undefined;
    this.expiredAt = Date.now();
    this.current = { error: AuthError.sessionExpired().message };
    Promise.resolve(this.storage.remove(this.storageKey)).catch(() => {});
    // The provider announces the end at once (accountsChanged([]), disconnect), not on its next call.
    this.syncProvider().catch(() => {});
    const event: SessionExpiredEvent = { expiredAt: this.expiredAt };
    for (const listener of this.expiredListeners) {
      // A listener's failure must not escape a timer (in Node it would end the process).
      try {
        listener(event);
      } catch (err) {
        this.warn(`a sessionExpired listener failed: ${(err as Error).message}`);
      }
    }
  }

  /** Starts the countdown of a session just read (`expiresIn` from the service, else the idToken's exp). */
  private startDeadline(read: ReadSession): void {
    const { expiresIn, state } = read;
    this.deadline.set(
      expiresIn !== undefined ? Date.now() + expiresIn * 1000 : jwtExpiry(state.userInfo?.idToken),
    );
  }

  /** How this instance shows the login page: through `openUrl`, a popup, a redirect, or not at all. */
  private get loginMode(): 'openUrl' | 'popup' | 'redirect' | 'none' {
    if (this.options.openUrl) return 'openUrl';
    if (!browserWindow()) return 'none';
    return this.options.uxMode === 'redirect' ? 'redirect' : 'popup';
  }

  /**
   * Where the login page sends the result when the app names no `redirectUrl`: in a redirect the
   * current page; in a popup (and outside browsers) the service's own `/done` page, so that no app
   * page — which may consume a result it finds — ever loads in the popup.
   */
  private get defaultRedirectUrl(): string {
    const win = browserWindow();
    if (win && this.loginMode !== 'popup') return win.location.href.split('#')[0];
    return `${this.sdkUrl}/done`;
  }

  /** Where the `state` of a redirect-mode login waits for the page to come back. */
  private get stateStorageKey(): string {
    return `${this.storageKey}:state`;
  }

  private async restore(): Promise<void> {
    const win = browserWindow();
    if (win && !this.options.openUrl) {
      const result = decodeB64Params<LoginResult>(win.location.href);
      if (result) {
        win.history?.replaceState(null, '', win.location.href.split('#')[0]);
        // Only the result of a redirect login this device started (its stored state) counts: a
        // link carrying somebody else's session must not log this app in as them.
        const expected = await this.storage.get(this.stateStorageKey);
        if (expected) await this.storage.remove(this.stateStorageKey);
        if (result.popup || !expected || result.state !== expected) {
          this.warn('Ignored a login result in the address that no login on this device started');
          return this.restoreStored();
        }
        if (typeof result.appState === 'string') this.returnedAppState = result.appState;
        if (result.sessionId) {
          await this.storage.set(this.storageKey, result.sessionId);
          if (result.mfaFactor) this.redirectFactor = pickFactor(result.mfaFactor);
        } else if (result.error) {
          this.current = { error: result.error };
          return;
        }
      }
    }
    await this.restoreStored();
  }

  /** Restores the session of the stored sessionId, if it is still live. */
  private async restoreStored(): Promise<void> {
    const sessionId = await this.storage.get(this.storageKey);
    if (!sessionId) return;
    const read = await this.readSession(sessionId);
    if (!read) {
      await this.storage.remove(this.storageKey);
      return;
    }
    const { state } = read;
    this.startDeadline(read);
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
    const state = await this.rebuild(input);
    await this.syncProvider();
    return state;
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
  private async readSession(sessionId: string): Promise<ReadSession | undefined> {
    const res = await this.post<{ data?: string; error?: string; expiresIn?: number }>('/api/session/get', {
      key: storeKeyOf(sessionId),
    });
    if (res.status === 404) return undefined;
    if (res.status !== 200 || !res.body.data) {
      throw new AuthError('SERVICE_ERROR', `Auth service: ${res.body.error ?? `status ${res.status}`}`);
    }
    try {
      const state = decryptJson<SessionPayload>(sessionId, res.body.data);
      const { expiresIn } = res.body;
      return {
        state: { ...state, sessionId },
        expiresIn: typeof expiresIn === 'number' && expiresIn >= 0 ? expiresIn : undefined,
      };
    } catch {
      return undefined; // not ours or damaged: treated as no session
    }
  }

  /**
   * Logs in: parks the request ECIES-encrypted under a fresh loginId, opens the login page (or, for a
   * JWT provider with `extraLoginOptions.id_token`, asks the service directly), then reads
   * the new session. Resolves with the state; rejects with `AuthError` (`USER_CANCELLED`, `LOGIN_FAILED`).
   */
  async login(
    loginParams: AuthLoginParams | AuthLoginParamsV6 = {},
    mfaInput: MfaLoginInput = {},
  ): Promise<LoginOutcome> {
    // A new attempt: an error of an earlier one no longer describes the state.
    if (this.current.error !== undefined) {
      const { error: _stale, ...rest } = this.current;
      this.current = rest;
    }
    const v6 = migrateLoginParams(loginParams);
    const { dappShare, ...params } = validateLoginParams(v6.params, this.initParams);
    for (const change of v6.changes) this.warn(change.message);
    const redirectUrl = v6.redirectUrl ?? this.initParams.redirectUrl ?? this.defaultRedirectUrl;
    const sessionTime = v6.sessionTime ?? this.initParams.sessionTime;
    const loginId = randomPrivKey();
    const loginState = bytesToHex(randomBytes(16));
    const popup = this.loginMode === 'popup';
    const deviceId = (await this.storedDevice())?.deviceId;
    // The dappShare stays here: it is a factor, and the service must not see it.
    const request: LoginRequest = {
      options: { ...this.initParams, sessionTime, sdkUrl: this.sdkUrl, redirectUrl },
      params,
      actionType: 'login',
      origin: browserWindow()?.location.origin,
      mfa: deviceId ? { deviceId } : undefined,
      state: loginState,
      popup: popup || undefined,
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
      provider === 'jwt' ||
      (provider && ownValue(this.initParams.loginConfig, provider)?.typeOfLogin === 'jwt');
    if (isJwt && params.extraLoginOptions?.id_token) {
      const res = await this.post<LoginResult>('/api/login/jwt', { loginId });
      result = res.status === 200 ? res.body : { error: res.body.error ?? `status ${res.status}` };
      if (result.mfa) result = await this.answerSetup(loginId, result.mfa, mfaInput);
    } else {
      const url = `${this.sdkUrl}/start#b64Params=${encodeB64Params({ loginId })}`;
      const finalUrl = await this.open(url, redirectUrl, loginState);
      const returned = decodeB64Params<LoginResult>(finalUrl);
      if (returned && returned.state !== loginState) {
        throw new AuthError(
          'LOGIN_FAILED',
          'The login result does not belong to this login (state mismatch)',
        );
      }
      result = returned ?? { error: 'The login page returned no result' };
    }
    if (!result.sessionId) {
      if (result.code === 'USER_CANCELLED') throw AuthError.userCancelled();
      // A failed attempt keeps any session already in place and records why.
      this.current = { ...this.current, error: result.error };
      throw new AuthError('LOGIN_FAILED', result.error ?? 'Login failed');
    }
    const read = await this.readSession(result.sessionId);
    if (!read) throw new AuthError('LOGIN_FAILED', 'The new session could not be read');
    const { state } = read;
    // The session was made a moment ago: much less time left than asked means the service capped it.
    if (read.expiresIn !== undefined && read.expiresIn + 60 < sessionTime) {
      this.warn(
        `sessionTime ${sessionTime} is above what the auth service allows: this session lasts ${read.expiresIn} seconds`,
      );
    }
    const previous = this.current.sessionId;
    this.expiredAt = undefined;
    this.startDeadline(read);
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
    await this.syncProvider();
    const outcome: LoginOutcome = this.state;
    if (result.backupPhrase) outcome.backupPhrase = result.backupPhrase;
    if (params.appState !== undefined) outcome.appState = params.appState;
    return outcome;
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

  private async open(url: string, redirectUrl: string, state: string): Promise<string> {
    if (this.options.openUrl) return this.options.openUrl(url, redirectUrl);
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
      await this.storage.set(this.stateStorageKey, state);
      win.location.assign(url);
      return new Promise<string>(() => {});
    }
    const popup = win.open(url, POPUP_NAME, 'popup,width=480,height=720');
    if (!popup) throw new AuthError('NO_BROWSER', 'The login popup was blocked: use uxMode "redirect"');
    return waitForPopup(win, popup, {
      sdkUrl: this.sdkUrl,
      redirectUrl,
      isOurs: (raw) => decodeRaw(raw)?.state === state,
    });
  }

  /** Invalidates the session on the service at once and forgets it here. */
  async logout(): Promise<void> {
    const sessionId = this.current.sessionId;
    if (!sessionId) throw AuthError.noUserFound();
    await this.invalidate(sessionId);
    await this.storage.remove(this.storageKey);
    this.deadline.clear();
    this.current = {};
    await this.syncProvider();
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
    this.checkExpiry();
    if (!this.current.sessionId) return '';
    return (this.initParams.useCoreKitKey ? this.current.coreKitKey : this.current.privKey) ?? '';
  }

  /** The ed25519 key matching `getPrivKey()`; `""` with no session. */
  getEd25519PrivKey(): string {
    this.checkExpiry();
    if (!this.current.sessionId) return '';
    return (
      (this.initParams.useCoreKitKey ? this.current.coreKitEd25519PrivKey : this.current.ed25519PrivKey) ?? ''
    );
  }

  /**
   * The logged-in user's info; throws "No user found, please login again!" with no session, and
   * `SESSION_EXPIRED` once the session expired.
   */
  getUserInfo(): AuthUserInfo {
    this.checkExpiry();
    if (!this.current.sessionId && this.expiredAt !== undefined) throw AuthError.sessionExpired();
    if (!this.current.sessionId || !this.current.userInfo) throw AuthError.noUserFound();
    return structuredClone(this.current.userInfo);
  }

  /**
   * The chain provider while a user is logged in with a `chainConfig`, else null: an EIP-1193
   * provider on eip155 (viem `custom(auth.provider)`, ethers `BrowserProvider`, wagmi `injected`),
   * Web3Auth's Solana provider on solana. Beyond the seed.
   */
  get provider(): AuthProvider | null {
    return this.chainProvider && this.providerKey() ? this.chainProvider : null;
  }

  /** The key the provider signs with: secp256k1 on eip155, ed25519 on solana; `""` without a session. */
  private providerKey(): string {
    return this.chains?.namespace === 'solana' ? this.getEd25519PrivKey() : this.getPrivKey();
  }

  /** Adds a chain `auth.provider` may switch to (same namespace as `chainConfig`); does not switch. */
  addChain(chainConfig: ChainConfig): void {
    this.requireChains('addChain').add(chainConfig);
  }

  /** Switches `auth.provider` to a chain of `chainConfig`/`addChain`; the provider emits `chainChanged`. */
  switchChain({ chainId }: { chainId: string }): void {
    const chains = this.requireChains('switchChain');
    if (this.chainProvider && chains.find(chainId)) this.chainProvider.switchChain({ chainId });
    else chains.select(chainId);
  }

  private requireChains(method: string): ChainRegistry {
    if (!this.chains) throw new AuthValidationError('chainConfig', `set in Auth.create before ${method}`);
    return this.chains;
  }

  /**
   * Brings the provider in line with the keys: loaded and connected while there is a key,
   * disconnected (`accountsChanged([])`, `disconnect`) when there is none. Call after every change
   * of the state. Between calls the provider reads the key through the getters, so a session whose
   * keys are gone stops signing at once.
   */
  private async syncProvider(): Promise<void> {
    if (!this.chains) return;
    if (!this.providerKey()) {
      this.chainProvider?.disconnect();
      return;
    }
    this.chainProvider ??= await loadProvider(
      this.chains,
      { getPrivKey: () => this.getPrivKey(), getEd25519PrivKey: () => this.getEd25519PrivKey() },
      this.options.fetch,
    );
    this.chainProvider.connect();
  }
}
