import { migratePostgresSchema } from '@portico/store-schema';
import pg from 'pg';
import type { Session } from '../caip/types.ts';
import { sessionSchema } from './schema.ts';
import type { SessionStore } from './types.ts';

export type PostgresSessionStoreOptions = {
  /** A `postgres://` connection string. */
  databaseUrl: string;
  /** Table name; default `multichain_sessions`. */
  table?: string;
};

/**
 * Sessions in PostgreSQL, for a hosted wallet with several instances. Each statement stands alone
 * (PgBouncer in transaction mode is fine); the schema is migrated at creation, and a schema a
 * later release wrote is refused (`SchemaTooNewError`).
 */
export async function createPostgresSessionStore(
  options: PostgresSessionStoreOptions,
): Promise<SessionStore> {
  const table = options.table ?? 'multichain_sessions';
  if (!/^[a-z_][a-z0-9_]*$/.test(table)) throw new Error(`invalid table name: ${table}`);
  const pool = new pg.Pool({ connectionString: options.databaseUrl, max: 4 });
  // An idle connection the server ended (a restart, a failover, PgBouncer, an administrator) is
  // dropped by the pool and the next query opens another; unheard, the event would end the process.
  pool.on('error', () => {});
  try {
    await migratePostgresSchema(pool, {
      store: `the wallet's session store (${table})`,
      table: `${table}_migrations`,
      steps: sessionSchema(table, 'JSONB', 'TIMESTAMPTZ NOT NULL DEFAULT now()'),
    });
  } catch (error) {
    await pool.end().catch(() => {});
    throw error;
  }
  return {
    async get(origin) {
      const result = await pool.query<{ session: Session }>(
        `SELECT session FROM ${table} WHERE origin = $1`,
        [origin],
      );
      return result.rows[0]?.session;
    },
    async set(origin, session) {
      await pool.query(
        `INSERT INTO ${table} (origin, session, updated_at) VALUES ($1, $2, now())
         ON CONFLICT (origin) DO UPDATE SET session = excluded.session, updated_at = now()`,
        [origin, JSON.stringify(session)],
      );
    },
    async delete(origin) {
      const result = await pool.query(`DELETE FROM ${table} WHERE origin = $1`, [origin]);
      return (result.rowCount ?? 0) > 0;
    },
    async list() {
      const result = await pool.query<{ origin: string; session: Session }>(
        `SELECT origin, session FROM ${table} ORDER BY origin`,
      );
      return result.rows;
    },
    async close() {
      await pool.end();
    },
  };
}
