import type { Session } from '../caip/types.ts';
import type { SessionStore } from './types.ts';

/** Sessions in memory: lost when the process ends. For tests and throwaway wallets. */
export function createMemorySessionStore(): SessionStore {
  const sessions = new Map<string, Session>();
  return {
    async get(origin) {
      const session = sessions.get(origin);
      return session ? structuredClone(session) : undefined;
    },
    async set(origin, session) {
      sessions.set(origin, structuredClone(session));
    },
    async delete(origin) {
      return sessions.delete(origin);
    },
    async list() {
      return [...sessions].map(([origin, session]) => ({ origin, session: structuredClone(session) }));
    },
    async close() {},
  };
}
