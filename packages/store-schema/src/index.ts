// Schema versions of Portico's stores. Each store lists its steps once, numbered from 1; a store
// is brought forward step by step at start, and one whose schema is newer than the steps this
// code knows (written by a later release) is refused with one line that says what to do.

/** One step of a store's schema. `sql` may hold several statements separated by `;`. */
export type SchemaStep = { version: number; name: string; sql: string };

/** A store whose schema a later release wrote: this code must not use it. */
export class SchemaTooNewError extends Error {
  override readonly name = 'SchemaTooNewError';
  constructor(
    readonly store: string,
    readonly found: number,
    readonly known: number,
  ) {
    super(
      `${store} is at schema version ${found}, newer than this release knows (${known}): it was upgraded by a later Portico; run that release again, or restore the backup taken before the upgrade`,
    );
  }
}

function checkSteps(steps: readonly SchemaStep[]) {
  for (const [i, step] of steps.entries())
    if (step.version !== i + 1)
      throw new Error(`schema step ${step.name} is numbered ${step.version}, expected ${i + 1}`);
}

/** The statements of a step, one by one (a `;` inside a statement is not supported). */
export function statementsOf(sql: string): string[] {
  return sql
    .split(';')
    .map((statement) => statement.trim())
    .filter(Boolean);
}

/** What the PostgreSQL runner needs of a pool (`pg.Pool` has it). */
export type PostgresPool = {
  connect(): Promise<{
    query(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
    release(error?: Error | boolean): void;
  }>;
};

/**
 * Brings a PostgreSQL store (in the connection's `search_path`) forward; returns the versions it
 * applied. The steps done are rows of `table` (`id`, `name`, `applied_at`). Everything runs in one
 * transaction holding a transaction-scoped advisory lock for the table and schema, so instances
 * starting at once apply each step once, and it works through PgBouncer in transaction mode (no
 * session state).
 */
export async function migratePostgresSchema(
  pool: PostgresPool,
  options: { store: string; table: string; steps: readonly SchemaStep[] },
): Promise<number[]> {
  const { store, table, steps } = options;
  if (!/^[a-z_][a-z0-9_]*$/.test(table)) throw new Error(`invalid table name: ${table}`);
  checkSteps(steps);
  const client = await pool.connect();
  const applied: number[] = [];
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1 || current_schema()))', [`${table}:`]);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${table} (
         id INTEGER PRIMARY KEY,
         name TEXT NOT NULL,
         applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
       )`,
    );
    const done = new Set((await client.query(`SELECT id FROM ${table}`)).rows.map((row) => Number(row.id)));
    const newest = Math.max(0, ...done);
    if (newest > steps.length) {
      const schema = (await client.query('SELECT current_schema() AS schema')).rows[0].schema;
      throw new SchemaTooNewError(`${store} (PostgreSQL schema ${schema})`, newest, steps.length);
    }
    for (const step of steps) {
      if (done.has(step.version)) continue;
      await client.query(step.sql);
      await client.query(`INSERT INTO ${table} (id, name) VALUES ($1, $2)`, [step.version, step.name]);
      applied.push(step.version);
    }
    await client.query('COMMIT');
    return applied;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

/** What the SQLite runner needs of a database (libsql's `Database` has it). */
export type SqliteDatabaseLike = {
  exec(sql: string): unknown;
  prepare(sql: string): { get(...values: unknown[]): unknown };
};

/**
 * Brings a SQLite store forward; returns the versions it applied. The version is the file's
 * `PRAGMA user_version`; each step and its new version are written in one transaction.
 */
export function migrateSqliteSchema(
  db: SqliteDatabaseLike,
  options: { store: string; steps: readonly SchemaStep[] },
): number[] {
  const { store, steps } = options;
  checkSteps(steps);
  const row = db.prepare('PRAGMA user_version').get() as Record<string, unknown> | undefined;
  const version = Number(row ? Object.values(row)[0] : 0);
  if (version > steps.length) throw new SchemaTooNewError(`${store} (SQLite)`, version, steps.length);
  const applied: number[] = [];
  for (const step of steps.slice(version)) {
    db.exec('BEGIN');
    try {
      for (const statement of statementsOf(step.sql)) db.exec(statement);
      db.exec(`PRAGMA user_version = ${step.version}`);
      db.exec('COMMIT');
    } catch (error) {
      db.exec('ROLLBACK');
      throw error;
    }
    applied.push(step.version);
  }
  return applied;
}
