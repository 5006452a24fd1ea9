// The shared stores with PostgreSQL behind Debian's pgbouncer in transaction pooling mode: each
// transaction may run on another server connection, so nothing may rely on session state.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  type FreshDatabase,
  freshDatabase,
  type LocalPgBouncer,
  localBinary,
  serviceUrl,
  startPgBouncer,
} from '@portico/testkit';
import pg from 'pg';
import pino from 'pino';
import type { SharedStoresConfig } from '../src/config/config.ts';
import { type GatewayStores, openSharedStores } from '../src/open-stores.ts';
import { POSTGRES_SCHEMA_VERSION } from '../src/stores/postgres.ts';
import { dropPrefix, eventually, freshPrefix } from './shared-services.ts';

const pgbouncer = localBinary('pgbouncer');
const postgres = serviceUrl('DATABASE_URL');
const redis = serviceUrl('REDIS_URL');

describe('the shared stores behind PgBouncer in transaction pooling mode', {
  skip: pgbouncer.skip || postgres.skip || redis.skip,
}, () => {
  let database: FreshDatabase;
  let bouncer: LocalPgBouncer;
  const prefix = freshPrefix();
  const opened: GatewayStores[] = [];

  const open = async (extra: Partial<SharedStoresConfig> = {}, warnings: string[] = []) => {
    const logger = pino({ level: 'warn' }, { write: (line: string) => warnings.push(line) });
    const config: SharedStoresConfig = {
      kind: 'shared',
      databaseUrl: bouncer.url,
      redis: redis.url!,
      redisFailure: 'closed',
      redisKeyPrefix: prefix,
      ...extra,
    };
    const stores = await openSharedStores(config, { logger });
    opened.push(stores);
    return stores;
  };

  before(async () => {
    database = await freshDatabase(postgres.url!);
    bouncer = await startPgBouncer(database.url);
  });

  after(async () => {
    for (const stores of opened) await stores.close();
    await bouncer?.close();
    await database?.drop();
    await dropPrefix(redis.url!, prefix);
  });

  test('two instances migrate at once, then keys and usage work across them', async () => {
    const warnings: string[] = [];
    const [a, b] = await Promise.all([open({}, warnings), open()]);
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    const steps = await client.query('SELECT id FROM portico_migrations').finally(() => client.end());
    assert.equal(steps.rows.length, POSTGRES_SCHEMA_VERSION, 'each step applied once');

    // LISTEN through the pooler is held by a server connection the listener does not keep: the
    // listener's own test notification never comes, so the cache is not trusted and said so.
    assert.equal((a.keys as { caching?: boolean }).caching, false);
    assert.ok(
      warnings.some((line) => /PgBouncer in transaction mode\? set stores\.databaseDirectUrl/.test(line)),
      warnings.join('\n'),
    );

    const { key, record } = await a.keys.create({ name: 'pooled', dailyCredits: 1000 });
    assert.equal((await b.keys.authenticate(key))?.id, record.id);
    await a.keys.revoke(record.id);
    assert.equal(
      await b.keys.authenticate(key),
      undefined,
      'a revoked key is refused at once by the other instance',
    );

    a.usage.record(record.id, 'eth_call', 26);
    b.usage.record(record.id, 'eth_call', 26);
    await a.usage.flush();
    await b.usage.flush();
    const rows = await b.usage.usage({ keyId: record.id });
    assert.deepEqual(
      rows.map((row) => [row.method, row.requests, row.credits]),
      [['eth_call', 2, 52]],
    );
  });

  test('with stores.databaseDirectUrl the key listener hears every change and lookups are cached', async () => {
    const pooled = await open();
    const direct = await open({ databaseDirectUrl: database.url });
    assert.equal((direct.keys as { caching?: boolean }).caching, true);
    const { key, record } = await pooled.keys.create({ name: 'cached' });
    assert.equal((await direct.keys.authenticate(key))?.id, record.id);
    await pooled.keys.revoke(record.id);
    assert.ok(
      await eventually(async () => (await direct.keys.authenticate(key)) === undefined),
      'the revocation reached the cache through NOTIFY',
    );
  });
});
