import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { serviceUrl } from '@portico/testkit';
import type { Redis } from 'ioredis';
import { RedisCreditLedger } from '../src/credits/redis-credit-ledger.ts';
import { RedisRateLimiter } from '../src/credits/redis-rate-limiter.ts';
import { GatewayError } from '../src/rpc/errors.ts';
import { createRedisClient, RedisHealth, whenRedisReady } from '../src/stores/redis.ts';
import { dropPrefix, eventually, freshPrefix, startTcpProxy, type TcpProxy } from './shared-services.ts';

const redisService = serviceUrl('REDIS_URL');
// Noon of today (UTC): the counters expire after their day, so a day in the past would vanish at once.
const TODAY = new Date();
const NOON = Date.UTC(TODAY.getUTCFullYear(), TODAY.getUTCMonth(), TODAY.getUTCDate(), 12, 0, 0, 250);
const DAY = new Date(NOON).toISOString().slice(0, 10);
const MIDNIGHT_AFTER = NOON + 12 * 3600_000 - 250;

describe('shared Redis metering', { skip: redisService.skip }, () => {
  const prefix = freshPrefix();
  const clients: Redis[] = [];
  let proxy: TcpProxy;

  const connect = async (url = redisService.url!) => {
    const client = createRedisClient(url, { maxReconnectDelayMs: 100 });
    clients.push(client);
    assert.ok(await whenRedisReady(client, 5000), `Redis at ${url} must be reachable`);
    return client;
  };

  before(async () => {
    proxy = await startTcpProxy(redisService.url!);
  });

  after(async () => {
    for (const client of clients) client.disconnect();
    await proxy?.close();
    await dropPrefix(redisService.url!, prefix);
  });

  test('instances racing on one key never spend more than its daily limit', async () => {
    const ledgers = await Promise.all(
      [1, 2, 3].map(async () => new RedisCreditLedger(await connect(), { keyPrefix: prefix })),
    );
    const results = await Promise.all(
      Array.from({ length: 300 }, (_, i) => ledgers[i % 3].debit('key_race', 1000, 7, NOON)),
    );
    const ok = results.filter((r) => r.ok);
    assert.equal(ok.length, Math.floor(1000 / 7));
    assert.equal(await ledgers[0].spent('key_race', NOON), 994);
    const refused = results.find((r) => !r.ok);
    assert.deepEqual(refused, { ok: false, remaining: 6, resetsAt: new Date(MIDNIGHT_AFTER) });
  });

  test('balances are per UTC day, expire after their day, and refunds never go below zero', async () => {
    const client = await connect();
    const ledger = new RedisCreditLedger(client, { keyPrefix: prefix });
    assert.deepEqual(await ledger.debit('key_day', 100, 60, NOON), { ok: true, remaining: 40 });
    assert.equal((await ledger.debit('key_day', 100, 60, NOON)).ok, false);
    assert.deepEqual(await ledger.debit('key_day', 100, 60, NOON + 86_400_000), { ok: true, remaining: 40 });
    await ledger.refund('key_day', 25, NOON);
    assert.equal(await ledger.spent('key_day', NOON), 35);
    await ledger.refund('key_day', 500, NOON);
    assert.equal(await ledger.spent('key_day', NOON), 0);
    await ledger.refund('key_never', 5, NOON);
    assert.equal(await ledger.spent('key_never', NOON), 0);
    const expiresAt = await client.expiretime(`${prefix}credits:key_day:${DAY}`);
    assert.equal(expiresAt, MIDNIGHT_AFTER / 1000 + 3600);
  });

  test('per-second windows are shared by instances and reset each second', async () => {
    const limiters = await Promise.all(
      [1, 2].map(async () => new RedisRateLimiter(await connect(), { keyPrefix: prefix })),
    );
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => limiters[i % 2].take('key_rate', 10, 95, NOON)),
    );
    assert.equal(results.filter((r) => r.ok).length, 9);
    assert.deepEqual(
      results.find((r) => !r.ok),
      { ok: false, current: 90, retryAfterMs: 750 },
    );
    assert.deepEqual(await limiters[1].take('key_rate', 10, 95, NOON + 1000), { ok: true });
  });

  test('fail closed: Redis unreachable refuses with storeUnavailable, and service resumes without a restart', async () => {
    const transitions: boolean[] = [];
    const health = new RedisHealth((up) => transitions.push(up));
    const client = await connect(proxy.url);
    const ledger = new RedisCreditLedger(client, { keyPrefix: prefix, health });
    const limiter = new RedisRateLimiter(client, { keyPrefix: prefix, health });
    assert.equal((await ledger.debit('key_closed', 100, 10, NOON)).ok, true);
    proxy.cut();
    const refused = await ledger.debit('key_closed', 100, 10, NOON).catch((error: unknown) => error);
    assert.ok(refused instanceof GatewayError);
    assert.equal(refused.kind, 'storeUnavailable');
    assert.equal(refused.httpStatus, 503);
    await assert.rejects(limiter.take('key_closed', 1, 5, NOON), GatewayError);
    await ledger.refund('key_closed', 10, NOON); // never throws
    proxy.restore();
    assert.ok(
      await eventually(
        async () => (await ledger.debit('key_closed', 100, 10, NOON).catch(() => undefined))?.ok === true,
      ),
      'debits work again once Redis is reachable',
    );
    assert.equal(await ledger.spent('key_closed', NOON), 20);
    assert.deepEqual(transitions, [false, true]);
  });

  test('fail open: Redis unreachable meters in memory from the last known spending, then settles into Redis', async () => {
    const client = await connect(proxy.url);
    const ledger = new RedisCreditLedger(client, { keyPrefix: prefix, failure: 'open' });
    const limiter = new RedisRateLimiter(client, { keyPrefix: prefix, failure: 'open' });
    assert.deepEqual(await ledger.debit('key_open', 100, 30, NOON), { ok: true, remaining: 70 });
    proxy.cut();
    assert.deepEqual(await ledger.debit('key_open', 100, 30, NOON), { ok: true, remaining: 40 });
    assert.deepEqual(await ledger.debit('key_open', 100, 30, NOON), { ok: true, remaining: 10 });
    assert.equal((await ledger.debit('key_open', 100, 30, NOON)).ok, false, 'the limit holds locally too');
    assert.equal(await ledger.spent('key_open', NOON), 90);
    assert.deepEqual(await limiter.take('key_open', 3, 5, NOON), { ok: true });
    assert.equal((await limiter.take('key_open', 3, 5, NOON)).ok, false, 'the cap holds per instance');
    assert.equal(ledger.unsettledCredits, 60);
    proxy.restore();
    assert.ok(
      await eventually(async () => {
        await ledger.debit('key_open', 100, 0, NOON);
        return ledger.unsettledCredits === 0;
      }),
      'the credits spent meanwhile reach Redis',
    );
    assert.equal(Number(await (await connect()).get(`${prefix}credits:key_open:${DAY}`)), 90);
  });
});
