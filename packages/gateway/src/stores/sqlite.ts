import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { migrateSqliteSchema, type SchemaStep, statementsOf } from '@portico/store-schema';
import Database from 'libsql';
import { STORE_LABELS, StoreUnavailableError } from '../rpc/errors.ts';

export type SqliteDatabase = InstanceType<typeof Database>;

/** Schema steps, applied in order and recorded in `PRAGMA user_version`. */
const STEPS = [
  `CREATE TABLE api_keys (
     id TEXT PRIMARY KEY,
     name TEXT NOT NULL,
     key_hash TEXT NOT NULL UNIQUE,
     key_prefix TEXT NOT NULL,
     daily_credits INTEGER NOT NULL,
     created_at INTEGER NOT NULL,
     revoked_at INTEGER
   );
   CREATE TABLE usage (
     key_id TEXT NOT NULL,
     day TEXT NOT NULL,
     method TEXT NOT NULL,
     requests INTEGER NOT NULL,
     credits INTEGER NOT NULL,
     PRIMARY KEY (key_id, day, method)
   );
   CREATE TABLE usage_errors (
     key_id TEXT NOT NULL,
     day TEXT NOT NULL,
     code INTEGER NOT NULL,
     count INTEGER NOT NULL,
     PRIMARY KEY (key_id, day, code)
   );`,
  `ALTER TABLE api_keys ADD COLUMN project TEXT NOT NULL DEFAULT 'default';
   ALTER TABLE api_keys ADD COLUMN credits_per_second INTEGER`,
  `ALTER TABLE api_keys ADD COLUMN settings TEXT NOT NULL DEFAULT '{}'`,
  // Balances that survive a crash: each key's reservation, never below what it spent (see
  // SqliteCreditLedger); seeded from the usage a database of an earlier version recorded.
  `CREATE TABLE credits_spent (
     key_id TEXT NOT NULL,
     day TEXT NOT NULL,
     credits INTEGER NOT NULL CHECK (credits >= 0),
     PRIMARY KEY (key_id, day)
   );
   INSERT INTO credits_spent (key_id, day, credits)
     SELECT key_id, day, SUM(credits) FROM usage GROUP BY key_id, day`,
  // Refused calls counted apart, so that an average price leaves them out (earlier rows: none known).
  `ALTER TABLE usage ADD COLUMN refused INTEGER NOT NULL DEFAULT 0`,
];
const NAMES = [
  'keys and usage',
  'projects and per-second caps',
  'per-key security settings',
  'balances on disk',
  'refused calls counted apart',
];
const MIGRATIONS: SchemaStep[] = STEPS.map((sql, i) => ({ version: i + 1, name: NAMES[i], sql }));

/**
 * Opens (creating if needed) the gateway's SQLite database and brings its schema up to date;
 * refuses a database a later release wrote (`SchemaTooNewError`).
 */
export function openSqlite(path: string): SqliteDatabase {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  execAll(db, 'PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000;');
  try {
    migrateSqliteSchema(db, { store: `the gateway's store ${path}`, steps: MIGRATIONS });
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/** Runs each statement of a script (libsql's exec runs only the first statement of a script). */
export function execAll(db: SqliteDatabase, script: string) {
  for (const statement of statementsOf(script)) db.exec(statement);
}

type Statement = ReturnType<SqliteDatabase['prepare']>;

/** The first column of the first row (libsql's `pluck()` does not pluck). */
export function scalar<T>(statement: Statement, ...args: unknown[]): T {
  const row = (statement.get as (...values: unknown[]) => unknown).apply(statement, args) as
    | Record<string, unknown>
    | undefined;
  return (row ? Object.values(row)[0] : undefined) as T;
}

/** SQLite result codes that mean the file cannot be used now (not that a statement was wrong). */
const UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|FULL|IOERR|READONLY|CANTOPEN|PROTOCOL|NOMEM)/;

/** Whether a SQLite error means the database cannot be used now (rather than a wrong statement). */
export function isSqliteUnavailable(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && UNAVAILABLE.test(code);
}

/** Runs a SQLite operation; a database that cannot be written or read becomes a 503 naming it. */
export function whileSqliteAvailable<T>(operation: () => T): T {
  try {
    return operation();
  } catch (error) {
    if (!isSqliteUnavailable(error)) throw error;
    const code = (error as { code: string }).code;
    throw new StoreUnavailableError(
      'sqlite',
      `${STORE_LABELS.sqlite} cannot be used (${code}); retry shortly`,
    );
  }
}
