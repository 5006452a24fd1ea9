import {
  AUTHENTICATOR_WARNING,
  type AuthOptions,
  type LoginOutcome,
  type MfaLoginInput,
  type SessionExpiredEvent,
  SOCIAL_BACKUP_WARNING,
} from './auth-options.ts';
import { resolveSdkUrl } from './endpoints.ts';
import { AuthError } from './errors.ts';
import { obtainLoginResult } from './login-flow.ts';
import { decodeB64Value, takeRedirectResult } from './login-result.ts';
import { DeviceShare, type PendingMfaSession, pickFactor, rebuildKey } from './mfa-login.ts';
import { defaultRedirectUrl, type LoginMode, loginMode } from './open-login-page.ts';
import { browserWindow, handOffToOpener } from './popup.ts';
import { ProviderLink } from './providers/link.ts';
import type { AuthProvider } from './providers/load.ts';
import { type ReadSession, ServiceClient, type SessionInfo } from './service-client.ts';
import { jwtExpiry, SessionDeadline } from './session-deadline.ts';
import { defaultStorage, type StorageAdapter } from './storage.ts';
import type {
  AuthInitParams,
  AuthLoginParams,
  AuthLoginParamsV6,
  AuthState,
  AuthUserInfo,
  ChainConfig,
  KeyExportPolicy,
  SessionPayload,
} from './types.ts';
import {
  migrateLoginParams,
  type NormalizedInit,
  normalizeInitParams,
  validateLoginParams,
} from './validate.ts';

export {
  AUTHENTICATOR_WARNING,
  type AuthenticatorEnrolment,
  type AuthOptions,
  type LoginOutcome,
  type MfaLoginInput,
  type SessionExpiredEvent,
  SOCIAL_BACKUP_WARNING,
  type SocialBackupLogin,
} from './auth-options.ts';
export { decodeB64Params, encodeB64Params } from './login-result.ts';

/** The v7 client: `await Auth.create(initParams)`, then `login`, the key getters and `logout`. */
export class Auth {
  private current: AuthState = {};
  private readonly sdkUrl: string;
  private readonly storage: StorageAdapter;
  private readonly storageKey: string;
  private readonly client: ServiceClient;
  /** This device's MFA share. */
  private readonly device: DeviceShare;
  /** A session of an MFA user whose key is not rebuilt yet (wrong factor: retry with `completeMfa`). */
  private pendingMfa?: PendingMfaSession;
  /** A factor typed on the login page's recovery screen (redirect mode), used once. */
  private redirectFactor?: MfaLoginInput;
  /** `auth.provider`, in line with the keys (with a chainConfig). */
  private readonly link: ProviderLink;
  /** When the session ends: the keys are dropped then and `sessionExpired` listeners are told. */
  private readonly deadline = new SessionDeadline(() => this.expire());
  private readonly expiredListeners = new Set<(event: SessionExpiredEvent) => void>();
  /** The appState that came back with a redirect-mode login result. */
  private returnedAppState?: string;
  /** Set when the last session expired (cleared by the next login). */
  private expiredAt?: number;
  /** The session as the service stores it (MFA sessions: without the rebuilt key), for renewals. */
  private stored?: SessionPayload;
  /** When use of the app renews the session (half its idle window gone; this device's clock). */
  private renewAt?: number;
  private renewing?: Promise<void>;
  /** The service can renew this session (it says the idle window; older services and sessions do not). */
  private renewable = false;

  private constructor(
    readonly initParams: NormalizedInit['params'],
    private readonly options: AuthOptions,
  ) {
    this.sdkUrl = resolveSdkUrl(initParams);
    this.storage = options.storage ?? defaultStorage();
    this.storageKey = options.storageKey ?? `portico-auth:${initParams.clientId}`;
    this.client = new ServiceClient(this.sdkUrl, options.fetch ?? ((input, init) => fetch(input, init)));
    this.device = new DeviceShare(this.storage, `${this.storageKey}:device`);
    this.link = new ProviderLink(
      initParams.chainConfig,
      { getPrivKey: () => this.getPrivKey(), getEd25519PrivKey: () => this.getEd25519PrivKey() },
      options.fetch,
    );
  }

  /**
   * Validates the init parameters (v6 input converted with one warning per field) and restores a
   * live session: from `#b64Params` after a redirect-mode login, else from the stored sessionId.
   */
  static async create(initParams: AuthInitParams, options: AuthOptions = {}): Promise<Auth> {
    // A login popup that landed on an app page: the result belongs to the opener, and nothing
    // else of this page's app runs on it (the promise stays pending; the opener closes the popup).
    const win = browserWindow();
    if (win && !options.openUrl && handOffToOpener(win, (raw) => decodeB64Value(raw)?.popup === true)) {
      return new Promise<Auth>(() => {});
    }
    const { params, changes } = normalizeInitParams(initParams);
    const auth = new Auth(params, options);
    for (const change of changes) auth.warn(change.message);
    if (params.mfaSettings?.socialBackupFactor?.enable) auth.warn(SOCIAL_BACKUP_WARNING);
    if (params.mfaSettings?.authenticatorFactor?.enable) auth.warn(AUTHENTICATOR_WARNING);
    await auth.restore();
    // A page load is use: a session past half its idle window renews now.
    if (auth.renewAt !== undefined && Date.now() >= auth.renewAt && auth.current.sessionId) {
      await auth
        .refreshSession()
        .catch((err: unknown) => auth.warn(`session renewal failed: ${(err as Error).message}`));
    }
    await auth.link.sync();
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
    else this.touch();
  }

  private expire(): void {
    if (!this.current.sessionId && !this.pendingMfa) return;
    this.deadline.clear();
    this.renewAt = undefined;
    this.stored = undefined;
    this.pendingMfa = undefined;
    this.expiredAt = Date.now();
    this.current = { error: AuthError.sessionExpired().message };
    Promise.resolve(this.storage.remove(this.storageKey)).catch(() => {});
    // The provider announces the end at once (accountsChanged([]), disconnect), not on its next call.
    this.link.sync().catch(() => {});
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
    this.stored = state;
    this.setWindow(expiresIn, read.idleTime, state);
  }

  /** Sets the deadline and, for a renewable session, when use renews it (half the idle window gone). */
  private setWindow(
    expiresIn: number | undefined,
    idleTime: number | undefined,
    state?: SessionPayload,
  ): void {
    const now = Date.now();
    this.deadline.set(expiresIn !== undefined ? now + expiresIn * 1000 : jwtExpiry(state?.userInfo?.idToken));
    this.renewable = idleTime !== undefined;
    this.renewAt =
      expiresIn !== undefined && idleTime !== undefined && this.options.autoRenew !== false
        ? now + Math.max(0, expiresIn - idleTime / 2) * 1000
        : undefined;
  }

  /** Use of the app: renews the session in the background once half its idle window is gone. */
  private touch(): void {
    if (this.renewAt === undefined || Date.now() < this.renewAt || this.renewing || !this.current.sessionId)
      return;
    this.refreshSession().catch((err: unknown) =>
      this.warn(`session renewal failed: ${(err as Error).message}`),
    );
  }

  /**
   * Renews the session now (the library does this by itself while the app is used, once half the
   * session's idle window is gone): a new sessionId, another \`sessionTime\` within the service's
   * \`maxSessionTime\`. The old sessionId stops working; presented again later, it ends this
   * sign-in everywhere (it must have been copied). Rejects with \`SESSION_EXPIRED\` (and drops the
   * keys) when the service ended the session. Beyond the seed.
   */
  refreshSession(): Promise<void> {
    this.renewing ??= this.renew().finally(() => {
      this.renewing = undefined;
    });
    return this.renewing;
  }

  private async renew(): Promise<void> {
    const sessionId = this.current.sessionId;
    if (!sessionId || !this.stored) throw AuthError.noUserFound();
    if (!this.renewable) {
      throw new AuthError(
        'SERVICE_ERROR',
        'This session cannot be renewed: it was made before the auth service renewed sessions (log in again for one that can)',
      );
    }
    // Another tab of this app (same storage) may have renewed the session already: take its id.
    const kept = await this.storage.get(this.storageKey);
    if (kept && kept !== sessionId) return this.adopt(kept);
    let renewed: Awaited<ReturnType<ServiceClient['renewSession']>>;
    try {
      renewed = await this.client.renewSession(sessionId, this.stored);
    } catch (err) {
      if (err instanceof AuthError && err.code === 'SESSION_ROTATED') {
        const now = await this.storage.get(this.storageKey);
        if (now && now !== sessionId) return this.adopt(now);
      }
      if (err instanceof AuthError && err.code === 'SESSION_EXPIRED') this.expire();
      throw err;
    }
    if (this.current.sessionId !== sessionId) return; // logged out or in again meanwhile
    await this.storage.set(this.storageKey, renewed.sessionId);
    const fresh = <T extends { userInfo?: AuthUserInfo }>(s: T): T =>
      renewed.idToken && s.userInfo ? { ...s, userInfo: { ...s.userInfo, idToken: renewed.idToken } } : s;
    this.current = fresh({ ...this.current, sessionId: renewed.sessionId });
    this.stored = fresh({ ...this.stored, sessionId: renewed.sessionId });
    this.setWindow(renewed.expiresIn, renewed.idleTime);
  }

  /** Switches to the sessionId another tab renewed this session to (same keys). */
  private async adopt(sessionId: string): Promise<void> {
    const read = await this.client.readSession(sessionId);
    if (!read) {
      this.expire();
      throw AuthError.sessionExpired();
    }
    this.current = { ...this.current, sessionId };
    this.startDeadline(read);
  }

  /**
   * The user's signed-in sessions in this app (this one has \`current: true\`), each with an \`id\`
   * for \`endSession\`. Beyond the seed.
   */
  async listSessions(): Promise<SessionInfo[]> {
    const sessionId = this.current.sessionId;
    if (!sessionId) throw AuthError.noUserFound();
    return this.client.listSessions(sessionId);
  }

  /**
   * Ends one of the user's sessions (an \`id\` from \`listSessions\`); ending this instance's own
   * session logs out here too. False when it had ended already. Beyond the seed.
   */
  async endSession(id: string): Promise<boolean> {
    const sessionId = this.current.sessionId;
    if (!sessionId) throw AuthError.noUserFound();
    const own = (await this.client.listSessions(sessionId)).find((s) => s.current)?.id === id;
    const ended = await this.client.endSession(sessionId, id);
    if (own) await this.forget();
    return ended;
  }

  /** How this instance shows the login page. */
  private get loginMode(): LoginMode {
    return loginMode(this.options);
  }

  /** Where the `state` of a redirect-mode login waits for the page to come back. */
  private get stateStorageKey(): string {
    return `${this.storageKey}:state`;
  }

  private async restore(): Promise<void> {
    const win = browserWindow();
    if (win && !this.options.openUrl) {
      const result = await takeRedirectResult(win, this.storage, this.stateStorageKey);
      if (result === 'foreign') {
        this.warn('Ignored a login result in the address that no login on this device started');
        return this.restoreStored();
      }
      if (result) {
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
    const read = await this.client.readSession(sessionId);
    if (!read) {
      await this.storage.remove(this.storageKey);
      return;
    }
    const { state } = read;
    this.startDeadline(read);
    if (!state.mfa) {
      const { keyExport: _k, ...rest } = state;
      this.current = rest;
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

  /** The id of this device's MFA share (to revoke it from another device), if it has one. */
  async mfaDeviceId(): Promise<string | undefined> {
    return (await this.device.get())?.deviceId;
  }

  /** Rebuilds the key of a pending MFA session and installs it; keeps the session pending on failure. */
  private async rebuild(input: MfaLoginInput): Promise<AuthState> {
    const pending = this.pendingMfa;
    if (!pending?.payload.mfa) throw AuthError.noUserFound();
    const state = await rebuildKey(this.client, this.device, pending, input, this.initParams.clientId);
    this.pendingMfa = undefined;
    this.current = state;
    await this.storage.set(this.storageKey, pending.sessionId);
    return this.state;
  }

  /**
   * Finishes an MFA login that stopped for a second factor (`MFA_REQUIRED`, or `MFA_FACTOR_INVALID`
   * after a wrong password or phrase: nothing is locked, try again).
   */
  async completeMfa(input: MfaLoginInput): Promise<AuthState> {
    const state = await this.rebuild(input);
    await this.link.sync();
    return state;
  }

  /** Revokes a device's MFA share (e.g. a lost phone): the service deletes its wrapping key. */
  async revokeDevice(deviceId: string): Promise<void> {
    const sessionId = this.current.sessionId;
    if (!sessionId || !this.current.userInfo?.isMfaEnabled) throw AuthError.noUserFound();
    const res = await this.client.signedMfaCall(
      '/api/mfa/revoke',
      sessionId,
      { deviceId },
      this.current.coreKitKey,
    );
    if (res.status !== 200)
      throw new AuthError('SERVICE_ERROR', `Revoke failed: ${res.body.error ?? res.status}`);
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
    const redirectUrl =
      v6.redirectUrl ?? this.initParams.redirectUrl ?? defaultRedirectUrl(this.loginMode, this.sdkUrl);
    const sessionTime = v6.sessionTime ?? this.initParams.sessionTime;
    const result = await obtainLoginResult({
      client: this.client,
      options: { ...this.initParams, sessionTime, sdkUrl: this.sdkUrl, redirectUrl },
      params,
      popup: this.loginMode === 'popup',
      deviceId: (await this.device.get())?.deviceId,
      mfaInput,
      device: this.options.deviceName ?? (typeof navigator === 'undefined' ? undefined : navigator.userAgent),
      page: {
        sdkUrl: this.sdkUrl,
        openUrl: this.options.openUrl,
        uxMode: this.options.uxMode,
        rememberState: (state) => this.storage.set(this.stateStorageKey, state),
      },
    });
    if (!result.sessionId) {
      if (result.code === 'USER_CANCELLED') throw AuthError.userCancelled();
      // A failed attempt keeps any session already in place and records why.
      this.current = { ...this.current, error: result.error };
      throw new AuthError('LOGIN_FAILED', result.error ?? 'Login failed');
    }
    const read = await this.client.readSession(result.sessionId);
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
      await this.device.set({ deviceId, sealed });
    }
    if (state.mfa && !state.coreKitKey) {
      this.pendingMfa = { sessionId: result.sessionId, payload: state, dappShare };
      await this.rebuild(result.mfaFactor ? { ...mfaInput, ...pickFactor(result.mfaFactor) } : mfaInput);
    } else {
      const { mfa: _m, keyExport: _k, ...rest } = state;
      await this.storage.set(this.storageKey, result.sessionId);
      this.current = rest;
    }
    // The new session replaces the old one: end the old one on the service too (best effort).
    if (previous && previous !== result.sessionId) await this.client.invalidate(previous).catch(() => {});
    await this.link.sync();
    const outcome: LoginOutcome = this.state;
    if (result.backupPhrase) outcome.backupPhrase = result.backupPhrase;
    if (params.appState !== undefined) outcome.appState = params.appState;
    return outcome;
  }

  /** Invalidates the session on the service at once and forgets it here. */
  async logout(): Promise<void> {
    const sessionId = this.current.sessionId;
    if (!sessionId) throw AuthError.noUserFound();
    await this.client.invalidate(sessionId);
    await this.forget();
  }

  /** Forgets the session here (the service has ended it). */
  private async forget(): Promise<void> {
    await this.storage.remove(this.storageKey);
    this.deadline.clear();
    this.renewAt = undefined;
    this.stored = undefined;
    this.current = {};
    await this.link.sync();
  }

  /**
   * The auth service's export policy for this app, as the live session says (`app` without one):
   * with `user` or `off` the service never sends this app the keys, and the key getters return `""`.
   * Beyond the seed.
   */
  get keyExport(): KeyExportPolicy {
    return this.stored?.keyExport ?? 'app';
  }

  /**
   * `coreKitKey` when `useCoreKitKey`, else the app-scoped `privKey`; `""` with no session, and when
   * the service's `exportPolicy` withholds keys from this app (`keyExport`).
   */
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
   * Web3Auth's Solana provider on solana. Beyond the auth spec (seeds/002).
   */
  get provider(): AuthProvider | null {
    return this.link.current;
  }

  /** Adds a chain `auth.provider` may switch to (same namespace as `chainConfig`); does not switch. */
  addChain(chainConfig: ChainConfig): void {
    this.link.addChain(chainConfig);
  }

  /** Switches `auth.provider` to a chain of `chainConfig`/`addChain`; the provider emits `chainChanged`. */
  switchChain({ chainId }: { chainId: string }): void {
    this.link.switchChain(chainId);
  }
}
