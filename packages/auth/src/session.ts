// The session side of the client: the live session's state, its deadline and renewal, the
// user's session list, and logout. `Auth` adds the ways in (create, login, MFA) and the keys.
import type { AuthOptions, SessionExpiredEvent } from './auth-options.ts';
import { confirmInPopup } from './confirm-popup.ts';
import { AuthError } from './errors.ts';
import type { PendingMfaSession } from './mfa-login.ts';
import { browserWindow } from './popup.ts';
import { ProviderLink } from './providers/link.ts';
import type { ReadSession, ServiceClient, SessionInfo } from './service-client.ts';
import { SessionCookieSync } from './session-cookie.ts';
import { SessionWindow } from './session-deadline.ts';
import { renewOnService } from './session-renewal.ts';
import type { StorageAdapter } from './storage.ts';
import type {
  AuthState,
  AuthUserInfo,
  ChainConfig,
  KeyExportPolicy,
  SecondFactorInput,
  SessionPayload,
} from './types.ts';

/** The name the account page's popup is opened with. */
const ACCOUNT_POPUP_NAME = 'portico-account';

export abstract class AuthSession {
  private live: AuthState = {};
  /** A session of an MFA user whose key is not rebuilt yet (wrong factor: retry with `completeMfa`). */
  protected pendingMfa?: PendingMfaSession;
  /** `auth.provider`, in line with the keys (with a chainConfig). */
  protected readonly link: ProviderLink;
  /** When the session ends (the keys are dropped then and `sessionExpired` listeners are told) and renews. */
  protected readonly window: SessionWindow;
  /** Set when the last session expired (cleared by the next login). */
  protected expiredAt?: number;
  /** The session as the service stores it (MFA sessions: without the rebuilt key), for renewals. */
  protected stored?: SessionPayload;
  private readonly expiredListeners = new Set<(event: SessionExpiredEvent) => void>();
  private readonly changeListeners = new Set<() => void>();
  private renewing?: Promise<void>;
  /** Cookie mode: keeps the app server's cookie in line with the idToken. */
  private readonly cookie?: SessionCookieSync;

  protected constructor(
    protected readonly options: AuthOptions,
    protected readonly client: ServiceClient,
    protected readonly storage: StorageAdapter,
    protected readonly storageKey: string,
    chainConfig: ChainConfig | undefined,
  ) {
    if (options.sessionCookie) {
      this.cookie = new SessionCookieSync(
        options.sessionCookie,
        options.fetch ?? ((input, init) => fetch(input, init)),
        (m) => this.warn(m),
      );
    }
    this.window = new SessionWindow(() => this.expire(), options.autoRenew !== false);
    this.link = new ProviderLink(
      chainConfig,
      { getPrivKey: () => this.getPrivKey(), getEd25519PrivKey: () => this.getEd25519PrivKey() },
      options.fetch,
      () => this.emitChange(),
    );
  }

  /** The live state; every replacement tells the `change` listeners. */
  protected get current(): AuthState {
    return this.live;
  }
  protected set current(state: AuthState) {
    this.live = state;
    this.emitChange();
  }

  abstract getPrivKey(): string;
  abstract getEd25519PrivKey(): string;

  /** A copy of the current state (empty when logged out; only `error` once the session expired). */
  get state(): AuthState {
    this.checkExpiry();
    return structuredClone(this.current);
  }

  /** When the live session ends (ms since the epoch, this device's clock); undefined without one. */
  get sessionExpiresAt(): number | undefined {
    this.checkExpiry();
    return this.window.expiresAt;
  }

  /**
   * `sessionExpired`: the session reached its `sessionTime`. By then the instance has dropped the
   * keys, the user info and the stored sessionId, and `state.error` says so.
   * `change`: the state, the user or `auth.provider` changed (login, MFA completion, renewal,
   * logout, expiry); read them again. Beyond `002_…txt` (UI bindings such as `@portico/react` use it).
   * Returns an unsubscribe.
   */
  on(event: 'sessionExpired', listener: (event: SessionExpiredEvent) => void): () => void;
  on(event: 'change', listener: () => void): () => void;
  on(event: 'sessionExpired' | 'change', listener: (event: SessionExpiredEvent) => void): () => void {
    const listeners =
      event === 'sessionExpired'
        ? this.expiredListeners
        : event === 'change'
          ? this.changeListeners
          : undefined;
    if (!listeners) throw new TypeError(`Unknown event: ${String(event)}`);
    listeners.add(listener as () => void);
    return () => listeners.delete(listener as () => void);
  }

  private emitChange(): void {
    this.cookie?.update(this.live.sessionId ? this.live.userInfo?.idToken : undefined);
    for (const listener of this.changeListeners) {
      try {
        listener();
      } catch (err) {
        this.warn(`a change listener failed: ${(err as Error).message}`);
      }
    }
  }

  /** Resolves once the app server's cookie matches the session (cookie mode; at once otherwise). */
  protected cookieSettled(): Promise<void> {
    return this.cookie?.settled() ?? Promise.resolve();
  }

  protected warn(message: string): void {
    (this.options.onWarning ?? ((m: string) => console.warn(m)))(`[portico/auth] ${message}`);
  }

  /** Drops the session once its deadline passed (timers stop while devices sleep, so getters ask too). */
  protected checkExpiry(): void {
    if (this.window.passed()) this.expire();
    else this.touch();
  }

  protected expire(): void {
    if (!this.current.sessionId && !this.pendingMfa) return;
    this.window.clear();
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
  protected startDeadline(read: ReadSession): void {
    this.stored = read.state;
    this.window.set(read.expiresIn, read.idleTime, read.state.userInfo?.idToken);
  }

  /** Use of the app: renews the session in the background once half its idle window is gone. */
  protected touch(): void {
    if (!this.window.renewDue || this.renewing || !this.current.sessionId) return;
    this.refreshSession().catch((err: unknown) =>
      this.warn(`session renewal failed: ${(err as Error).message}`),
    );
  }

  /**
   * Renews the session now (the library does this by itself while the app is used, once half the
   * session's idle window is gone): a new sessionId, another \`sessionTime\` within the service's
   * \`maxSessionTime\`. The old sessionId stops working; presented again later, it ends this
   * sign-in everywhere (it must have been copied). Rejects with \`SESSION_EXPIRED\` (and drops the
   * keys) when the service ended the session. Beyond `002_…txt`.
   */
  refreshSession(): Promise<void> {
    this.renewing ??= this.renew()
      .then(() => this.cookieSettled())
      .finally(() => {
        this.renewing = undefined;
      });
    return this.renewing;
  }

  protected async renew(): Promise<void> {
    const sessionId = this.current.sessionId;
    if (!sessionId || !this.stored) throw AuthError.noUserFound();
    if (!this.window.renewable) {
      throw new AuthError(
        'SERVICE_ERROR',
        'This session cannot be renewed: it was made before the auth service renewed sessions (log in again for one that can)',
      );
    }
    const outcome = await renewOnService(
      this.client,
      this.storage,
      this.storageKey,
      sessionId,
      this.stored,
    ).catch((err: unknown) => {
      if (err instanceof AuthError && err.code === 'SESSION_EXPIRED') this.expire();
      throw err;
    });
    if (outcome.kind === 'adopt') return this.adopt(outcome.sessionId);
    const { renewed } = outcome;
    if (this.current.sessionId !== sessionId) return; // logged out or in again meanwhile
    await this.storage.set(this.storageKey, renewed.sessionId);
    const fresh = <T extends { userInfo?: AuthUserInfo }>(s: T): T =>
      renewed.idToken && s.userInfo ? { ...s, userInfo: { ...s.userInfo, idToken: renewed.idToken } } : s;
    this.current = fresh({ ...this.current, sessionId: renewed.sessionId });
    this.stored = fresh({ ...this.stored, sessionId: renewed.sessionId });
    this.window.set(renewed.expiresIn, renewed.idleTime);
  }

  /** Switches to the sessionId another tab renewed this session to (same keys). */
  protected async adopt(sessionId: string): Promise<void> {
    const read = await this.client.readSession(sessionId);
    if (!read) {
      this.expire();
      throw AuthError.sessionExpired();
    }
    // The renewing tab's idToken comes with the read; the login's would be stale.
    const idToken = read.state.userInfo?.idToken;
    const userInfo =
      this.current.userInfo && idToken ? { ...this.current.userInfo, idToken } : this.current.userInfo;
    this.current = { ...this.current, sessionId, ...(userInfo ? { userInfo } : {}) };
    this.startDeadline(read);
  }

  /**
   * The user's signed-in sessions in this app (this one has \`current: true\`), each with an \`id\`
   * for \`endSession\`. Beyond `002_…txt`.
   */
  async listSessions(): Promise<SessionInfo[]> {
    const sessionId = this.current.sessionId;
    if (!sessionId) throw AuthError.noUserFound();
    return this.client.listSessions(sessionId);
  }

  /**
   * Ends one of the user's sessions (an \`id\` from \`listSessions\`); ending this instance's own
   * session logs out here too. False when it had ended already. Beyond `002_…txt`.
   */
  async endSession(id: string): Promise<boolean> {
    const sessionId = this.current.sessionId;
    if (!sessionId) throw AuthError.noUserFound();
    const own = (await this.client.listSessions(sessionId)).find((s) => s.current)?.id === id;
    const ended = await this.client.endSession(sessionId, id, this.current.coreKitKey);
    if (own) await this.forget();
    return ended;
  }

  /**
   * For an MFA user under export policy \`user\` or \`off\` (the app never holds the key): shows the
   * auth service a second factor (\`{password}\`, \`{backupPhrase}\` or \`{authenticatorCode}\`), so
   * this session may then end other sessions, revoke a device's MFA share (`revokeDevice`) and open
   * the account page, until this sign-in ends. \`{ passkey: true }\`: the account's MFA passkey
   * answers on the auth service's page in a popup (call it from a click: the popup opens at once);
   * resolves once the service has the answer, rejects with \`USER_CANCELLED\` when the popup closes
   * first and \`NO_BROWSER\` when it is blocked. Beyond `002_…txt`.
   */
  async confirmSecondFactor(factor: SecondFactorInput): Promise<void> {
    const sessionId = this.current.sessionId;
    if (!sessionId) throw AuthError.noUserFound();
    if (!('passkey' in factor)) return this.client.confirmSecondFactor(sessionId, factor);
    const win = browserWindow();
    if (!win)
      throw new AuthError('NO_BROWSER', "No browser here: the passkey answers on the auth service's page");
    // The session may renew meanwhile: each call signs with the current sessionId.
    const current = () => this.current.sessionId ?? sessionId;
    await confirmInPopup(win, {
      url: () => this.client.confirmPageUrl(current(), factor.lang),
      confirmed: () => this.client.confirmed(current()),
    });
  }

  /**
   * A one-time link to the auth service's own account page, where the user sees and ends their
   * sessions and removes passkeys (docs/account-page.md): good for one opening within two minutes,
   * in a tab or a popup. `lang`: one of the login page's languages (else the browser's). Beyond
   * `002_…txt`.
   */
  async accountPageUrl(options: { lang?: string } = {}): Promise<string> {
    const sessionId = this.current.sessionId;
    if (!sessionId) throw AuthError.noUserFound();
    return this.client.accountPageUrl(sessionId, this.current.coreKitKey, options.lang);
  }

  /**
   * Opens the account page in a popup. The window opens before the service is asked for the link,
   * so a click's user activation still counts; it never keeps a handle back to the app. Beyond
   * `002_…txt`.
   */
  async openAccountPage(options: { lang?: string } = {}): Promise<void> {
    const win = browserWindow();
    if (!win) throw new AuthError('NO_BROWSER', 'No browser here: open accountPageUrl() yourself');
    const popup = win.open('about:blank', ACCOUNT_POPUP_NAME, 'popup,width=480,height=720');
    if (!popup)
      throw new AuthError('NO_BROWSER', 'The account page popup was blocked: open accountPageUrl() in a tab');
    try {
      const url = await this.accountPageUrl(options);
      popup.opener = null;
      popup.location.assign(url);
    } catch (err) {
      popup.close();
      throw err;
    }
  }

  /** Invalidates the session on the service at once and forgets it here. */
  async logout(): Promise<void> {
    const sessionId = this.current.sessionId;
    if (!sessionId) throw AuthError.noUserFound();
    await this.client.invalidate(sessionId);
    await this.forget();
  }

  /** Forgets the session here (the service has ended it). */
  protected async forget(): Promise<void> {
    await this.storage.remove(this.storageKey);
    this.window.clear();
    this.stored = undefined;
    this.current = {};
    await this.link.sync();
    await this.cookieSettled();
  }

  /**
   * The auth service's export policy for this app, as the live session says (`app` without one):
   * with `user` or `off` the service never sends this app the keys, and the key getters return `""`.
   * Beyond `002_…txt`.
   */
  get keyExport(): KeyExportPolicy {
    return this.stored?.keyExport ?? 'app';
  }
}
