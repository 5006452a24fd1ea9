import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { serviceUrl } from '@portico/testkit';
import type pg from 'pg';
import { KeyInputError } from '../src/keys/key-input-error.ts';
import type { KeyStore } from '../src/keys/key-store.ts';
import { PostgresKeyStore } from '../src/keys/postgres-key-store.ts';
import { SqliteKeyStore } from '../src/keys/sqlite-key-store.ts';
import { createPostgresPool, migratePostgres, POSTGRES_SCHEMA_VERSION } from '../src/stores/postgres.ts';
import { openSqlite } from '../src/stores/sqlite.ts';
import { PostgresUsageRecorder } from '../src/usage/postgres-usage-recorder.ts';
import { SqliteUsageRecorder } from '../src/usage/sqlite-usage-recorder.ts';
import type { UsageRecorder } from '../src/usage/usage-recorder.ts';
import { eventually, freshSchema, startTcpProxy } from './shared-services.ts';

const postgres = serviceUrl('DATABASE_URL');

describe('shared PostgreSQL stores', { skip: postgres.skip }, () => {
  let schema: Awaited<ReturnType<typeof freshSchema>>;
  let pool: pg.Pool;
  const toClose: { close: () => Promise<void> }[] = [];

  before(async () => {
    schema = await freshSchema(postgres.url!);
    pool = createPostgresPool(schema.url);
  });

  after(async () => {
    for (const store of toClose.reverse()) await store.close();
    await pool?.end();
    await schema?.drop();
  });

  test('migrations started by several instances at once are applied exactly once', async () => {
    const pools = [1, 2, 3, 4].map(() => createPostgresPool(schema.url));
    try {
      const applied = await Promise.all(pools.map((p) => migratePostgres(p)));
      assert.deepEqual(
        applied.flat().sort(),
        Array.from({ length: POSTGRES_SCHEMA_VERSION }, (_, i) => i + 1),
      );
      assert.deepEqual(await migratePostgres(pool), []);
      const { rows } = await pool.query('SELECT count(*)::int AS n FROM portico_migrations');
      assert.equal(rows[0].n, POSTGRES_SCHEMA_VERSION);
    } finally {
      await Promise.all(pools.map((p) => p.end()));
    }
  });

  const openPostgresKeys = async () => {
    const store = new PostgresKeyStore(pool, schema.url);
    toClose.push(store);
    await store.whenListening();
    return store;
  };

  for (const [name, open] of [
    ['SQLite', async () => new SqliteKeyStore(openSqlite(':memory:'))],
    ['PostgreSQL', openPostgresKeys],
  ] as const) {
    test(`${name} key store: create, authenticate, update, rotate and revoke behave the same`, async () => {
      const keys: KeyStore = await open();
      const { key, record } = await keys.create({ name: 'one', project: 'alpha', dailyCredits: 500 });
      assert.match(key, /^[0-9a-f]{32}$/);
      assert.equal(record.prefix, key.slice(0, 6));
      assert.deepEqual(
        [record.name, record.project, record.dailyCredits, record.creditsPerSecond, record.revokedAt],
        ['one', 'alpha', 500, null, null],
      );
      assert.ok(record.createdAt instanceof Date);
      assert.deepEqual(await keys.authenticate(key), record);
      assert.equal(await keys.authenticate('f'.repeat(32)), undefined);
      assert.deepEqual(await keys.get(record.id), record);
      assert.equal(await keys.get('key_unknown'), undefined);

      const chosen = await keys.create({ name: 'dev', key: 'dev-key-0123456789abcdef', creditsPerSecond: 7 });
      assert.equal(chosen.record.project, 'default');
      assert.equal(chosen.record.dailyCredits, 3_000_000);
      await assert.rejects(keys.create({ name: 'x', key: 'short' }), KeyInputError);
      await assert.rejects(keys.create({ name: ' ' }), KeyInputError);
      assert.deepEqual((await keys.list()).map((r) => r.id).sort(), [record.id, chosen.record.id].sort());

      const updated = await keys.update(record.id, { dailyCredits: 900, creditsPerSecond: 30 });
      assert.deepEqual([updated?.name, updated?.dailyCredits, updated?.creditsPerSecond], ['one', 900, 30]);
      assert.equal((await keys.authenticate(key))?.dailyCredits, 900);
      assert.equal((await keys.update(record.id, { creditsPerSecond: null }))?.creditsPerSecond, null);
      await assert.rejects(keys.update(record.id, { creditsPerSecond: 0 }), KeyInputError);
      assert.equal(await keys.update('key_unknown', { name: 'z' }), undefined);

      const rotated = await keys.rotate(record.id);
      assert.ok(rotated);
      assert.notEqual(rotated.key, key);
      assert.equal(await keys.authenticate(key), undefined);
      assert.equal((await keys.authenticate(rotated.key))?.id, record.id);

      const revoked = await keys.revoke(record.id);
      assert.ok(revoked?.revokedAt instanceof Date);
      assert.equal(await keys.authenticate(rotated.key), undefined);
      assert.equal(await keys.rotate(record.id), undefined);
      assert.equal(await keys.revoke('key_unknown'), undefined);
      await keys.close();
    });
  }

  test('PostgreSQL keeps only digests of keys', async () => {
    const keys = await openPostgresKeys();
    const { key, record } = await keys.create({ name: 'secret' });
    const { rows } = await pool.query('SELECT * FROM api_keys WHERE id = $1', [record.id]);
    assert.equal(JSON.stringify(rows).includes(key), false);
  });

  test('a key revoked or changed through one instance stops working on another that had it cached', async () => {
    const [a, b] = [await openPostgresKeys(), await openPostgresKeys()];
    assert.equal(b.caching, true, 'the change listener is connected');
    const { key, record } = await a.create({ name: 'shared' });
    assert.equal((await b.authenticate(key))?.id, record.id);
    assert.ok(
      await eventually(() => {
        const found = b.authenticate(key);
        return !(found instanceof Promise) && found?.id === record.id;
      }),
      'served from the cache',
    );
    await pool.query('UPDATE api_keys SET daily_credits = 42 WHERE id = $1', [record.id]);
    assert.ok(await eventually(async () => (await b.authenticate(key))?.dailyCredits === 42));
    await a.revoke(record.id);
    assert.ok(await eventually(async () => (await b.authenticate(key)) === undefined));
  });

  test('while the change listener is cut off the cache is bypassed, so a revoke takes effect at once', async () => {
    const proxy = await startTcpProxy(schema.url);
    try {
      // The listener connects through the proxy; queries use the direct pool.
      const store = new PostgresKeyStore(pool, proxy.url, { reconnectMs: 50 });
      toClose.push(store);
      await store.whenListening();
      assert.equal(store.caching, true);
      const writer = await openPostgresKeys();
      const { key, record } = await writer.create({ name: 'cut' });
      assert.equal((await store.authenticate(key))?.id, record.id);
      proxy.cut();
      assert.ok(await eventually(() => !store.caching), 'the lost listener is noticed');
      await writer.revoke(record.id);
      assert.equal(await store.authenticate(key), undefined);
      proxy.restore();
      assert.ok(await eventually(() => store.caching), 'the listener reconnects by itself');
    } finally {
      await proxy.close();
    }
  });

  test('PostgreSQL usage recorder sums the same usage and errors as the SQLite one', async () => {
    const sqlite = new SqliteUsageRecorder(openSqlite(':memory:'), 60_000);
    const shared = new PostgresUsageRecorder(pool, { flushMs: 60_000 });
    toClose.push(shared, sqlite);
    const day1 = Date.UTC(2026, 0, 1, 23, 59);
    const day2 = Date.UTC(2026, 0, 2, 0, 1);
    const events: [string, string, number, number | undefined, number][] = [
      ['key_a', 'eth_call', 80, undefined, day1],
      ['key_a', 'eth_call', 80, 3, day1],
      ['key_a', 'eth_call', 80, undefined, day2],
      ['key_a', 'eth_getLogs', 0, -32005, day2],
      ['key_b', 'eth_chainId', 0, undefined, day1],
    ];
    for (const recorder of [sqlite, shared] as UsageRecorder[]) {
      for (const [keyId, method, credits, code, now] of events.slice(0, 3))
        recorder.record(keyId, method, credits, code, now);
      await recorder.flush();
      for (const [keyId, method, credits, code, now] of events.slice(3))
        recorder.record(keyId, method, credits, code, now);
    }
    assert.deepEqual(await shared.usage({}), await sqlite.usage({}));
    assert.deepEqual(await shared.errors({}), await sqlite.errors({}));
    assert.deepEqual(await shared.usage({ keyId: 'key_a', fromDay: '2026-01-02' }), [
      { keyId: 'key_a', day: '2026-01-02', method: 'eth_call', requests: 1, credits: 80, refused: 0 },
      { keyId: 'key_a', day: '2026-01-02', method: 'eth_getLogs', requests: 1, credits: 0, refused: 1 },
    ]);
    // An error that was charged (a revert, code 3) is not refused; one that cost nothing is.
    assert.deepEqual(
      (await shared.usage({ keyId: 'key_a', fromDay: '2026-01-01' })).map((r) => [
        r.day,
        r.method,
        r.refused,
      ]),
      [
        ['2026-01-01', 'eth_call', 0],
        ['2026-01-02', 'eth_call', 0],
        ['2026-01-02', 'eth_getLogs', 1],
      ],
    );
  });

  test('several recorders writing the same rows concurrently add up', async () => {
    const recorders = [1, 2, 3].map(() => new PostgresUsageRecorder(pool, { flushMs: 60_000 }));
    toClose.push(...recorders);
    const now = Date.UTC(2026, 1, 1);
    await Promise.all(
      recorders.map(async (recorder) => {
        for (let round = 0; round < 5; round++) {
          for (const method of ['eth_call', 'eth_blockNumber', 'eth_getBalance'])
            recorder.record('key_many', method, 10, round === 0 ? 429 : undefined, now);
          await recorder.flush();
        }
      }),
    );
    const rows = await recorders[0].usage({ keyId: 'key_many' });
    assert.deepEqual(
      rows.map((r) => [r.method, r.requests, r.credits]),
      [
        ['eth_blockNumber', 15, 150],
        ['eth_call', 15, 150],
        ['eth_getBalance', 15, 150],
      ],
    );
    assert.deepEqual(
      (await recorders[0].errors({ keyId: 'key_many' })).map((e) => [e.code, e.count]),
      [[429, 9]],
    );
  });
});
