import {
  AUTHENTICATOR_WARNING,
  type AuthOptions,
  type LoginOutcome,
  type MfaLoginInput,
  PASSKEY_FACTOR_WARNING,
  SOCIAL_BACKUP_WARNING,
} from './auth-options.ts';
import { resolveSdkUrl } from './endpoints.ts';
import { AuthError } from './errors.ts';
import { obtainLoginResult } from './login-flow.ts';
import { decodeB64Value, takeRedirectResult } from './login-result.ts';
import { DeviceShare, pickFactor, rebuildKey } from './mfa-login.ts';
import { defaultRedirectUrl, type LoginMode, loginMode } from './open-login-page.ts';
import { browserWindow, handOffToOpener } from './popup.ts';
import type { AuthProvider } from './providers/load.ts';
import { errorText, ServiceClient } from './service-client.ts';
import { AuthSession } from './session.ts';
import { defaultStorage } from './storage.ts';
import type {
  AuthInitParams,
  AuthLoginParams,
  AuthLoginParamsV6,
  AuthState,
  AuthUserInfo,
  ChainConfig,
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
  PASSKEY_FACTOR_WARNING,
  type SessionExpiredEvent,
  SOCIAL_BACKUP_WARNING,
  type SocialBackupLogin,
} from './auth-options.ts';
export { decodeB64Params, encodeB64Params } from './login-result.ts';

/** The v7 client: `await Auth.create(initParams)`, then `login`, the key getters and `logout`. */
export class Auth extends AuthSession {
  private readonly sdkUrl: string;
  /** This device's MFA share. */
  private readonly device: DeviceShare;
  /** A factor typed on the login page's recovery screen (redirect mode), used once. */
  private redirectFactor?: MfaLoginInput;
  /** The appState that came back with a redirect-mode login result. */
  private returnedAppState?: string;

  private constructor(
    readonly initParams: NormalizedInit['params'],
    options: AuthOptions,
    sdkUrl: string,
  ) {
    const storage = options.storage ?? defaultStorage();
    const storageKey = options.storageKey ?? `portico-auth:${initParams.clientId}`;
    const client = new ServiceClient(sdkUrl, options.fetch ?? ((input, init) => fetch(input, init)));
    super(options, client, storage, storageKey, initParams.chainConfig);
    this.sdkUrl = sdkUrl;
    this.device = new DeviceShare(storage, `${storageKey}:device`);
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
    const auth = new Auth(params, options, resolveSdkUrl(params));
    for (const change of changes) auth.warn(change.message);
    if (params.mfaSettings?.socialBackupFactor?.enable) auth.warn(SOCIAL_BACKUP_WARNING);
    if (params.mfaSettings?.authenticatorFactor?.enable) auth.warn(AUTHENTICATOR_WARNING);
    if (params.mfaSettings?.passkeysFactor?.enable) auth.warn(PASSKEY_FACTOR_WARNING);
    await auth.restore();
    // A page load is use: a session past half its idle window renews now.
    if (auth.window.renewDue && auth.current.sessionId) {
      await auth
        .refreshSession()
        .catch((err: unknown) => auth.warn(`session renewal failed: ${(err as Error).message}`));
    }
    await auth.link.sync();
    await auth.cookieSettled();
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
    await this.cookieSettled();
    return state;
  }

  /**
   * Revokes a device's MFA share (e.g. a lost phone): the service deletes its wrapping key. Needs
   * the second factor: the rebuilt key's proof, or, under export policy `user` or `off` (the app
   * never holds the key), `confirmSecondFactor` first in this sign-in.
   */
  async revokeDevice(deviceId: string): Promise<void> {
    const sessionId = this.current.sessionId;
    if (!sessionId || !this.current.userInfo?.isMfaEnabled) throw AuthError.noUserFound();
    const res = await this.client.signedMfaCall(
      '/api/mfa/revoke',
      sessionId,
      { deviceId },
      this.current.coreKitKey,
    );
    if (res.status !== 200) throw new AuthError('SERVICE_ERROR', `Revoke failed: ${errorText(res)}`);
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
    return this.runLogin(loginParams, mfaInput);
  }

  /**
   * Links a passkey to the signed-in user's account (beyond `002_…txt`): opens the login page, where
   * the user creates a passkey, and signs in again through it. Later `login({ loginProvider:
   * 'passkey' })` with that passkey gets this account's key, the same as the verifier the user
   * signed in with. Needs a passkey verifier on the auth service.
   */
  async linkPasskey(mfaInput: MfaLoginInput = {}): Promise<LoginOutcome> {
    const sessionId = this.current.sessionId;
    if (!sessionId) throw AuthError.noUserFound();
    return this.runLogin({ loginProvider: 'passkey' }, mfaInput, (loginId) =>
      this.client.linkPasskey(sessionId, loginId),
    );
  }

  private async runLogin(
    loginParams: AuthLoginParams | AuthLoginParamsV6,
    mfaInput: MfaLoginInput,
    beforePage?: (loginId: string) => Promise<void>,
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
      beforePage,
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
    await this.cookieSettled();
    const outcome: LoginOutcome = this.state;
    if (result.backupPhrase) outcome.backupPhrase = result.backupPhrase;
    if (params.appState !== undefined) outcome.appState = params.appState;
    return outcome;
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
