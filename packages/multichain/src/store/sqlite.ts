import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { migrateSqliteSchema } from '@portico/store-schema';
import Database from 'libsql';
import type { Session } from '../caip/types.ts';
import { sessionSchema } from './schema.ts';
import type { SessionStore } from './types.ts';

type Row = { origin: string; session: string };

/**
 * Sessions in an embedded SQLite file (libsql), so they survive a wallet restart. The schema is
 * migrated on open; a file a later release wrote is refused (`SchemaTooNewError`).
 */
export function createSqliteSessionStore(path: string): SessionStore {
  mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  try {
    migrateSqliteSchema(db, {
      store: `the wallet's session store ${path}`,
      steps: sessionSchema('multichain_sessions', 'TEXT', 'INTEGER NOT NULL'),
    });
  } catch (error) {
    db.close();
    throw error;
  }
  const getStmt = db.prepare('SELECT origin, session FROM multichain_sessions WHERE origin = ?');
  const setStmt = db.prepare(
    `INSERT INTO multichain_sessions (origin, session, updated_at) VALUES (?, ?, ?)
     ON CONFLICT(origin) DO UPDATE SET session = excluded.session, updated_at = excluded.updated_at`,
  );
  const deleteStmt = db.prepare('DELETE FROM multichain_sessions WHERE origin = ?');
  const listStmt = db.prepare('SELECT origin, session FROM multichain_sessions ORDER BY origin');
  return {
    async get(origin) {
      const row = getStmt.get(origin) as Row | undefined;
      return row ? (JSON.parse(row.session) as Session) : undefined;
    },
    async set(origin, session) {
      setStmt.run(origin, JSON.stringify(session), Date.now());
    },
    async delete(origin) {
      return deleteStmt.run(origin).changes > 0;
    },
    async list() {
      return (listStmt.all() as Row[]).map((row) => ({
        origin: row.origin,
        session: JSON.parse(row.session) as Session,
      }));
    },
    async close() {
      db.close();
    },
  };
}
