// The `Auth` instance seen as an external store for `useSyncExternalStore`: one immutable snapshot
// per visible change (`auth.on('change')`), and a fixed 'loading' snapshot for the server render
// and hydration, so the server never reads the instance (nor window or localStorage through it).
import type { Auth, AuthProvider, AuthUserInfo } from '@portico/auth';
import { PorticoReactError } from './errors.ts';

export type AuthStatus = 'loading' | 'signedOut' | 'signedIn';

/** What the hooks render from. */
export interface AuthSnapshot {
  status: AuthStatus;
  /** The signed-in user (no keys); undefined otherwise. */
  userInfo?: AuthUserInfo;
  /** Why the last login or restore failed, or that the session expired (`auth.state.error`). */
  error?: string;
  /** `auth.provider` while signed in with a `chainConfig`. */
  provider?: AuthProvider;
}

const LOADING: AuthSnapshot = Object.freeze({ status: 'loading' });

function same(a: AuthSnapshot, b: AuthSnapshot): boolean {
  return (
    a.status === b.status &&
    a.error === b.error &&
    a.provider === b.provider &&
    JSON.stringify(a.userInfo) === JSON.stringify(b.userInfo)
  );
}

export class AuthStore {
  private current?: Auth;
  private failure?: string;
  private starting = false;
  private snapshot: AuthSnapshot = LOADING;
  private readonly listeners = new Set<() => void>();
  private stopListening?: () => void;

  constructor(auth?: Auth) {
    this.current = auth;
  }

  /** The instance, once there (`Auth.create` done); set once. */
  get auth(): Auth | undefined {
    return this.current;
  }

  /** The instance, or an `AUTH_NOT_READY` error naming the caller. */
  require(caller: string): Auth {
    if (!this.current) {
      throw new PorticoReactError(
        'AUTH_NOT_READY',
        `${caller}: the auth instance is not ready yet (status 'loading'${this.failure ? `; it failed: ${this.failure}` : ''})`,
      );
    }
    return this.current;
  }

  /** Creates the instance (options mode), once per store. */
  start(create: () => Promise<Auth>): void {
    if (this.current || this.starting) return;
    this.starting = true;
    create().then(
      (auth) => this.attach(auth),
      (error: unknown) => this.fail(error),
    );
  }

  private attach(auth: Auth): void {
    if (this.current) return;
    this.current = auth;
    if (this.listeners.size > 0) this.stopListening = auth.on('change', this.refresh);
    this.refresh();
  }

  /** `Auth.create` failed: the app is signed out, with the reason. */
  private fail(error: unknown): void {
    this.failure = error instanceof Error ? error.message : String(error);
    this.refresh();
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    if (this.listeners.size === 1 && this.current)
      this.stopListening = this.current.on('change', this.refresh);
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) {
        this.stopListening?.();
        this.stopListening = undefined;
      }
    };
  };

  getSnapshot = (): AuthSnapshot => {
    // Before anyone listens (a client render before its effects), read the instance now.
    if (!this.stopListening) this.snapshot = this.keep(this.read());
    return this.snapshot;
  };

  getServerSnapshot = (): AuthSnapshot => LOADING;

  private refresh = (): void => {
    const next = this.keep(this.read());
    if (next === this.snapshot) return;
    this.snapshot = next;
    for (const listener of this.listeners) listener();
  };

  /** The same object while nothing visible changed, as `useSyncExternalStore` requires. */
  private keep(next: AuthSnapshot): AuthSnapshot {
    return same(next, this.snapshot) ? this.snapshot : next;
  }

  private read(): AuthSnapshot {
    const auth = this.current;
    if (!auth) return this.failure ? { status: 'signedOut', error: this.failure } : LOADING;
    const { sessionId, userInfo, error } = auth.state;
    const snapshot: AuthSnapshot = { status: sessionId ? 'signedIn' : 'signedOut' };
    if (sessionId && userInfo) snapshot.userInfo = userInfo;
    if (error !== undefined) snapshot.error = error;
    const provider = auth.provider;
    if (provider) snapshot.provider = provider;
    return snapshot;
  }
}
