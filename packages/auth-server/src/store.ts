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
  /** Drops expired sessions and token marks. */
  purge(now: number): Promise<void>;
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
];

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
