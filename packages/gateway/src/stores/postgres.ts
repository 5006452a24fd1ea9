import { migratePostgresSchema, type SchemaStep } from '@portico/store-schema';
import pg from 'pg';
import { STORE_LABELS, StoreUnavailableError } from '../rpc/errors.ts';

/** The channel on which every change of `api_keys` (from any instance, the CLI or plain SQL) is announced. */
export const KEYS_CHANNEL = 'portico_api_keys_changed';

/** Schema steps of the shared PostgreSQL store, applied in order and recorded in `portico_migrations`. */
const MIGRATIONS: SchemaStep[] = [
  {
    version: 1,
    name: 'keys and usage',
    sql: `
      CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        key_hash TEXT NOT NULL UNIQUE,
        key_prefix TEXT NOT NULL,
        project TEXT NOT NULL DEFAULT 'default',
        daily_credits BIGINT NOT NULL,
        credits_per_second BIGINT,
        created_at TIMESTAMPTZ NOT NULL,
        revoked_at TIMESTAMPTZ
      );
      CREATE TABLE usage (
        key_id TEXT NOT NULL,
        day TEXT NOT NULL,
        method TEXT NOT NULL,
        requests BIGINT NOT NULL,
        credits BIGINT NOT NULL,
        PRIMARY KEY (key_id, day, method)
      );
      CREATE TABLE usage_errors (
        key_id TEXT NOT NULL,
        day TEXT NOT NULL,
        code INTEGER NOT NULL,
        count BIGINT NOT NULL,
        PRIMARY KEY (key_id, day, code)
      );
      CREATE FUNCTION portico_api_keys_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('${KEYS_CHANNEL}', current_schema());
        RETURN NULL;
      END $$;
      CREATE TRIGGER api_keys_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON api_keys
        FOR EACH STATEMENT EXECUTE FUNCTION portico_api_keys_changed();`,
  },
  {
    version: 2,
    name: 'per-key security settings',
    sql: `ALTER TABLE api_keys ADD COLUMN settings JSONB NOT NULL DEFAULT '{}'::jsonb;`,
  },
  {
    version: 3,
    name: 'refused calls counted apart',
    sql: 'ALTER TABLE usage ADD COLUMN refused BIGINT NOT NULL DEFAULT 0;',
  },
];

/** A connection pool for the shared store; errors of idle connections are reported, never thrown. */
export function createPostgresPool(databaseUrl: string, onError: (error: Error) => void = () => {}): pg.Pool {
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: 10,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
  });
  pool.on('error', onError);
  return pool;
}

/**
 * Whether a PostgreSQL error means the database cannot be reached (connection refused, lost or
 * timed out, server shutting down, out of connections) rather than that a statement was wrong.
 * The server's own errors carry a five-character SQLSTATE: only classes 08 (connection), 53
 * (insufficient resources) and 57 (operator intervention) count; errors without one come from the
 * connection itself.
 */
export function isUnreachable(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return true;
  return ['08', '53', '57'].includes(code.slice(0, 2));
}

/** Runs a PostgreSQL operation; a database that cannot be reached becomes a 503 that names it. */
export async function whilePostgresReachable<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (!isUnreachable(error)) throw error;
    throw new StoreUnavailableError(
      'postgresql',
      `${STORE_LABELS.postgresql} cannot be reached; retry shortly`,
    );
  }
}

/**
 * Brings the schema (in the connection's `search_path`) up to date; refuses one a later release
 * wrote (`SchemaTooNewError`). Safe when several instances start at once (a transaction-scoped
 * advisory lock) and through PgBouncer in transaction mode.
 */
export function migratePostgres(pool: pg.Pool): Promise<number[]> {
  return migratePostgresSchema(pool, {
    store: "the gateway's shared store",
    table: 'portico_migrations',
    steps: MIGRATIONS,
  });
}

/** The number of schema steps this version knows (for tests and diagnostics). */
export const POSTGRES_SCHEMA_VERSION = MIGRATIONS.length;
