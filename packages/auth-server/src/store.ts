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
];

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
  async close(): Promise<void> {
    await this.ready.catch(() => {});
    await this.pool.end();
  }
}
