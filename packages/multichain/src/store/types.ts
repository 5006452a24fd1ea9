import type { Session } from '../caip/types.ts';

/** Where sessions live: one session per dapp origin, no session ids. */
export interface SessionStore {
  get(origin: string): Promise<Session | undefined>;
  set(origin: string, session: Session): Promise<void>;
  /** Removes the origin's session; resolves true when there was one. */
  delete(origin: string): Promise<boolean>;
  list(): Promise<{ origin: string; session: Session }[]>;
  close(): Promise<void>;
}
