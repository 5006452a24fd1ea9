import type {
  Auth,
  AuthLoginParams,
  AuthLoginParamsV6,
  AuthProvider,
  LoginOutcome,
  MfaLoginInput,
} from '@portico/auth';
import { useCallback, useMemo, useState, useSyncExternalStore } from 'react';
import { useAuthStore } from './provider.ts';
import type { AuthSnapshot, AuthStore } from './store.ts';

function useSnapshot(store: AuthStore): AuthSnapshot {
  return useSyncExternalStore(store.subscribe, store.getSnapshot, store.getServerSnapshot);
}

export interface UseAuthResult extends Omit<AuthSnapshot, 'provider'> {
  /** The instance, once status is not 'loading' (for `completeMfa`, `getPrivKey`, `switchChain`…). */
  auth?: Auth;
  /** Ends the session on the service and here; rejects like `auth.logout()`. */
  logout(): Promise<void>;
}

/** The session: status 'loading' (server render, hydration, `Auth.create`), 'signedOut' or 'signedIn'. */
export function useAuth(): UseAuthResult {
  const store = useAuthStore('useAuth');
  const snapshot = useSnapshot(store);
  const logout = useCallback(() => store.require('logout').logout(), [store]);
  const auth = snapshot.status === 'loading' ? undefined : store.auth;
  return useMemo(() => {
    const { provider: _provider, ...rest } = snapshot;
    return { ...rest, auth, logout };
  }, [snapshot, auth, logout]);
}

export interface UseLoginResult {
  /**
   * `auth.login(params, mfaInput)`. Resolves with the outcome, or with undefined when the login
   * failed or was cancelled: `error` then says why (an `AuthError` with its `code`, e.g.
   * `USER_CANCELLED`, `MFA_REQUIRED`), so a click handler needs no catch.
   */
  login(
    params?: AuthLoginParams | AuthLoginParamsV6,
    mfaInput?: MfaLoginInput,
  ): Promise<LoginOutcome | undefined>;
  isPending: boolean;
  /** The last attempt's failure; cleared when the next one starts. */
  error?: Error;
  /** False until the instance is there (logging in before fails with `AUTH_NOT_READY`). */
  ready: boolean;
}

export function useLogin(): UseLoginResult {
  const store = useAuthStore('useLogin');
  const { status } = useSnapshot(store);
  const [isPending, setPending] = useState(false);
  const [error, setError] = useState<Error>();
  const login = useCallback(
    async (params?: AuthLoginParams | AuthLoginParamsV6, mfaInput?: MfaLoginInput) => {
      setPending(true);
      setError(undefined);
      try {
        return await store.require('login').login(params, mfaInput);
      } catch (err) {
        setError(err instanceof Error ? err : new Error(String(err)));
        return undefined;
      } finally {
        setPending(false);
      }
    },
    [store],
  );
  return { login, isPending, error, ready: status !== 'loading' };
}

/**
 * `auth.provider` (EIP-1193 on eip155, Web3Auth's Solana provider on solana) while signed in with
 * a `chainConfig`; undefined otherwise, and during the server render and hydration.
 */
export function useProvider(): AuthProvider | undefined {
  return useSnapshot(useAuthStore('useProvider')).provider;
}
