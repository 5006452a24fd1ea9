// Everything the auth service keeps (store/types.ts), in SQLite (store/sqlite.ts) or PostgreSQL
// (store/postgres.ts), with the schema and SQL both share (store/sql.ts).

export { PostgresStore } from './store/postgres.ts';
export { AUTH_SCHEMA } from './store/sql.ts';
export { SqliteStore } from './store/sqlite.ts';
export * from './store/types.ts';
