import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { serviceUrl } from '@portico/testkit';
import type { Redis } from 'ioredis';
import { RedisResponseCache, type RedisResponseCacheOptions } from '../src/cache/redis-response-cache.ts';
import type { CachedReply } from '../src/cache/response-cache.ts';
import { JsonResult } from '../src/rpc/json-result.ts';
import { createRedisClient, RedisHealth, whenRedisReady } from '../src/stores/redis.ts';
import { dropPrefix, eventually, freshPrefix, startTcpProxy, type TcpProxy } from './shared-services.ts';

const redisService = serviceUrl('REDIS_URL');
const DAY = 86_400_000;

const block = (n: number): CachedReply => ({
  reply: {
    ok: true,
    result: JsonResult.ofValue({ number: `0x${n.toString(16)}`, hash: `0x${'ab'.repeat(32)}` }),
  },
  block: n,
});

/** An entry as plain data (a JsonResult compares by its value). */
const plain = (entry: CachedReply | undefined) =>
  entry && { block: entry.block, result: entry.reply.ok ? entry.reply.result.value : entry.reply.error };

describe('the Redis response cache', { skip: redisService.skip }, () => {
  const prefix = freshPrefix();
  const clients: Redis[] = [];
  const caches: RedisResponseCache[] = [];
  let proxy: TcpProxy;
  let inspect: Redis;

  const connect = async (url = redisService.url!, commandTimeoutMs?: number) => {
    const client = createRedisClient(url, { maxReconnectDelayMs: 100, commandTimeoutMs });
    clients.push(client);
    assert.ok(await whenRedisReady(client, 5000), `Redis at ${url} must be reachable`);
    return client;
  };

  /** One gateway instance's cache of `network` (its own connection). */
  const instance = async (
    options: Partial<RedisResponseCacheOptions> & { url?: string; commandTimeoutMs?: number } = {},
  ) => {
    const cache = new RedisResponseCache(await connect(options.url, options.commandTimeoutMs), {
      network: 'net',
      keyPrefix: prefix,
      unfinalizedTtlMs: 60_000,
      finalTtlMs: DAY,
      ...options,
    });
    caches.push(cache);
    return cache;
  };

  before(async () => {
    proxy = await startTcpProxy(redisService.url!);
    inspect = await connect();
  });

  after(async () => {
    for (const cache of caches) await cache.close();
    for (const client of clients) client.disconnect();
    await proxy?.close();
    await dropPrefix(redisService.url!, prefix);
  });

  test('entries live under <prefix>cache:<network>:<SHA-256 base64url>, final ones for finalTtlMs, unfinalized ones for unfinalizedTtlMs', async () => {
    const [a, b] = [await instance(), await instance()];
    const request = `eth_call:[{"data":"0x${'00'.repeat(4096)}"},"0x1"]`;
    const key = `${prefix}cache:net:${createHash('sha256').update(request).digest('base64url')}`;
    assert.equal(a.keyOf(request), key);
    await a.set(request, block(1), true);
    const finalTtl = await inspect.pttl(key);
    assert.ok(finalTtl > DAY - 600_000 && finalTtl <= DAY, `final entry PTTL ${finalTtl}`);
    assert.deepEqual(
      plain(await b.get(request)),
      plain(block(1)),
      'another instance reads it back unchanged',
    );

    await a.set('unfinalized', block(9), false);
    const ttl = await inspect.pttl(a.keyOf('unfinalized'));
    assert.ok(ttl > 0 && ttl <= 60_000, `unfinalized entry PTTL ${ttl}`);
    const member = a.keyOf('unfinalized').slice(`${prefix}cache:net:`.length);
    assert.ok(
      (await inspect.zscore(`${prefix}cache:net:unfinalized`, member)) !== null,
      'listed in the index',
    );
    assert.equal(await b.get('never stored'), undefined);
  });

  test('a reorg seen by one instance evicts the unfinalized entries every instance wrote and keeps final ones', async () => {
    const [a, b] = [await instance({ network: 'reorg' }), await instance({ network: 'reorg' })];
    await a.set('from a', block(7), false);
    await b.set('from b', block(8), false);
    await a.set('final', block(2), true);
    assert.deepEqual(plain(await a.get('from b')), plain(block(8)));

    await b.evictAfterReorg(5);
    assert.equal(await a.get('from a'), undefined);
    assert.equal(await a.get('from b'), undefined);
    assert.equal(await b.get('from a'), undefined);
    assert.deepEqual(plain(await b.get('final')), plain(block(2)));
    assert.equal(await inspect.exists(`${prefix}cache:reorg:unfinalized`), 0);
    await a.evictAfterReorg(5); // the other instance sees the same reorg: harmless
    assert.deepEqual(plain(await a.get('final')), plain(block(2)));
    assert.equal(a.storeErrors + b.storeErrors, 0);
  });

  test('a reorg below final entries the instance wrote (a dev chain reverted) drops the network’s whole cache', async () => {
    const a = await instance({ network: 'dev' });
    const other = await instance({ network: 'dev2' });
    await a.set('final 10', block(10), true);
    await a.set('final 3', block(3), true);
    await other.set('final 10', block(10), true);
    await a.evictAfterReorg(20);
    assert.deepEqual(plain(await a.get('final 10')), plain(block(10)), 'finalized at 20: nothing above it');

    await a.evictAfterReorg(5);
    assert.equal(await a.get('final 10'), undefined);
    assert.equal(await a.get('final 3'), undefined);
    assert.deepEqual(plain(await other.get('final 10')), plain(block(10)), 'another network is untouched');
  });

  test('the unfinalized index forgets expired entries and lives as long as its longest-lived entry', async () => {
    const index = `${prefix}cache:prune:unfinalized`;
    const brief = await instance({ network: 'prune', unfinalizedTtlMs: 1 });
    const long = await instance({ network: 'prune', unfinalizedTtlMs: 60_000 });
    await brief.set('brief', block(1), false);
    assert.ok(await eventually(async () => (await inspect.exists(brief.keyOf('brief'))) === 0));
    await long.set('long', block(2), false);
    const member = (key: string) => key.slice(`${prefix}cache:prune:`.length);
    assert.equal(
      await inspect.zscore(index, member(brief.keyOf('brief'))),
      null,
      'the expired member was pruned',
    );
    // Left: 'long' and the copies kept for stale-if-error (they live as long as final data).
    assert.deepEqual(
      (await inspect.zrange(index, 0, -1)).sort(),
      [member(long.keyOf('long')), member(brief.staleKeyOf('brief')), member(long.staleKeyOf('long'))].sort(),
    );
    await brief.set('brief again', block(3), false);
    const ttl = await inspect.pttl(index);
    assert.ok(ttl > 1000, `a 1 ms entry did not shorten the index's life (PTTL ${ttl})`);
  });

  test('an unfinalized TTL of 0 serves no unfinalized data (only the copy kept for stale-if-error exists)', async () => {
    const cache = await instance({ network: 'no-ttl', unfinalizedTtlMs: 0 });
    await cache.set('head', block(1), false);
    await cache.set('final', block(1), true);
    assert.equal(await cache.get('head'), undefined);
    assert.equal(await inspect.exists(cache.keyOf('head')), 0);
    assert.deepEqual(plain(await cache.get('final')), plain(block(1)));
  });

  test('stale-if-error reads the copy of an unfinalized entry only once its block is finalized, and a reorg drops it', async () => {
    const [a, b] = [await instance({ network: 'stale' }), await instance({ network: 'stale' })];
    await a.set('block 7', block(7), false);
    await a.set('no block', { reply: { ok: true, result: JsonResult.ofValue('0x1') } }, false);
    assert.equal(await b.getStale('block 7', 6), undefined, 'block 7 is not final at 6');
    assert.deepEqual(plain(await b.getStale('block 7', 7)), plain(block(7)));
    const ttl = await inspect.pttl(a.staleKeyOf('block 7'));
    assert.ok(ttl > DAY - 600_000 && ttl <= DAY, `kept as long as final data (PTTL ${ttl})`);
    assert.equal(
      await b.getStale('no block', 100),
      undefined,
      'without its block it can never count as final',
    );
    assert.equal(await inspect.exists(a.staleKeyOf('no block')), 0);

    await b.evictAfterReorg(7);
    assert.equal(await a.getStale('block 7', 7), undefined, 'a reorg drops what was written unfinalized');
  });

  test('Redis stalled: a read is a miss once the command times out, then Redis is skipped until a probe finds it back', async () => {
    const changes: boolean[] = [];
    const health = new RedisHealth((up) => changes.push(up));
    const cache = await instance({ network: 'stall', url: proxy.url, commandTimeoutMs: 100, health });
    await cache.set('kept', block(1), true);
    proxy.stall();
    try {
      assert.equal(await cache.get('kept'), undefined);
      assert.equal(cache.storeErrors, 1);
      // While Redis fails, calls skip it (one probe a second): no second wait for the timeout.
      assert.equal(await cache.get('kept'), undefined);
      await cache.set('skipped', block(2), true);
      assert.equal(cache.storeErrors, 1);
      assert.deepEqual(changes, [false]);
    } finally {
      proxy.restore();
    }
    assert.ok(await eventually(async () => (await cache.get('kept')) !== undefined), 'reads answer again');
    assert.deepEqual(changes, [false, true]);
  });

  test('Redis cut: reads miss at once, and an eviction that failed is retried once Redis is back', async () => {
    const direct = await instance({ network: 'cut' });
    const cut = await instance({ network: 'cut', url: proxy.url });
    await direct.set('stale', block(5), false);
    proxy.cut();
    try {
      assert.equal(await cut.get('stale'), undefined);
      await cut.evictAfterReorg(4);
      assert.deepEqual(
        plain(await direct.get('stale')),
        plain(block(5)),
        'not evicted while Redis is cut off',
      );
    } finally {
      proxy.restore();
    }
    assert.ok(await eventually(async () => (await direct.get('stale')) === undefined), 'evicted once back');
  });
});
