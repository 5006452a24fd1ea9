import type { SchemaStep } from '@portico/store-schema';

/**
 * The session stores' schema steps (PostgreSQL and SQLite differ only in column types). Step 1 is
 * the table stores had before they were versioned (`IF NOT EXISTS`: such a store is taken as it
 * is); a change is a new step at the end.
 */
export function sessionSchema(table: string, sessionType: string, updatedAt: string): SchemaStep[] {
  return [
    {
      version: 1,
      name: 'sessions by origin',
      sql: `CREATE TABLE IF NOT EXISTS ${table} (
        origin TEXT PRIMARY KEY,
        session ${sessionType} NOT NULL,
        updated_at ${updatedAt}
      )`,
    },
  ];
}
