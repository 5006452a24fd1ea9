// The shared stores on a real three-node Redis Cluster (redis-server --cluster-enabled yes, slots
// spread by redis-cli --cluster create): every Lua script's keys share one hash slot.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Anvil, startAnvil } from '@portico/devchain';
import { type LocalRedisCluster, localBinary, serviceUrl, startRedisCluster } from '@portico/testkit';
import { Cluster } from 'ioredis';
import { RedisResponseCache } from '../src/cache/redis-response-cache.ts';
import { parseConfig } from '../src/config/config.ts';
import { RedisCreditLedger } from '../src/credits/redis-credit-ledger.ts';
import { RedisRateLimiter } from '../src/credits/redis-rate-limiter.ts';
import { type Gateway, startGateway } from '../src/gateway.ts';
import { JsonResult } from '../src/rpc/json-result.ts';
import { createRedisClient, type RedisConnection, whenRedisReady } from '../src/stores/redis.ts';
import { freshPrefix, freshSchema } from './shared-services.ts';

const redisServer = localBinary('redis-server');
const postgres = serviceUrl('DATABASE_URL');
const NOON = (() => {
  const today = new Date();
  return Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate(), 12);
})();
const DAY = new Date(NOON).toISOString().slice(0, 10);

describe('the shared stores on a three-node Redis Cluster', { skip: redisServer.skip }, () => {
  let cluster: LocalRedisCluster;
  let inspect: Cluster;
  const clients: RedisConnection[] = [];
  const prefix = freshPrefix();

  const connect = async () => {
    const client = createRedisClient({ cluster: cluster.nodes });
    clients.push(client);
    assert.ok(await whenRedisReady(client, 10_000), 'the cluster client must become ready');
    return client;
  };

  before(async () => {
    cluster = await startRedisCluster(3);
    inspect = new Cluster(cluster.nodes);
  });

  after(async () => {
    for (const client of clients) client.disconnect();
    inspect?.disconnect();
    await cluster?.close();
  });

  test('the cluster is real: a script over keys of two slots is refused (CROSSSLOT)', async () => {
    await assert.rejects(
      inspect.eval("return redis.call('GET', KEYS[1])", 2, `${prefix}a`, `${prefix}b`),
      /CROSSSLOT/,
    );
    const masters = inspect.nodes('master');
    assert.equal(masters.length, 3);
  });

  test('one turn of debits for many keys goes out as one script on one slot, limits exact across instances', async () => {
    const ledgers = await Promise.all(
      [1, 2, 3].map(async () => new RedisCreditLedger(await connect(), { keyPrefix: prefix })),
    );
    // Forty keys in one turn: their counters would fall in forty slots on three nodes without the hash tag.
    const many = await Promise.all(
      Array.from({ length: 40 }, (_, i) => ledgers[0].debit(`key_${i}`, 100, 7, NOON)),
    );
    assert.ok(many.every((r) => r.ok && r.remaining === 93));
    const slots = new Set(
      await Promise.all(
        [0, 17, 39].map((i) => inspect.cluster('KEYSLOT', `{${prefix}credits}:key_${i}:${DAY}`)),
      ),
    );
    assert.equal(slots.size, 1);
    assert.equal(await inspect.get(`{${prefix}credits}:key_17:${DAY}`), '7');

    const racing = await Promise.all(
      Array.from({ length: 300 }, (_, i) => ledgers[i % 3].debit('key_race', 1000, 7, NOON)),
    );
    assert.equal(racing.filter((r) => r.ok).length, Math.floor(1000 / 7));
    assert.equal(await ledgers[1].spent('key_race', NOON), 994);
    await ledgers[2].refund('key_race', 94, NOON);
    assert.equal(await ledgers[0].spent('key_race', NOON), 900);
  });

  test('the per-second cap holds on the cluster', async () => {
    const limiters = await Promise.all(
      [1, 2].map(async () => new RedisRateLimiter(await connect(), { keyPrefix: prefix })),
    );
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => limiters[i % 2].take('key_rate', 10, 50, NOON)),
    );
    assert.equal(results.filter((r) => r.ok).length, 5);
  });

  test("a reorg evicts a network's unfinalized entries, and a dropped final block the whole network, on every master", async () => {
    const client = await connect();
    const options = { keyPrefix: prefix, unfinalizedTtlMs: 60_000, finalTtlMs: 600_000 };
    const caches = ['net-a', 'net-b', 'net-c', 'net-d'].map(
      (network) => new RedisResponseCache(client, { ...options, network }),
    );
    const entry = (n: number) => ({ reply: { ok: true as const, result: JsonResult.ofValue(n) }, block: n });
    for (const cache of caches) {
      await cache.set('final', entry(1), true);
      await cache.set('unfinalized-1', entry(10), false);
      await cache.set('unfinalized-2', entry(11), false);
    }
    // The networks' slots differ: their entries sit on more than one master.
    const slotOf = (network: string) =>
      inspect.cluster('KEYSLOT', `{${prefix}cache:${network}}`) as Promise<number>;
    assert.ok(new Set(await Promise.all(['net-a', 'net-b', 'net-c', 'net-d'].map(slotOf))).size > 1);

    await caches[0].evictAfterReorg(5);
    assert.equal(await caches[0].get('unfinalized-1'), undefined);
    assert.equal(await caches[0].get('unfinalized-2'), undefined);
    assert.equal((await caches[0].get('final'))?.block, 1);
    assert.equal((await caches[1].get('unfinalized-1'))?.block, 10, 'another network keeps its entries');

    // A final entry above the new finalized block: the network's whole cache goes (SCAN on each master).
    await caches[1].set('final-high', entry(50), true);
    await caches[1].evictAfterReorg(20);
    for (const key of ['final', 'final-high', 'unfinalized-1'])
      assert.equal(await caches[1].get(key), undefined, key);
    assert.equal((await caches[2].get('final'))?.block, 1);
    for (const cache of caches) await cache.close();
  });

  describe('two gateway instances configured with stores.redis: { cluster }', { skip: postgres.skip }, () => {
    let anvil: Anvil;
    let schema: Awaited<ReturnType<typeof freshSchema>>;
    const gateways: Gateway[] = [];

    before(async () => {
      anvil = await startAnvil();
      schema = await freshSchema(postgres.url!);
    });

    after(async () => {
      for (const gateway of gateways) await gateway.close();
      await schema?.drop();
      const keepAlive = setInterval(() => {}, 1000);
      await anvil?.stop();
      clearInterval(keepAlive);
    });

    test('share a key daily limit exactly and a response cache', async () => {
      const config = parseConfig({
        port: 0,
        logLevel: 'silent',
        networks: [{ name: 'anvil', chainId: 'eip155:31337', upstreams: [anvil.url], passthroughCost: 10 }],
        stores: {
          kind: 'shared',
          databaseUrl: schema.url,
          redis: { cluster: cluster.nodes.map((node) => `${node.host}:${node.port}`) },
          redisKeyPrefix: prefix,
        },
      });
      assert.equal(config.networks[0].cache.store, 'redis');
      for (let i = 0; i < 2; i++) gateways.push(await startGateway(config));
      const [a, b] = gateways;
      const { key } = await a.keys.create({ name: 'cluster', dailyCredits: 405 });
      const call = async (gateway: Gateway) =>
        (
          await fetch(`${gateway.url}/anvil/v3/${key}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
          })
        ).status;
      const statuses = await Promise.all(Array.from({ length: 60 }, (_, i) => call(i % 2 ? a : b)));
      const served = statuses.filter((s) => s === 200).length;
      // A metering call the cluster did not answer in time is a 503 (closed mode), never a free call.
      const unavailable = statuses.filter((s) => s === 503).length;
      assert.equal(served + unavailable + statuses.filter((s) => s === 429).length, 60, String(statuses));
      assert.ok(served <= 40, `${served} served: more than the balance allows`);
      if (unavailable === 0) assert.equal(served, 40, String(statuses));
      const cached = await inspect
        .nodes('master')
        .reduce(
          async (count, node) => (await count) + (await node.keys(`{${prefix}cache:anvil}:*`)).length,
          Promise.resolve(0),
        );
      assert.ok(cached > 0, 'eth_chainId is cached in the cluster');
    });
  });
});
