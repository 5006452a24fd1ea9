import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { SchemaTooNewError } from '@portico/store-schema';
import {
  type FreshDatabase,
  freshDatabase,
  type LocalPgBouncer,
  localBinary,
  serviceUrl,
  startPgBouncer,
  tempDir,
  terminateConnections,
} from '@portico/testkit';
import Database from 'libsql';
import pg from 'pg';
import {
  createPostgresSessionStore,
  createSqliteSessionStore,
  type Session,
  type SessionStore,
} from '../src/node.ts';
import { connectDapp, createTestWallet } from './helpers.ts';

const session: Session = {
  sessionScopes: { 'eip155:1': { methods: ['eth_call'], notifications: [], accounts: ['eip155:1:0xabc'] } },
  sessionProperties: {},
};

async function exerciseStore(store: SessionStore, origin: string) {
  assert.equal(await store.get(origin), undefined);
  await store.set(origin, session);
  assert.deepEqual(await store.get(origin), session);
  await store.set(origin, { ...session, sessionScopes: {} });
  assert.deepEqual((await store.get(origin))?.sessionScopes, {});
  assert.ok((await store.list()).some((entry) => entry.origin === origin));
  assert.equal(await store.delete(origin), true);
  assert.equal(await store.delete(origin), false);
}

describe('SQLite session store', () => {
  const dir = tempDir();
  after(() => dir.cleanup());

  test('stores, replaces, lists and deletes one session per origin', async () => {
    const store = createSqliteSessionStore(join(dir.path, 'a.sqlite'));
    await exerciseStore(store, 'https://dapp.example');
    await store.close();
  });

  test('a session survives a wallet restart', async () => {
    const path = join(dir.path, 'restart.sqlite');
    const first = createTestWallet({ store: createSqliteSessionStore(path) });
    const created = await connectDapp(first.engine).client.createSession({
      optionalScopes: { 'eip155:1': { methods: [], notifications: [] } },
    });
    await first.engine.close();
    const second = createTestWallet({ store: createSqliteSessionStore(path) });
    assert.deepEqual(await connectDapp(second.engine).client.getSession(), created);
  });
});

const REFUSAL =
  'is at schema version 2, newer than this release knows (1): it was upgraded by a later Portico; run that release again, or restore the backup taken before the upgrade';

test('a SQLite session file a later release wrote is refused in one line', () => {
  const dir = tempDir();
  try {
    const path = join(dir.path, 'newer.sqlite');
    createSqliteSessionStore(path).close();
    const file = new Database(path);
    file.exec('PRAGMA user_version = 2');
    file.close();
    assert.throws(
      () => createSqliteSessionStore(path),
      (error: Error) =>
        error instanceof SchemaTooNewError &&
        error.message === `the wallet's session store ${path} (SQLite) ${REFUSAL}`,
    );
  } finally {
    dir.cleanup();
  }
});

describe('PostgreSQL session store', () => {
  const { url, skip } = serviceUrl('DATABASE_URL');
  const pgbouncer = localBinary('pgbouncer');
  let database: FreshDatabase;
  before(async () => {
    if (!skip) database = await freshDatabase(url!);
  });
  after(async () => {
    await database?.drop();
  });

  test('stores, replaces, lists and deletes one session per origin', { skip }, async () => {
    const store = await createPostgresSessionStore({
      databaseUrl: database.url,
      table: 'multichain_sessions_test',
    });
    try {
      await exerciseStore(store, 'https://dapp.example');
    } finally {
      await store.close();
    }
  });

  test('keeps working after the server ended its connections (a restart, a failover)', { skip }, async () => {
    const store = await createPostgresSessionStore({ databaseUrl: database.url, table: 'sessions_lost' });
    try {
      await store.set('https://dapp.example', session);
      assert.ok((await terminateConnections(url!, database.name)) > 0);
      assert.deepEqual(await store.get('https://dapp.example'), session);
    } finally {
      await store.close();
    }
  });

  test('a table a later release migrated is refused in one line', { skip }, async () => {
    const table = 'sessions_newer';
    await (await createPostgresSessionStore({ databaseUrl: database.url, table })).close();
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    await client
      .query(`INSERT INTO ${table}_migrations (id, name) VALUES (2, 'from the future')`)
      .finally(() => client.end());
    await assert.rejects(
      createPostgresSessionStore({ databaseUrl: database.url, table }),
      (error: Error) =>
        error instanceof SchemaTooNewError &&
        error.message === `the wallet's session store (${table}) (PostgreSQL schema public) ${REFUSAL}`,
    );
  });

  test('works through PgBouncer in transaction mode', { skip: skip || pgbouncer.skip }, async () => {
    const bouncer: LocalPgBouncer = await startPgBouncer(database.url);
    try {
      const [a, b] = await Promise.all([
        createPostgresSessionStore({ databaseUrl: bouncer.url, table: 'sessions_pooled' }),
        createPostgresSessionStore({ databaseUrl: bouncer.url, table: 'sessions_pooled' }),
      ]);
      await a.set('https://dapp.example', session);
      assert.deepEqual(await b.get('https://dapp.example'), session);
      await exerciseStore(b, 'https://other.example');
      await a.close();
      await b.close();
    } finally {
      await bouncer.close();
    }
  });
});
