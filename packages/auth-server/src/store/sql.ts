// What both store backends share: the schema steps, the SQL both run (placeholders given by the
// caller: `?n` for SQLite, `$n` for PostgreSQL) and the mapping of their rows.
import type { SchemaStep } from '@portico/store-schema';
import { BaseError } from '../base-error.ts';
import type { AttemptRow, AttemptRule, AuditFilter, AuditRow, ChainRow, PasskeyRow } from './types.ts';

/**
 * The store's schema steps, applied in order (SQLite: `PRAGMA user_version`; PostgreSQL: rows of
 * `auth_migrations`). A new table or column is a new step at the end; a step is never edited once
 * released. Step 1 is the schema stores had before they were versioned (`IF NOT EXISTS`: such a
 * store is taken as it is).
 */
export const AUTH_SCHEMA: readonly SchemaStep[] = [
  {
    version: 1,
    name: 'sessions, keys, used tokens, values',
    sql: `CREATE TABLE IF NOT EXISTS auth_sessions (key TEXT PRIMARY KEY, data TEXT NOT NULL, expires_at BIGINT NOT NULL);
      CREATE TABLE IF NOT EXISTS auth_core_keys (id TEXT PRIMARY KEY, wrapped TEXT NOT NULL, created_at BIGINT NOT NULL);
      CREATE TABLE IF NOT EXISTS auth_used_tokens (hash TEXT PRIMARY KEY, expires_at BIGINT NOT NULL);
      CREATE TABLE IF NOT EXISTS auth_values (name TEXT PRIMARY KEY, value TEXT NOT NULL)`,
  },
  {
    version: 2,
    name: 'attempt counters, audit log',
    sql: `CREATE TABLE IF NOT EXISTS auth_attempts (subject TEXT PRIMARY KEY, failures INTEGER NOT NULL, last_failure BIGINT NOT NULL,
        previous_failure BIGINT NOT NULL, not_before BIGINT NOT NULL);
      CREATE TABLE IF NOT EXISTS auth_audit (seq BIGINT PRIMARY KEY, at BIGINT NOT NULL, event TEXT NOT NULL, user_id TEXT,
        detail TEXT NOT NULL, prev_hash TEXT NOT NULL, hash TEXT NOT NULL);
      CREATE INDEX IF NOT EXISTS auth_audit_user ON auth_audit (user_id, seq);
      CREATE INDEX IF NOT EXISTS auth_audit_event ON auth_audit (event, seq)`,
  },
  {
    version: 3,
    name: 'session chains (refresh, devices)',
    sql: `CREATE TABLE IF NOT EXISTS auth_session_chains (id TEXT PRIMARY KEY, user_id TEXT NOT NULL, client_id TEXT NOT NULL,
        current_key TEXT NOT NULL, idle_ms BIGINT NOT NULL, created_at BIGINT NOT NULL, last_used BIGINT NOT NULL,
        ends_at BIGINT NOT NULL, revoked_at BIGINT, claims TEXT NOT NULL, token TEXT, device TEXT);
      CREATE INDEX IF NOT EXISTS auth_session_chains_user ON auth_session_chains (user_id);
      CREATE TABLE IF NOT EXISTS auth_session_keys (key TEXT PRIMARY KEY, chain_id TEXT NOT NULL, next_key TEXT, rotated_at BIGINT);
      CREATE INDEX IF NOT EXISTS auth_session_keys_chain ON auth_session_keys (chain_id)`,
  },
  {
    version: 4,
    name: 'passkeys (WebAuthn credentials)',
    sql: `CREATE TABLE IF NOT EXISTS auth_passkeys (credential_id TEXT PRIMARY KEY, user_handle TEXT NOT NULL, account TEXT NOT NULL,
        public_key TEXT NOT NULL, counter BIGINT NOT NULL, transports TEXT NOT NULL, created_at BIGINT NOT NULL, last_used BIGINT NOT NULL);
      CREATE INDEX IF NOT EXISTS auth_passkeys_user ON auth_passkeys (user_handle)`,
  },
];

export interface ChainDbRow {
  id: string;
  user_id: string;
  client_id: string;
  current_key: string;
  idle_ms: number | string;
  created_at: number | string;
  last_used: number | string;
  ends_at: number | string;
  revoked_at: number | string | null;
  claims: string;
  token: string | null;
  device: string | null;
  expires_at?: number | string;
  next_key?: string | null;
  rotated_at?: number | string | null;
}

export const toChain = (r: ChainDbRow): ChainRow => ({
  id: r.id,
  userId: r.user_id,
  clientId: r.client_id,
  currentKey: r.current_key,
  idleMs: Number(r.idle_ms),
  createdAt: Number(r.created_at),
  lastUsed: Number(r.last_used),
  endsAt: Number(r.ends_at),
  revokedAt: r.revoked_at === null ? undefined : Number(r.revoked_at),
  claims: r.claims,
  token: r.token ?? undefined,
  device: r.device ?? undefined,
});

export const CHAIN_OF_KEY_SQL = (p: (n: number) => string) =>
  `SELECT c.*, k.next_key, k.rotated_at FROM auth_session_keys k JOIN auth_session_chains c ON c.id = k.chain_id WHERE k.key = ${p(1)}`;
export const LIST_CHAINS_SQL = (p: (n: number) => string) =>
  `SELECT c.*, s.expires_at FROM auth_session_chains c JOIN auth_sessions s ON s.key = c.current_key
   WHERE c.user_id = ${p(1)} AND c.revoked_at IS NULL AND s.expires_at > ${p(2)} ORDER BY c.created_at DESC, c.id`;
export const PURGE_CHAINS_SQL = [
  'DELETE FROM auth_session_chains WHERE NOT EXISTS (SELECT 1 FROM auth_sessions s WHERE s.key = auth_session_chains.current_key)',
  'DELETE FROM auth_session_keys WHERE NOT EXISTS (SELECT 1 FROM auth_session_chains c WHERE c.id = auth_session_keys.chain_id)',
];

export function chainOfKeyResult(r: ChainDbRow | undefined) {
  if (!r) return undefined;
  const chain = toChain(r);
  return r.next_key && r.rotated_at !== null && r.rotated_at !== undefined
    ? { chain, rotated: { nextKey: r.next_key, at: Number(r.rotated_at) } }
    : { chain };
}

export interface PasskeyDbRow {
  credential_id: string;
  user_handle: string;
  account: string;
  public_key: string;
  counter: number | string;
  transports: string;
  created_at: number | string;
  last_used: number | string;
}

export const toPasskey = (r: PasskeyDbRow): PasskeyRow => ({
  credentialId: r.credential_id,
  userHandle: r.user_handle,
  account: r.account,
  publicKey: r.public_key,
  counter: Number(r.counter),
  transports: JSON.parse(r.transports) as string[],
  createdAt: Number(r.created_at),
  lastUsed: Number(r.last_used),
});

export const PUT_PASSKEY_SQL = (p: (n: number) => string) =>
  `INSERT INTO auth_passkeys (credential_id, user_handle, account, public_key, counter, transports, created_at, last_used)
   VALUES (${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}, ${p(5)}, ${p(6)}, ${p(7)}, ${p(8)}) ON CONFLICT (credential_id) DO NOTHING`;
export const passkeyParams = (row: PasskeyRow): unknown[] => [
  row.credentialId,
  row.userHandle,
  row.account,
  row.publicKey,
  row.counter,
  JSON.stringify(row.transports),
  row.createdAt,
  row.lastUsed,
];
/** Moves the signature counter on only from the value the check read (two logins at once: one wins). */
export const USE_PASSKEY_SQL = (p: (n: number) => string) =>
  `UPDATE auth_passkeys SET counter = ${p(3)}, last_used = ${p(4)} WHERE credential_id = ${p(1)} AND counter = ${p(2)}`;

export interface AttemptDbRow {
  subject: string;
  failures: number | string;
  last_failure: number | string;
  previous_failure?: number | string;
  not_before: number | string;
}

export interface AuditDbRow {
  seq: number | string;
  at: number | string;
  event: string;
  user_id: string | null;
  detail: string;
  prev_hash: string;
  hash: string;
}

export const toAttempt = (r: AttemptDbRow): AttemptRow => ({
  subject: r.subject,
  failures: Number(r.failures),
  lastFailure: Number(r.last_failure),
  notBefore: Number(r.not_before),
});

export const toAudit = (r: AuditDbRow): AuditRow => ({
  seq: Number(r.seq),
  at: Number(r.at),
  event: r.event,
  userId: r.user_id ?? undefined,
  detail: r.detail,
  prevHash: r.prev_hash,
  hash: r.hash,
});

/** The WHERE clause of an audit filter, with `?` or `$n` placeholders. */
export function auditWhere(
  filter: AuditFilter,
  placeholder: (n: number) => string,
): { sql: string; params: unknown[] } {
  const parts: string[] = [];
  const params: unknown[] = [];
  const add = (clause: string, value: unknown) => {
    params.push(value);
    parts.push(clause.replace('?', placeholder(params.length)));
  };
  if (filter.userId !== undefined) add('user_id = ?', filter.userId);
  if (filter.event !== undefined) add('event = ?', filter.event);
  if (filter.since !== undefined) add('at >= ?', filter.since);
  if (filter.until !== undefined) add('at <= ?', filter.until);
  if (filter.afterSeq !== undefined) add('seq > ?', filter.afterSeq);
  const where = parts.length ? ` WHERE ${parts.join(' AND ')}` : '';
  const limit = filter.limit !== undefined ? ` LIMIT ${Math.max(1, Math.floor(filter.limit))}` : '';
  return { sql: `SELECT * FROM auth_audit${where} ORDER BY seq${limit}`, params };
}

/**
 * The attempt upsert: counts unless the subject waits (then no row changes and none returns). An
 * attempt that starts no wait leaves `not_before` at 0, not at its own clock: a concurrent attempt
 * whose clock read a moment earlier (another instance, or a request that reached the store second)
 * is not made to wait for nothing.
 */
export function beginAttemptSql(p: (n: number) => string, rule: AttemptRule): string {
  const since = `(${p(2)} - auth_attempts.last_failure)`;
  const failures = `(CASE WHEN ${since} > ${p(3)} THEN 1 ELSE auth_attempts.failures + 1 END)`;
  const quick =
    rule.quickFailureMs > 0 ? `(CASE WHEN ${since} < ${rule.quickFailureMs} THEN 1 ELSE 0 END)` : '0';
  const until = (wait: string) => `COALESCE(${p(2)} + NULLIF(${wait}, 0), 0)`;
  return `INSERT INTO auth_attempts (subject, failures, last_failure, previous_failure, not_before)
   VALUES (${p(1)}, 1, ${p(2)}, 0, ${until(rule.waitSql('1', '0'))})
   ON CONFLICT (subject) DO UPDATE SET
     failures = ${failures},
     previous_failure = auth_attempts.last_failure,
     last_failure = ${p(2)},
     not_before = ${until(rule.waitSql(failures, quick))}
   WHERE auth_attempts.not_before <= ${p(2)}
   RETURNING failures, not_before`;
}

/** Thrown inside a rotation transaction to roll it back: the key was not the live current one. */
export class RotateRefused extends BaseError {
  override readonly name: string = 'RotateRefused';

  constructor() {
    super('ROTATE_REFUSED', 'the key is not the live current key of its chain');
  }
}

export interface Row {
  data?: string;
  expires_at?: number | string;
  wrapped?: string;
  value?: string;
}
