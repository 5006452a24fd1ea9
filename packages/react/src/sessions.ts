import type { SessionInfo } from '@portico/auth';
import { useCallback, useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { useAuthStore } from './provider.ts';

export interface UseSessionsResult {
  /** The user's sessions in this app (`auth.listSessions()`); undefined until read and when signed out. */
  sessions?: SessionInfo[];
  isLoading: boolean;
  /** The last read's or end's failure; cleared by the next one. */
  error?: Error;
  /** Reads the list again. */
  refresh(): Promise<void>;
  /**
   * `auth.endSession(id)`, then reads the list again (ending this device's own session signs out
   * here). Resolves false when it had ended already, or when ending failed (`error` says why).
   */
  end(id: string): Promise<boolean>;
}

/** The signed-in user's sessions, read when the user signs in; empty-handed when signed out. */
export function useSessions(): UseSessionsResult {
  const store = useAuthStore('useSessions');
  const { status, userInfo } = useSyncExternalStore(
    store.subscribe,
    store.getSnapshot,
    store.getServerSnapshot,
  );
  const [sessions, setSessions] = useState<SessionInfo[]>();
  const [isLoading, setLoading] = useState(false);
  const [error, setError] = useState<Error>();
  // Only the latest read may set the list (a slow earlier one must not overwrite it).
  const latest = useRef(0);

  const refresh = useCallback(async () => {
    const read = ++latest.current;
    const auth = store.auth;
    if (!auth?.state.sessionId) {
      setSessions(undefined);
      return;
    }
    setLoading(true);
    setError(undefined);
    try {
      const list = await auth.listSessions();
      if (read === latest.current) setSessions(list);
    } catch (err) {
      if (read === latest.current) setError(err instanceof Error ? err : new Error(String(err)));
    } finally {
      if (read === latest.current) setLoading(false);
    }
  }, [store]);

  const end = useCallback(
    async (id: string) => {
      let ended = false;
      let failure: Error | undefined;
      try {
        ended = await store.require('useSessions().end').endSession(id);
      } catch (err) {
        failure = err instanceof Error ? err : new Error(String(err));
      }
      await refresh();
      if (failure) setError(failure);
      return ended;
    },
    [store, refresh],
  );

  const user = status === 'signedIn' ? `${userInfo?.verifier}/${userInfo?.verifierId}` : undefined;
  // biome-ignore lint/correctness/useExhaustiveDependencies: read again when another user signs in or out
  useEffect(() => {
    refresh();
  }, [user, refresh]);

  return { sessions, isLoading, error, refresh, end };
}
