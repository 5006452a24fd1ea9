// What the auth service keeps, whatever the database: the store interface and its rows.

/**
 * Everything the service keeps. Values arrive already encrypted (sessions ECIES, keys enveloped):
 * the store never sees plaintext key material.
 */
export interface AuthStore {
  /** Inserts a session or parked login request; false when the key exists already. */
  putSession(key: string, data: string, expiresAt: number): Promise<boolean>;
  /** The live (unexpired) entry, or undefined. */
  getSession(key: string, now: number): Promise<string | undefined>;
  /** The live entry with its expiry (ms), or undefined. */
  getSessionEntry(key: string, now: number): Promise<SessionEntry | undefined>;
  deleteSession(key: string): Promise<boolean>;
  /** The enveloped coreKitKey for a lookup id, or undefined. */
  getCoreKey(id: string): Promise<string | undefined>;
  /** Stores an enveloped coreKitKey unless one exists; returns the stored one either way. */
  putCoreKeyIfAbsent(id: string, wrapped: string, now: number): Promise<string>;
  /** Records a token hash; false when it was seen before (replay). */
  markTokenUsed(hash: string, expiresAt: number): Promise<boolean>;
  getValue(name: string): Promise<string | undefined>;
  /** Sets a value unless present; returns the stored one. */
  putValueIfAbsent(name: string, value: string): Promise<string>;
  /** Sets or replaces a value (MFA records, login counters). */
  setValue(name: string, value: string): Promise<void>;
  /** Replaces a value only while it is still `expected` (compare-and-set); false when it is not. */
  replaceValue(name: string, expected: string, value: string): Promise<boolean>;
  /** Deletes a coreKitKey (when MFA replaces it by the service's share); false when absent. */
  deleteCoreKey(id: string): Promise<boolean>;
  /** Drops expired sessions and token marks, and session chains whose current session is gone. */
  purge(now: number): Promise<void>;
  /** Records a new session chain (a sign-in) and its first session key. */
  createChain(chain: ChainRow): Promise<void>;
  /** The chain a session key belongs to (its current key or one it rotated away), or undefined. */
  chainOfKey(
    key: string,
  ): Promise<{ chain: ChainRow; rotated?: { nextKey: string; at: number } } | undefined>;
  /**
   * Renews a chain in one transaction: the live session `oldKey` (still the chain's current key)
   * becomes `newKey` with `data` until `expiresAt`. False (nothing changed) when `oldKey` is not
   * the current key any more, the chain is revoked, or its session expired.
   */
  rotateChain(
    chainId: string,
    oldKey: string,
    newKey: string,
    data: string,
    now: number,
    expiresAt: number,
    token: string,
  ): Promise<boolean>;
  /** Ends a chain: marks it revoked and deletes its current session; the current key, or undefined when already ended. */
  revokeChain(chainId: string, now: number): Promise<string | undefined>;
  /** The user's chains whose current session is live, newest first. */
  listChains(userId: string, now: number): Promise<LiveChain[]>;
  /**
   * Counts an attempt of `subject` at `now` as a failure before the factor is checked, in one
   * atomic statement (instances sharing the store count together, and parallel attempts cannot
   * all slip in before a wait is written): refused (`counted: false`) while the subject waits;
   * else the new count and the wait it starts (`notBefore`, from `rule.waitSql`).
   */
  beginAttempt(subject: string, now: number, rule: AttemptRule): Promise<AttemptStart>;
  /**
   * Takes back one counted attempt (it succeeded, or another subject refused it). With
   * `startedWait` (the `notBefore` that attempt's count wrote), the wait it started goes too,
   * unless another attempt has written a wait since.
   */
  uncountAttempt(subject: string, startedWait?: number): Promise<void>;
  getAttempts(subject: string): Promise<AttemptRow | undefined>;
  /** Forgets a subject's failures (a right guess, or the operator's unlock); false when none. */
  clearAttempts(subject: string): Promise<boolean>;
  /** Subjects that must wait past `now`. */
  lockedSubjects(now: number): Promise<AttemptRow[]>;
  /**
   * Appends an audit entry chained to the last one: `chain(previousHash, seq)` gives the entry's
   * hash. Serialized across instances (one writer at a time), so the chain has no forks.
   */
  appendAudit(entry: AuditInput, chain: (previousHash: string, seq: number) => string): Promise<AuditRow>;
  /** Audit entries in order, filtered (all of them for `verify`). */
  readAudit(filter: AuditFilter): Promise<AuditRow[]>;
  /** Records a passkey (WebAuthn credential); false when its credential id is known already. */
  putPasskey(row: PasskeyRow): Promise<boolean>;
  getPasskey(credentialId: string): Promise<PasskeyRow | undefined>;
  /** The passkeys registered for one WebAuthn user handle (an account). */
  listPasskeys(userHandle: string): Promise<PasskeyRow[]>;
  /**
   * Records a sign-in with a passkey: its signature counter moves from `counter` to `next`. False
   * (nothing changed) when the stored counter is no longer `counter` (another sign-in came first).
   */
  usePasskey(credentialId: string, counter: number, next: number, now: number): Promise<boolean>;
  /**
   * Deletes a passkey of one account (its user handle): false when no such passkey of that account
   * exists (another account's credential id deletes nothing).
   */
  deletePasskey(credentialId: string, userHandle: string): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * A passkey: a WebAuthn credential's public key and signature counter, and the account it signs
 * in to (`account`: the verifier, verifier id and claim, sealed by the service's envelope).
 */
export interface PasskeyRow {
  /** base64url, as the authenticator gave it. */
  credentialId: string;
  /** The WebAuthn user handle (base64url): one per account. */
  userHandle: string;
  account: string;
  /** The COSE public key, base64url. */
  publicKey: string;
  counter: number;
  transports: string[];
  createdAt: number;
  lastUsed: number;
}

/**
 * A sign-in whose session renews itself: each renewal replaces the session key (`currentKey`), up
 * to `endsAt`; `idleMs` is the sliding window a renewal grants.
 */
export interface ChainRow {
  id: string;
  userId: string;
  clientId: string;
  currentKey: string;
  idleMs: number;
  createdAt: number;
  lastUsed: number;
  /** The absolute end (ms); `Number.MAX_SAFE_INTEGER` when the operator set no cap. */
  endsAt: number;
  revokedAt?: number;
  /** The idToken's claims (sealed), signed again at each renewal. */
  claims: string;
  /** The idToken of the last renewal, ECIES-encrypted to the current key. */
  token?: string;
  /** The device's name as its library gave it at login. */
  device?: string;
}

/** A chain with the expiry of its current session. */
export interface LiveChain extends ChainRow {
  expiresAt: number;
}

/** How an attempt is counted: the SQL of the wait (ms) after `failures`, given whether it was quick. */
export interface AttemptRule {
  resetAfterMs: number;
  /** A SQL expression (numbers only) from SQL expressions for the count and quickness (0 or 1). */
  waitSql: (failures: string, quick: string) => string;
  /** 0: no quick-failure check for this subject. */
  quickFailureMs: number;
}

export type AttemptStart =
  | { counted: true; failures: number; notBefore: number }
  | { counted: false; notBefore: number };

export interface AttemptRow {
  subject: string;
  failures: number;
  lastFailure: number;
  notBefore: number;
}

/** What an audit entry says: never a token, key or factor value. */
export interface AuditInput {
  at: number;
  event: string;
  userId?: string;
  /** JSON object text (verifier, client id, network, outcome, address...). */
  detail: string;
}

export interface AuditRow extends AuditInput {
  seq: number;
  prevHash: string;
  hash: string;
}

export interface AuditFilter {
  userId?: string;
  event?: string;
  /** ms, inclusive. */
  since?: number;
  until?: number;
  /** After this seq (paging). */
  afterSeq?: number;
  limit?: number;
}

/** The hash before the first audit entry. */
export const AUDIT_GENESIS = '0'.repeat(64);

export interface SessionEntry {
  data: string;
  expiresAt: number;
}
