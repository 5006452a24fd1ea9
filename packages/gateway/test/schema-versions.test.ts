// Every gateway store migrates forward by version and refuses a schema a later release wrote.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { SchemaTooNewError } from '@portico/store-schema';
import { serviceUrl, tempDir } from '@portico/testkit';
import Database from 'libsql';
import { openEmbeddedStores, openSharedStores } from '../src/open-stores.ts';
import { createPostgresPool, migratePostgres, POSTGRES_SCHEMA_VERSION } from '../src/stores/postgres.ts';
import { openSqlite, scalar } from '../src/stores/sqlite.ts';
import { freshSchema } from './shared-services.ts';

const postgres = serviceUrl('DATABASE_URL');

describe("the gateway's SQLite store", () => {
  const dir = tempDir();
  after(() => dir.cleanup());

  test('a database of an earlier version is brought forward step by step, its rows kept', () => {
    const path = join(dir.path, 'older.db');
    // What release 0.1 (schema version 2) left: keys with projects, usage, no settings, no balances on disk.
    const older = new Database(path);
    older.exec(
      "CREATE TABLE api_keys (id TEXT PRIMARY KEY, name TEXT NOT NULL, key_hash TEXT NOT NULL UNIQUE, key_prefix TEXT NOT NULL, daily_credits INTEGER NOT NULL, created_at INTEGER NOT NULL, revoked_at INTEGER, project TEXT NOT NULL DEFAULT 'default', credits_per_second INTEGER)",
    );
    older.exec(
      'CREATE TABLE usage (key_id TEXT NOT NULL, day TEXT NOT NULL, method TEXT NOT NULL, requests INTEGER NOT NULL, credits INTEGER NOT NULL, PRIMARY KEY (key_id, day, method))',
    );
    older.exec(
      'CREATE TABLE usage_errors (key_id TEXT NOT NULL, day TEXT NOT NULL, code INTEGER NOT NULL, count INTEGER NOT NULL, PRIMARY KEY (key_id, day, code))',
    );
    older.exec("INSERT INTO usage VALUES ('key_1', '2030-01-01', 'eth_call', 3, 78)");
    older.exec('PRAGMA user_version = 2');
    older.close();

    const db = openSqlite(path);
    try {
      assert.equal(scalar<number>(db.prepare('PRAGMA user_version')), 5);
      assert.deepEqual(
        db.prepare('SELECT requests, credits, refused FROM usage').all(),
        [{ requests: 3, credits: 78, refused: 0 }],
        'step 5 counts refused calls apart, none known for earlier rows',
      );
      assert.equal(
        scalar<number>(db.prepare("SELECT credits FROM credits_spent WHERE key_id = 'key_1'")),
        78,
      );
      assert.deepEqual(
        db.prepare('SELECT settings FROM api_keys').all(),
        [],
        'step 3 added the settings column',
      );
    } finally {
      db.close();
    }
  });

  test('a database a later release wrote is refused, in one line that names it and what to do', () => {
    const dataDir = join(dir.path, 'newer');
    openEmbeddedStores(dataDir).close();
    const file = new Database(join(dataDir, 'gateway.db'));
    file.exec('PRAGMA user_version = 9');
    file.close();
    assert.throws(
      () => openEmbeddedStores(dataDir),
      (error: Error) => {
        assert.ok(error instanceof SchemaTooNewError);
        assert.equal(
          error.message,
          `the gateway's store ${join(dataDir, 'gateway.db')} (SQLite) is at schema version 9, newer than this release knows (5): it was upgraded by a later Portico; run that release again, or restore the backup taken before the upgrade`,
        );
        assert.doesNotMatch(error.message, /\n/);
        return true;
      },
    );
  });
});

describe("the gateway's shared PostgreSQL store", { skip: postgres.skip }, () => {
  const schemas: Awaited<ReturnType<typeof freshSchema>>[] = [];
  after(async () => {
    for (const schema of schemas) await schema.drop();
  });

  const withSchema = async () => {
    const schema = await freshSchema(postgres.url!);
    schemas.push(schema);
    const pool = createPostgresPool(schema.url);
    return { schema, pool };
  };

  test('a schema of an earlier version gets the missing steps only', async () => {
    const { pool } = await withSchema();
    try {
      assert.deepEqual(await migratePostgres(pool), [1, 2, 3]);
      // Back to version 1, as a release before per-key settings left it.
      await pool.query('ALTER TABLE api_keys DROP COLUMN settings');
      await pool.query('DELETE FROM portico_migrations WHERE id = 2');
      assert.deepEqual(await migratePostgres(pool), [2]);
      assert.deepEqual(await migratePostgres(pool), []);
      const { rows } = await pool.query(
        "SELECT 1 FROM information_schema.columns WHERE table_name = 'api_keys' AND column_name = 'settings' AND table_schema = current_schema()",
      );
      assert.equal(rows.length, 1);
    } finally {
      await pool.end();
    }
  });

  test('a schema a later release wrote is refused at start, in one line, and left as it was', async () => {
    const { schema, pool } = await withSchema();
    try {
      await migratePostgres(pool);
      await pool.query("INSERT INTO portico_migrations (id, name) VALUES ($1, 'from the future')", [
        POSTGRES_SCHEMA_VERSION + 1,
      ]);
      const schemaName = new URL(schema.url).searchParams.get('options')?.split('=')[1];
      await assert.rejects(
        openSharedStores({
          kind: 'shared',
          databaseUrl: schema.url,
          redis: 'redis://127.0.0.1:1',
          redisFailure: 'closed',
          redisKeyPrefix: 'unused:',
        }),
        (error: Error) => {
          assert.ok(error instanceof SchemaTooNewError);
          assert.equal(
            error.message,
            `the gateway's shared store (PostgreSQL schema ${schemaName}) is at schema version ${POSTGRES_SCHEMA_VERSION + 1}, newer than this release knows (${POSTGRES_SCHEMA_VERSION}): it was upgraded by a later Portico; run that release again, or restore the backup taken before the upgrade`,
          );
          return true;
        },
      );
      const { rows } = await pool.query<{ id: number }>('SELECT id FROM portico_migrations ORDER BY id');
      assert.deepEqual(
        rows.map((row) => row.id),
        [1, 2, 3, 4],
      );
    } finally {
      await pool.end();
    }
  });
});
