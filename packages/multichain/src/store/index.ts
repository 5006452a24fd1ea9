import { join } from 'node:path';
import { createMemorySessionStore } from './memory.ts';
import { createPostgresSessionStore } from './postgres.ts';
import { createSqliteSessionStore } from './sqlite.ts';
import type { SessionStore } from './types.ts';

export type { SessionStore };
export { createMemorySessionStore, createPostgresSessionStore, createSqliteSessionStore };

/**
 * Picks a store: PostgreSQL when `databaseUrl` is given, else SQLite in `dataDir`
 * (`<dataDir>/multichain-sessions.sqlite`), else memory.
 */
export async function openSessionStore(options: {
  dataDir?: string;
  databaseUrl?: string;
}): Promise<SessionStore> {
  if (options.databaseUrl) return createPostgresSessionStore({ databaseUrl: options.databaseUrl });
  if (options.dataDir) return createSqliteSessionStore(join(options.dataDir, 'multichain-sessions.sqlite'));
  return createMemorySessionStore();
}
