// The auth service's store migrates forward by version, refuses a schema a later release wrote
// (the service does not start), and works through PgBouncer in transaction pooling mode.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startAuthServer } from '@portico/auth-server';
import { SchemaTooNewError } from '@portico/store-schema';
import {
  type FreshDatabase,
  freshDatabase,
  type LocalPgBouncer,
  localBinary,
  serviceUrl,
  startPgBouncer,
  tempDir,
} from '@portico/testkit';
import Database from 'libsql';
import pg from 'pg';
import { AUTH_SCHEMA, PostgresStore, SqliteStore } from '../src/store.ts';

const postgres = serviceUrl('DATABASE_URL');
const pgbouncer = localBinary('pgbouncer');
const NEWER = AUTH_SCHEMA.length + 1;
const refusal = (store: string) =>
  `${store} is at schema version ${NEWER}, newer than this release knows (${AUTH_SCHEMA.length}): it was upgraded by a later Portico; run that release again, or restore the backup taken before the upgrade`;

describe("the auth service's SQLite store", () => {
  const dir = tempDir();
  after(() => dir.cleanup());

  test('a store from before schema versions is taken as version 1 with its rows', async () => {
    const dataDir = join(dir.path, 'unversioned');
    new SqliteStore(dataDir).close();
    const file = new Database(join(dataDir, 'auth.db'));
    file.exec('PRAGMA user_version = 0');
    file.exec("INSERT INTO auth_values (name, value) VALUES ('kept', 'yes')");
    file.close();
    const store = new SqliteStore(dataDir);
    try {
      assert.equal(await store.getValue('kept'), 'yes');
    } finally {
      await store.close();
    }
    const reopened = new Database(join(dataDir, 'auth.db'));
    const version = reopened.prepare('PRAGMA user_version').get() as { user_version: number };
    assert.equal(version.user_version, AUTH_SCHEMA.length);
    reopened.close();
  });

  test('a store a later release wrote stops the service at start, in one line', async () => {
    const dataDir = join(dir.path, 'newer');
    new SqliteStore(dataDir).close();
    const file = new Database(join(dataDir, 'auth.db'));
    file.exec(`PRAGMA user_version = ${NEWER}`);
    file.close();
    await assert.rejects(startAuthServer({ dataDir, masterKey: 'a'.repeat(64) }), (error: Error) => {
      assert.ok(error instanceof SchemaTooNewError);
      assert.equal(error.message, refusal(`the auth service's store ${join(dataDir, 'auth.db')} (SQLite)`));
      return true;
    });
  });
});

describe("the auth service's PostgreSQL store", { skip: postgres.skip }, () => {
  let database: FreshDatabase;
  before(async () => {
    database = await freshDatabase(postgres.url!);
  });
  after(async () => {
    await database?.drop();
  });

  test('is migrated before the service answers, and a later release schema stops the service at start', async () => {
    const store = await PostgresStore.open(database.url);
    await store.close();
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const { rows } = await client.query('SELECT id FROM auth_migrations ORDER BY id');
      assert.deepEqual(
        rows.map((row) => row.id),
        AUTH_SCHEMA.map((step) => step.version),
      );
      await client.query("INSERT INTO auth_migrations (id, name) VALUES ($1, 'from the future')", [NEWER]);
    } finally {
      await client.end();
    }
    const dir = tempDir();
    try {
      await assert.rejects(
        startAuthServer({ dataDir: dir.path, databaseUrl: database.url, masterKey: 'a'.repeat(64) }),
        (error: Error) => {
          assert.equal(error.message, refusal(`the auth service's store (PostgreSQL schema public)`));
          return true;
        },
      );
    } finally {
      dir.cleanup();
    }
  });
});

describe("the auth service's PostgreSQL store behind PgBouncer in transaction mode", {
  skip: postgres.skip || pgbouncer.skip,
}, () => {
  let database: FreshDatabase;
  let bouncer: LocalPgBouncer;
  before(async () => {
    database = await freshDatabase(postgres.url!);
    bouncer = await startPgBouncer(database.url);
  });
  after(async () => {
    await bouncer?.close();
    await database?.drop();
  });

  test('two instances migrate at once, then share sessions, keys and replay marks', async () => {
    const [a, b] = await Promise.all([PostgresStore.open(bouncer.url), PostgresStore.open(bouncer.url)]);
    try {
      const now = Date.now();
      assert.equal(await a.putSession('s1', 'sealed', now + 60_000), true);
      assert.equal(await b.putSession('s1', 'other', now + 60_000), false);
      assert.deepEqual(await b.getSessionEntry('s1', now), { data: 'sealed', expiresAt: now + 60_000 });
      assert.equal(await b.putCoreKeyIfAbsent('user', 'wrapped-b', now), 'wrapped-b');
      assert.equal(await a.putCoreKeyIfAbsent('user', 'wrapped-a', now), 'wrapped-b');
      assert.equal(await a.markTokenUsed('token', now + 60_000), true);
      assert.equal(await b.markTokenUsed('token', now + 60_000), false);
      assert.equal(await a.deleteSession('s1'), true);
      assert.equal(await b.getSession('s1', now), undefined);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
