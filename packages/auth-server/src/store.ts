import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { migratePostgresSchema, migrateSqliteSchema, type SchemaStep } from '@portico/store-schema';
import Database from 'libsql';
import pg from 'pg';

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
  /** Takes back one counted attempt (it succeeded, or another subject refused it). */
  uncountAttempt(subject: string): Promise<void>;
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
  close(): Promise<void>;
}

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
];

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

interface ChainDbRow {
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

const toChain = (r: ChainDbRow): ChainRow => ({
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

const CHAIN_OF_KEY_SQL = (p: (n: number) => string) =>
  `SELECT c.*, k.next_key, k.rotated_at FROM auth_session_keys k JOIN auth_session_chains c ON c.id = k.chain_id WHERE k.key = ${p(1)}`;
const LIST_CHAINS_SQL = (p: (n: number) => string) =>
  `SELECT c.*, s.expires_at FROM auth_session_chains c JOIN auth_sessions s ON s.key = c.current_key
   WHERE c.user_id = ${p(1)} AND c.revoked_at IS NULL AND s.expires_at > ${p(2)} ORDER BY c.created_at DESC, c.id`;
const PURGE_CHAINS_SQL = [
  'DELETE FROM auth_session_chains WHERE NOT EXISTS (SELECT 1 FROM auth_sessions s WHERE s.key = auth_session_chains.current_key)',
  'DELETE FROM auth_session_keys WHERE NOT EXISTS (SELECT 1 FROM auth_session_chains c WHERE c.id = auth_session_keys.chain_id)',
];

function chainOfKeyResult(r: ChainDbRow | undefined) {
  if (!r) return undefined;
  const chain = toChain(r);
  return r.next_key && r.rotated_at !== null && r.rotated_at !== undefined
    ? { chain, rotated: { nextKey: r.next_key, at: Number(r.rotated_at) } }
    : { chain };
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

interface AttemptDbRow {
  subject: string;
  failures: number | string;
  last_failure: number | string;
  previous_failure?: number | string;
  not_before: number | string;
}

interface AuditDbRow {
  seq: number | string;
  at: number | string;
  event: string;
  user_id: string | null;
  detail: string;
  prev_hash: string;
  hash: string;
}

const toAttempt = (r: AttemptDbRow): AttemptRow => ({
  subject: r.subject,
  failures: Number(r.failures),
  lastFailure: Number(r.last_failure),
  notBefore: Number(r.not_before),
});

const toAudit = (r: AuditDbRow): AuditRow => ({
  seq: Number(r.seq),
  at: Number(r.at),
  event: r.event,
  userId: r.user_id ?? undefined,
  detail: r.detail,
  prevHash: r.prev_hash,
  hash: r.hash,
});

/** The WHERE clause of an audit filter, with `?` or `$n` placeholders. */
function auditWhere(
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

/** The attempt upsert: counts unless the subject waits (then no row changes and none returns). */
function beginAttemptSql(p: (n: number) => string, rule: AttemptRule): string {
  const since = `(${p(2)} - auth_attempts.last_failure)`;
  const failures = `(CASE WHEN ${since} > ${p(3)} THEN 1 ELSE auth_attempts.failures + 1 END)`;
  const quick =
    rule.quickFailureMs > 0 ? `(CASE WHEN ${since} < ${rule.quickFailureMs} THEN 1 ELSE 0 END)` : '0';
  return `INSERT INTO auth_attempts (subject, failures, last_failure, previous_failure, not_before)
   VALUES (${p(1)}, 1, ${p(2)}, 0, ${p(2)} + ${rule.waitSql('1', '0')})
   ON CONFLICT (subject) DO UPDATE SET
     failures = ${failures},
     previous_failure = auth_attempts.last_failure,
     last_failure = ${p(2)},
     not_before = ${p(2)} + ${rule.waitSql(failures, quick)}
   WHERE auth_attempts.not_before <= ${p(2)}
   RETURNING failures, not_before`;
}

/** Thrown inside a rotation transaction to roll it back: the key was not the live current one. */
class RotateRefused extends Error {}

export interface SessionEntry {
  data: string;
  expiresAt: number;
}

interface Row {
  data?: string;
  expires_at?: number | string;
  wrapped?: string;
  value?: string;
}

/** SQLite through libsql, one file in the data directory. */
export class SqliteStore implements AuthStore {
  private readonly db: Database.Database;
  constructor(dataDir: string) {
    mkdirSync(dataDir, { recursive: true });
    const path = join(dataDir, 'auth.db');
    this.db = new Database(path);
    try {
      this.db.exec('PRAGMA journal_mode = WAL');
      migrateSqliteSchema(this.db, { store: `the auth service's store ${path}`, steps: AUTH_SCHEMA });
    } catch (error) {
      this.db.close();
      throw error;
    }
  }
  async putSession(key: string, data: string, expiresAt: number): Promise<boolean> {
    const r = this.db
      .prepare(
        'INSERT INTO auth_sessions (key, data, expires_at) VALUES (?, ?, ?) ON CONFLICT (key) DO NOTHING',
      )
      .run(key, data, expiresAt);
    return r.changes === 1;
  }
  async getSession(key: string, now: number): Promise<string | undefined> {
    return (await this.getSessionEntry(key, now))?.data;
  }
  async getSessionEntry(key: string, now: number): Promise<SessionEntry | undefined> {
    const row = this.db
      .prepare('SELECT data, expires_at FROM auth_sessions WHERE key = ? AND expires_at > ?')
      .get(key, now) as Row | undefined;
    return row?.data === undefined ? undefined : { data: row.data, expiresAt: Number(row.expires_at) };
  }
  async deleteSession(key: string): Promise<boolean> {
    return this.db.prepare('DELETE FROM auth_sessions WHERE key = ?').run(key).changes === 1;
  }
  async getCoreKey(id: string): Promise<string | undefined> {
    const row = this.db.prepare('SELECT wrapped FROM auth_core_keys WHERE id = ?').get(id) as Row | undefined;
    return row?.wrapped;
  }
  async putCoreKeyIfAbsent(id: string, wrapped: string, now: number): Promise<string> {
    this.db
      .prepare(
        'INSERT INTO auth_core_keys (id, wrapped, created_at) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING',
      )
      .run(id, wrapped, now);
    return (await this.getCoreKey(id))!;
  }
  async markTokenUsed(hash: string, expiresAt: number): Promise<boolean> {
    const r = this.db
      .prepare('INSERT INTO auth_used_tokens (hash, expires_at) VALUES (?, ?) ON CONFLICT (hash) DO NOTHING')
      .run(hash, expiresAt);
    return r.changes === 1;
  }
  async getValue(name: string): Promise<string | undefined> {
    const row = this.db.prepare('SELECT value FROM auth_values WHERE name = ?').get(name) as Row | undefined;
    return row?.value;
  }
  async putValueIfAbsent(name: string, value: string): Promise<string> {
    this.db
      .prepare('INSERT INTO auth_values (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING')
      .run(name, value);
    return (await this.getValue(name))!;
  }
  async setValue(name: string, value: string): Promise<void> {
    this.db
      .prepare(
        'INSERT INTO auth_values (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value',
      )
      .run(name, value);
  }
  async deleteCoreKey(id: string): Promise<boolean> {
    return this.db.prepare('DELETE FROM auth_core_keys WHERE id = ?').run(id).changes === 1;
  }
  async purge(now: number): Promise<void> {
    this.db.prepare('DELETE FROM auth_sessions WHERE expires_at <= ?').run(now);
    this.db.prepare('DELETE FROM auth_used_tokens WHERE expires_at <= ?').run(now);
    for (const sql of PURGE_CHAINS_SQL) this.db.prepare(sql).run();
  }
  async createChain(c: ChainRow): Promise<void> {
    this.db
      .transaction(() => {
        this.db
          .prepare(
            'INSERT INTO auth_session_chains (id, user_id, client_id, current_key, idle_ms, created_at, last_used, ends_at, claims, device) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
          )
          .run(
            c.id,
            c.userId,
            c.clientId,
            c.currentKey,
            c.idleMs,
            c.createdAt,
            c.lastUsed,
            c.endsAt,
            c.claims,
            c.device ?? null,
          );
        this.db
          .prepare('INSERT INTO auth_session_keys (key, chain_id) VALUES (?, ?)')
          .run(c.currentKey, c.id);
      })
      .immediate();
  }
  async chainOfKey(key: string) {
    return chainOfKeyResult(this.db.prepare(CHAIN_OF_KEY_SQL(() => '?')).get(key) as ChainDbRow | undefined);
  }
  async rotateChain(
    chainId: string,
    oldKey: string,
    newKey: string,
    data: string,
    now: number,
    expiresAt: number,
    token: string,
  ): Promise<boolean> {
    const rotate = this.db.transaction(() => {
      const gone = this.db
        .prepare('DELETE FROM auth_sessions WHERE key = ? AND expires_at > ?')
        .run(oldKey, now);
      const moved = this.db
        .prepare(
          'UPDATE auth_session_chains SET current_key = ?, last_used = ?, token = ? WHERE id = ? AND current_key = ? AND revoked_at IS NULL',
        )
        .run(newKey, now, token, chainId, oldKey);
      if (gone.changes !== 1 || moved.changes !== 1) throw new RotateRefused();
      this.db
        .prepare('UPDATE auth_session_keys SET next_key = ?, rotated_at = ? WHERE key = ?')
        .run(newKey, now, oldKey);
      this.db.prepare('INSERT INTO auth_session_keys (key, chain_id) VALUES (?, ?)').run(newKey, chainId);
      this.db
        .prepare('INSERT INTO auth_sessions (key, data, expires_at) VALUES (?, ?, ?)')
        .run(newKey, data, expiresAt);
    });
    try {
      rotate.immediate();
      return true;
    } catch (error) {
      if (error instanceof RotateRefused) return false;
      throw error;
    }
  }
  async revokeChain(chainId: string, now: number): Promise<string | undefined> {
    const revoke = this.db.transaction(() => {
      const row = this.db
        .prepare(
          'UPDATE auth_session_chains SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL RETURNING current_key',
        )
        .get(now, chainId) as { current_key: string } | undefined;
      if (row) this.db.prepare('DELETE FROM auth_sessions WHERE key = ?').run(row.current_key);
      return row?.current_key;
    });
    return revoke.immediate();
  }
  async listChains(userId: string, now: number): Promise<LiveChain[]> {
    const rows = this.db.prepare(LIST_CHAINS_SQL(() => '?')).all(userId, now) as ChainDbRow[];
    return rows.map((r) => ({ ...toChain(r), expiresAt: Number(r.expires_at) }));
  }
  async beginAttempt(subject: string, now: number, rule: AttemptRule): Promise<AttemptStart> {
    const row = this.db.prepare(beginAttemptSql((n) => `?${n}`, rule)).get(subject, now, rule.resetAfterMs) as
      | AttemptDbRow
      | undefined;
    if (row) return { counted: true, failures: Number(row.failures), notBefore: Number(row.not_before) };
    return { counted: false, notBefore: (await this.getAttempts(subject))?.notBefore ?? now };
  }
  async uncountAttempt(subject: string): Promise<void> {
    this.db
      .prepare('UPDATE auth_attempts SET failures = max(failures - 1, 0) WHERE subject = ?')
      .run(subject);
  }
  async getAttempts(subject: string): Promise<AttemptRow | undefined> {
    const row = this.db.prepare('SELECT * FROM auth_attempts WHERE subject = ?').get(subject) as
      | AttemptDbRow
      | undefined;
    return row && toAttempt(row);
  }
  async clearAttempts(subject: string): Promise<boolean> {
    return this.db.prepare('DELETE FROM auth_attempts WHERE subject = ?').run(subject).changes === 1;
  }
  async lockedSubjects(now: number): Promise<AttemptRow[]> {
    const rows = this.db
      .prepare('SELECT * FROM auth_attempts WHERE not_before > ? ORDER BY not_before DESC')
      .all(now) as AttemptDbRow[];
    return rows.map(toAttempt);
  }
  async appendAudit(
    entry: AuditInput,
    chain: (previousHash: string, seq: number) => string,
  ): Promise<AuditRow> {
    const append = this.db.transaction(() => {
      const last = this.db.prepare('SELECT seq, hash FROM auth_audit ORDER BY seq DESC LIMIT 1').get() as
        | { seq: number; hash: string }
        | undefined;
      const seq = Number(last?.seq ?? 0) + 1;
      const prevHash = last?.hash ?? AUDIT_GENESIS;
      const hash = chain(prevHash, seq);
      this.db
        .prepare(
          'INSERT INTO auth_audit (seq, at, event, user_id, detail, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?)',
        )
        .run(seq, entry.at, entry.event, entry.userId ?? null, entry.detail, prevHash, hash);
      return { ...entry, seq, prevHash, hash };
    });
    return append.immediate();
  }
  async readAudit(filter: AuditFilter): Promise<AuditRow[]> {
    const { sql, params } = auditWhere(filter, () => '?');
    return (this.db.prepare(sql).all(...params) as AuditDbRow[]).map(toAudit);
  }
  async close(): Promise<void> {
    this.db.close();
  }
}

/**
 * PostgreSQL, for several service instances sharing sessions, keys and replay marks. Every
 * statement stands alone (no session state), so the pool may go through PgBouncer in transaction
 * mode. `PostgresStore.open` migrates before it answers, and refuses a newer schema.
 */
export class PostgresStore implements AuthStore {
  private readonly pool: pg.Pool;
  private readonly ready: Promise<void>;
  constructor(connectionString: string) {
    const pool = new pg.Pool({ connectionString, max: 4 });
    this.pool = pool;
    this.ready = migratePostgresSchema(pool, {
      store: "the auth service's store",
      table: 'auth_migrations',
      steps: AUTH_SCHEMA,
    }).then(() => {});
  }

  /** A store whose schema is up to date (migrated now, or refused with `SchemaTooNewError`). */
  static async open(connectionString: string): Promise<PostgresStore> {
    const store = new PostgresStore(connectionString);
    try {
      await store.ready;
    } catch (error) {
      await store.pool.end().catch(() => {});
      throw error;
    }
    return store;
  }
  private async q(sql: string, params: unknown[]): Promise<pg.QueryResult<Row>> {
    await this.ready;
    return this.pool.query<Row>(sql, params);
  }
  async putSession(key: string, data: string, expiresAt: number): Promise<boolean> {
    const r = await this.q(
      'INSERT INTO auth_sessions (key, data, expires_at) VALUES ($1, $2, $3) ON CONFLICT (key) DO NOTHING',
      [key, data, expiresAt],
    );
    return r.rowCount === 1;
  }
  async getSession(key: string, now: number): Promise<string | undefined> {
    return (await this.getSessionEntry(key, now))?.data;
  }
  async getSessionEntry(key: string, now: number): Promise<SessionEntry | undefined> {
    const r = await this.q('SELECT data, expires_at FROM auth_sessions WHERE key = $1 AND expires_at > $2', [
      key,
      now,
    ]);
    const row = r.rows[0];
    return row?.data === undefined ? undefined : { data: row.data, expiresAt: Number(row.expires_at) };
  }
  async deleteSession(key: string): Promise<boolean> {
    return (await this.q('DELETE FROM auth_sessions WHERE key = $1', [key])).rowCount === 1;
  }
  async getCoreKey(id: string): Promise<string | undefined> {
    return (await this.q('SELECT wrapped FROM auth_core_keys WHERE id = $1', [id])).rows[0]?.wrapped;
  }
  async putCoreKeyIfAbsent(id: string, wrapped: string, now: number): Promise<string> {
    await this.q(
      'INSERT INTO auth_core_keys (id, wrapped, created_at) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING',
      [id, wrapped, now],
    );
    return (await this.getCoreKey(id))!;
  }
  async markTokenUsed(hash: string, expiresAt: number): Promise<boolean> {
    const r = await this.q(
      'INSERT INTO auth_used_tokens (hash, expires_at) VALUES ($1, $2) ON CONFLICT (hash) DO NOTHING',
      [hash, expiresAt],
    );
    return r.rowCount === 1;
  }
  async getValue(name: string): Promise<string | undefined> {
    return (await this.q('SELECT value FROM auth_values WHERE name = $1', [name])).rows[0]?.value;
  }
  async putValueIfAbsent(name: string, value: string): Promise<string> {
    await this.q('INSERT INTO auth_values (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [
      name,
      value,
    ]);
    return (await this.getValue(name))!;
  }
  async setValue(name: string, value: string): Promise<void> {
    await this.q(
      'INSERT INTO auth_values (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = excluded.value',
      [name, value],
    );
  }
  async deleteCoreKey(id: string): Promise<boolean> {
    return (await this.q('DELETE FROM auth_core_keys WHERE id = $1', [id])).rowCount === 1;
  }
  async purge(now: number): Promise<void> {
    await this.q('DELETE FROM auth_sessions WHERE expires_at <= $1', [now]);
    await this.q('DELETE FROM auth_used_tokens WHERE expires_at <= $1', [now]);
    for (const sql of PURGE_CHAINS_SQL) await this.q(sql, []);
  }
  /** Runs `work` in one transaction on one connection; rolled back when it throws. */
  private async transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    await this.ready;
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }
  async createChain(c: ChainRow): Promise<void> {
    await this.transaction(async (db) => {
      await db.query(
        'INSERT INTO auth_session_chains (id, user_id, client_id, current_key, idle_ms, created_at, last_used, ends_at, claims, device) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)',
        [
          c.id,
          c.userId,
          c.clientId,
          c.currentKey,
          c.idleMs,
          c.createdAt,
          c.lastUsed,
          c.endsAt,
          c.claims,
          c.device ?? null,
        ],
      );
      await db.query('INSERT INTO auth_session_keys (key, chain_id) VALUES ($1, $2)', [c.currentKey, c.id]);
    });
  }
  async chainOfKey(key: string) {
    await this.ready;
    const r = await this.pool.query<ChainDbRow>(
      CHAIN_OF_KEY_SQL((n) => `$${n}`),
      [key],
    );
    return chainOfKeyResult(r.rows[0]);
  }
  async rotateChain(
    chainId: string,
    oldKey: string,
    newKey: string,
    data: string,
    now: number,
    expiresAt: number,
    token: string,
  ): Promise<boolean> {
    try {
      return await this.transaction(async (db) => {
        // The chain row first: a second renewal of the same key waits for this one, then finds
        // the key is no longer current.
        const moved = await db.query(
          'UPDATE auth_session_chains SET current_key = $1, last_used = $2, token = $5 WHERE id = $3 AND current_key = $4 AND revoked_at IS NULL',
          [newKey, now, chainId, oldKey, token],
        );
        const gone = await db.query('DELETE FROM auth_sessions WHERE key = $1 AND expires_at > $2', [
          oldKey,
          now,
        ]);
        if (gone.rowCount !== 1 || moved.rowCount !== 1) throw new RotateRefused();
        await db.query('UPDATE auth_session_keys SET next_key = $1, rotated_at = $2 WHERE key = $3', [
          newKey,
          now,
          oldKey,
        ]);
        await db.query('INSERT INTO auth_session_keys (key, chain_id) VALUES ($1, $2)', [newKey, chainId]);
        await db.query('INSERT INTO auth_sessions (key, data, expires_at) VALUES ($1, $2, $3)', [
          newKey,
          data,
          expiresAt,
        ]);
        return true;
      });
    } catch (error) {
      if (error instanceof RotateRefused) return false;
      throw error;
    }
  }
  async revokeChain(chainId: string, now: number): Promise<string | undefined> {
    return this.transaction(async (db) => {
      const r = await db.query<{ current_key: string }>(
        'UPDATE auth_session_chains SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL RETURNING current_key',
        [now, chainId],
      );
      const key = r.rows[0]?.current_key;
      if (key) await db.query('DELETE FROM auth_sessions WHERE key = $1', [key]);
      return key;
    });
  }
  async listChains(userId: string, now: number): Promise<LiveChain[]> {
    await this.ready;
    const r = await this.pool.query<ChainDbRow>(
      LIST_CHAINS_SQL((n) => `$${n}`),
      [userId, now],
    );
    return r.rows.map((row) => ({ ...toChain(row), expiresAt: Number(row.expires_at) }));
  }
  async beginAttempt(subject: string, now: number, rule: AttemptRule): Promise<AttemptStart> {
    await this.ready;
    const sql = beginAttemptSql((n) => (n === 1 ? '$1' : `$${n}::bigint`), rule);
    const row = (await this.pool.query<AttemptDbRow>(sql, [subject, now, rule.resetAfterMs])).rows[0];
    if (row) return { counted: true, failures: Number(row.failures), notBefore: Number(row.not_before) };
    return { counted: false, notBefore: (await this.getAttempts(subject))?.notBefore ?? now };
  }
  async uncountAttempt(subject: string): Promise<void> {
    await this.q('UPDATE auth_attempts SET failures = GREATEST(failures - 1, 0) WHERE subject = $1', [
      subject,
    ]);
  }
  async getAttempts(subject: string): Promise<AttemptRow | undefined> {
    await this.ready;
    const r = await this.pool.query<AttemptDbRow>('SELECT * FROM auth_attempts WHERE subject = $1', [
      subject,
    ]);
    return r.rows[0] && toAttempt(r.rows[0]);
  }
  async clearAttempts(subject: string): Promise<boolean> {
    return (await this.q('DELETE FROM auth_attempts WHERE subject = $1', [subject])).rowCount === 1;
  }
  async lockedSubjects(now: number): Promise<AttemptRow[]> {
    await this.ready;
    const r = await this.pool.query<AttemptDbRow>(
      'SELECT * FROM auth_attempts WHERE not_before > $1 ORDER BY not_before DESC',
      [now],
    );
    return r.rows.map(toAttempt);
  }
  async appendAudit(
    entry: AuditInput,
    chain: (previousHash: string, seq: number) => string,
  ): Promise<AuditRow> {
    await this.ready;
    // One transaction on one connection (fine through PgBouncer in transaction mode); the advisory
    // lock makes appends from every instance take turns, so each entry follows the last one.
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', ['portico_auth_audit']);
      const last = await client.query<{ seq: string; hash: string }>(
        'SELECT seq, hash FROM auth_audit ORDER BY seq DESC LIMIT 1',
      );
      const seq = Number(last.rows[0]?.seq ?? 0) + 1;
      const prevHash = last.rows[0]?.hash ?? AUDIT_GENESIS;
      const hash = chain(prevHash, seq);
      await client.query(
        'INSERT INTO auth_audit (seq, at, event, user_id, detail, prev_hash, hash) VALUES ($1, $2, $3, $4, $5, $6, $7)',
        [seq, entry.at, entry.event, entry.userId ?? null, entry.detail, prevHash, hash],
      );
      await client.query('COMMIT');
      return { ...entry, seq, prevHash, hash };
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }
  async readAudit(filter: AuditFilter): Promise<AuditRow[]> {
    await this.ready;
    const { sql, params } = auditWhere(filter, (n) => `$${n}`);
    return (await this.pool.query<AuditDbRow>(sql, params)).rows.map(toAudit);
  }
  async close(): Promise<void> {
    await this.ready.catch(() => {});
    await this.pool.end();
  }
}
