// The admin API while a store cannot be reached or written: 503 naming the store, and no write
// behind an error (no key, secret or rotated key text that nobody saw). Real PostgreSQL and Redis
// cut off by a TCP proxy in front of each; a real SQLite file made read-only.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type Anvil, startAnvil } from '@portico/devchain';
import {
  GroupCommit,
  MemoryRateLimiter,
  openSqlite,
  SqliteCreditLedger,
  SqliteKeyStore,
  SqliteUsageRecorder,
} from '@portico/gateway';
import { serviceUrl, tempDir } from '@portico/testkit';
import { parseConfig } from '../src/config/config.ts';
import { type Gateway, startGateway } from '../src/gateway.ts';
import type { GatewayStores } from '../src/open-stores.ts';
import { openSharedStores } from '../src/open-stores.ts';
import {
  dropPrefix,
  eventually,
  freshPrefix,
  freshSchema,
  startTcpProxy,
  type TcpProxy,
} from './shared-services.ts';

const postgres = serviceUrl('DATABASE_URL');
const redis = serviceUrl('REDIS_URL');
const ADMIN_TOKEN = 'outage-admin-token-0123456789';

type AdminReply = {
  status: number;
  body: Record<string, unknown> & { error?: { code: string; store?: string; message: string } };
};

describe('admin API while a shared store is down', { skip: postgres.skip || redis.skip }, () => {
  let anvil: Anvil;
  let schema: Awaited<ReturnType<typeof freshSchema>>;
  let redisProxy: TcpProxy;
  let postgresProxy: TcpProxy;
  let stores: GatewayStores;
  let gateway: Gateway;
  const prefix = freshPrefix();

  before(async () => {
    anvil = await startAnvil();
    schema = await freshSchema(postgres.url!);
    redisProxy = await startTcpProxy(redis.url!);
    postgresProxy = await startTcpProxy(schema.url);
    stores = await openSharedStores(
      {
        kind: 'shared',
        databaseUrl: postgresProxy.url,
        redis: redisProxy.url,
        redisFailure: 'closed',
        redisKeyPrefix: prefix,
      },
      {},
    );
    gateway = await startGateway(
      parseConfig({
        port: 0,
        logLevel: 'silent',
        adminToken: ADMIN_TOKEN,
        networks: [{ name: 'local', chainId: 'eip155:31337', upstreams: [anvil.url] }],
      }),
      { stores },
    );
  });

  after(async () => {
    await gateway?.close();
    await stores?.close();
    await redisProxy?.close();
    await postgresProxy?.close();
    await schema?.drop();
    await dropPrefix(redis.url!, prefix);
    const keepAlive = setInterval(() => {}, 1000); // anvil's child is unref'd
    await anvil?.stop();
    clearInterval(keepAlive);
  });

  const admin = async (method: string, path: string, body?: unknown): Promise<AdminReply> => {
    const response = await fetch(`${gateway.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as AdminReply['body'] };
  };

  const rpcStatus = async (key: string, headers: Record<string, string> = {}) => {
    const response = await fetch(`${gateway.networks[0].baseUrl}/v3/${key}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
    });
    await response.body?.cancel();
    return response.status;
  };

  /** Runs `during` with the proxy cut, then waits until the admin API reads keys again. */
  const whileCut = async (proxy: TcpProxy, during: () => Promise<void>) => {
    proxy.cut();
    try {
      await during();
    } finally {
      proxy.restore();
    }
    assert.ok(await eventually(async () => (await admin('GET', '/admin/keys')).status === 200), 'back');
  };

  const assertUnavailable = (reply: AdminReply, store: 'redis' | 'postgresql', what: string) => {
    assert.equal(reply.status, 503, `${what}: ${JSON.stringify(reply.body)}`);
    assert.equal(reply.body.error?.code, 'STORE_UNAVAILABLE', what);
    assert.equal(reply.body.error?.store, store, what);
    assert.match(reply.body.error?.message ?? '', store === 'redis' ? /Redis/ : /PostgreSQL/, what);
  };

  test('with Redis down, a key is still created (a new key has spent nothing) and its text is the one that works', async () => {
    let created: AdminReply | undefined;
    await whileCut(redisProxy, async () => {
      created = await admin('POST', '/admin/keys', { name: 'made-while-redis-down', dailyCredits: 1000 });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal(created.body.creditsRemainingToday, 1000);
    });
    assert.equal(await rpcStatus(created!.body.key as string), 200);
  });

  test('with Redis down, listing keys answers 503 naming Redis', async () => {
    await whileCut(redisProxy, async () => {
      assertUnavailable(await admin('GET', '/admin/keys'), 'redis', 'GET /admin/keys');
    });
  });

  test('with Redis down, changing, rotating, adding a secret to or revoking a key answers 503 and changes nothing', async () => {
    const created = await admin('POST', '/admin/keys', { name: 'untouched', dailyCredits: 5000 });
    const { id, key } = created.body as { id: string; key: string };
    await whileCut(redisProxy, async () => {
      assertUnavailable(await admin('PATCH', `/admin/keys/${id}`, { name: 'renamed' }), 'redis', 'PATCH');
      assertUnavailable(await admin('POST', `/admin/keys/${id}/rotate`), 'redis', 'rotate');
      assertUnavailable(await admin('POST', `/admin/keys/${id}/secret`), 'redis', 'secret');
      assertUnavailable(await admin('DELETE', `/admin/keys/${id}`), 'redis', 'revoke');
      assert.match(
        (await admin('DELETE', `/admin/keys/${id}`)).body.error?.message ?? '',
        /nothing was changed/,
      );
    });
    const after = await admin('GET', `/admin/keys/${id}`);
    assert.equal(after.body.name, 'untouched');
    assert.equal(after.body.revokedAt, null);
    assert.equal((after.body.settings as { secretRequired: boolean }).secretRequired, false);
    // The key text from before still works, without a secret: it was neither rotated nor locked.
    assert.equal(await rpcStatus(key), 200);
  });

  test('with PostgreSQL down, every admin call answers 503 naming PostgreSQL and no key is created', async () => {
    const created = await admin('POST', '/admin/keys', { name: 'existing-before-outage' });
    const { id } = created.body as { id: string };
    await whileCut(postgresProxy, async () => {
      assertUnavailable(await admin('POST', '/admin/keys', { name: 'never-made' }), 'postgresql', 'POST');
      assertUnavailable(await admin('GET', '/admin/keys'), 'postgresql', 'GET /admin/keys');
      assertUnavailable(await admin('GET', `/admin/keys/${id}`), 'postgresql', 'GET one');
      assertUnavailable(await admin('PATCH', `/admin/keys/${id}`, { name: 'x' }), 'postgresql', 'PATCH');
      assertUnavailable(await admin('POST', `/admin/keys/${id}/rotate`), 'postgresql', 'rotate');
      assertUnavailable(await admin('DELETE', `/admin/keys/${id}`), 'postgresql', 'revoke');
      assertUnavailable(await admin('GET', '/admin/usage'), 'postgresql', 'usage');
    });
    const keys = (await admin('GET', '/admin/keys')).body.keys as { name: string }[];
    assert.equal(keys.filter((k) => k.name === 'never-made').length, 0);
    assert.equal((await admin('GET', `/admin/keys/${id}`)).body.name, 'existing-before-outage');
  });
});

describe('admin API while the embedded SQLite database cannot be written', () => {
  const dir = tempDir('portico-admin-sqlite-');
  const db = openSqlite(join(dir.path, 'gateway.db'));
  const commits = new GroupCommit(db);
  let gateway: Gateway;
  before(async () => {
    const usage = new SqliteUsageRecorder(db, 500, commits);
    const stores: GatewayStores = {
      keys: new SqliteKeyStore(db),
      ledger: new SqliteCreditLedger(db, commits),
      usage,
      rateLimiter: new MemoryRateLimiter(),
      close: () => usage.close(),
    };
    gateway = await startGateway(
      parseConfig({
        port: 0,
        logLevel: 'silent',
        adminToken: ADMIN_TOKEN,
        networks: [{ name: 'local', chainId: 'eip155:31337', upstreams: ['http://127.0.0.1:9'] }],
      }),
      { stores },
    );
  });
  after(async () => {
    await gateway?.close();
    db.close();
    dir.cleanup();
  });

  const admin = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${gateway.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as AdminReply['body'] };
  };

  test('writes answer 503 naming SQLite and change nothing', async () => {
    const { id } = (await admin('POST', '/admin/keys', { name: 'kept' })).body as { id: string };
    db.exec('PRAGMA query_only = ON'); // as a full or read-only disk would
    try {
      for (const [method, path, body] of [
        ['POST', '/admin/keys', { name: 'never-made' }],
        ['PATCH', `/admin/keys/${id}`, { name: 'renamed' }],
        ['POST', `/admin/keys/${id}/rotate`],
        ['POST', `/admin/keys/${id}/secret`],
        ['DELETE', `/admin/keys/${id}`],
      ] as const) {
        const reply = await admin(method, path, body);
        assert.equal(reply.status, 503, `${method} ${path}: ${JSON.stringify(reply.body)}`);
        assert.equal(reply.body.error?.store, 'sqlite');
        assert.match(reply.body.error?.message ?? '', /SQLite.*nothing was changed/);
      }
    } finally {
      db.exec('PRAGMA query_only = OFF');
    }
    const keys = (await admin('GET', '/admin/keys')).body.keys as {
      name: string;
      revokedAt: string | null;
    }[];
    assert.deepEqual(
      keys.map((k) => [k.name, k.revokedAt]),
      [['kept', null]],
    );
  });
});
