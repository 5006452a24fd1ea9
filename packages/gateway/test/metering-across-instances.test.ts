import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { serviceUrl } from '@portico/testkit';
import fc from 'fast-check';
import { Redis } from 'ioredis';
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

  test('the debits of one event-loop turn through one instance go out as one Redis call, each decided in order', async () => {
    const client = await connect();
    const ledger = new RedisCreditLedger(client, { keyPrefix: prefix });
    await ledger.debit('key_warm', 100, 1, NOON); // Redis learns the script (EVALSHA, then EVAL once)
    // What Redis itself was sent, from a MONITOR connection; a marker sent after the debits on the
    // same connection tells when every command before it has been seen.
    const monitor = await new Redis(redisService.url!, { lazyConnect: true }).monitor(); // its own connection
    const counter = `${prefix}credits:key_turn:${DAY}`;
    const marker = `${prefix}marker`;
    const calls: string[][] = [];
    const seen = new Promise<void>((resolve) =>
      monitor.on('monitor', (_time: string, args: string[], source: string) => {
        if (source === 'lua') return; // the commands the script runs inside Redis
        if (args.includes(counter)) calls.push(args);
        if (args.includes(marker)) resolve();
      }),
    );
    try {
      const costs = Array.from({ length: 100 }, (_, i) => 7 + (i % 3));
      const results = await Promise.all(costs.map((cost) => ledger.debit('key_turn', 500, cost, NOON)));
      await client.exists(marker);
      await seen;
      assert.equal(calls.length, 1, `Redis calls naming the counter: ${calls.map((c) => c[0]).join(', ')}`);
      assert.equal(calls[0][0].toLowerCase(), 'evalsha');
      // In order: each debit saw the ones before it; the first refusal is where the limit was reached.
      let spent = 0;
      for (const [i, result] of results.entries()) {
        if (spent + costs[i] <= 500) {
          spent += costs[i];
          assert.deepEqual(result, { ok: true, remaining: 500 - spent }, `debit ${i}`);
        } else
          assert.deepEqual(result, { ok: false, remaining: 500 - spent, resetsAt: new Date(MIDNIGHT_AFTER) });
      }
      assert.equal(await ledger.spent('key_turn', NOON), spent);
    } finally {
      monitor.disconnect();
    }
  });

  test('a turn decides runs of one cost, over several keys, exactly as one debit after another', async () => {
    const ledger = new RedisCreditLedger(await connect(), { keyPrefix: prefix });
    let property = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            key: fc.constantFrom(0, 1),
            cost: fc.constantFrom(0, 1, 2, 3, 7),
            times: fc.integer({ min: 1, max: 6 }),
          }),
          { minLength: 1, maxLength: 12 },
        ),
        fc.integer({ min: 0, max: 60 }),
        fc.integer({ min: 0, max: 80 }),
        async (runs, limit, spentBefore) => {
          const keys = [`key_runs_${property}_a`, `key_runs_${property}_b`];
          property++;
          // Spent before the turn, under a higher limit: at or past this limit, a cost of 0 is refused too.
          if (spentBefore > 0) for (const key of keys) await ledger.debit(key, 1000, spentBefore, NOON);
          const debits = runs.flatMap(({ key, cost, times }) =>
            Array.from({ length: times }, () => ({ key: keys[key], cost })),
          );
          const results = await Promise.all(
            debits.map(({ key, cost }) => ledger.debit(key, limit, cost, NOON)),
          );
          const spent = new Map(keys.map((key) => [key, spentBefore]));
          for (const [i, { key, cost }] of debits.entries()) {
            const before = spent.get(key)!;
            if (before + cost <= limit) {
              spent.set(key, before + cost);
              assert.deepEqual(results[i], { ok: true, remaining: limit - before - cost }, `debit ${i}`);
            } else
              assert.deepEqual(
                results[i],
                { ok: false, remaining: Math.max(0, limit - before), resetsAt: new Date(MIDNIGHT_AFTER) },
                `debit ${i}`,
              );
          }
          for (const key of keys) assert.equal(await ledger.spent(key, NOON), spent.get(key));
        },
      ),
      { numRuns: 100 },
    );
  });

  test('two instances racing on one key in the same turns spend exactly up to its daily limit, never beyond', async () => {
    const ledgers = await Promise.all(
      [1, 2].map(async () => new RedisCreditLedger(await connect(), { keyPrefix: prefix })),
    );
    const costs = Array.from({ length: 400 }, (_, i) => 1 + ((i * 37) % 23));
    const limit = 2500;
    const results = await Promise.all(
      costs.map((cost, i) => ledgers[i % 2].debit('key_two', limit, cost, NOON)),
    );
    const charged = results.reduce((sum, r, i) => sum + (r.ok ? costs[i] : 0), 0);
    assert.equal(await ledgers[1].spent('key_two', NOON), charged);
    assert.ok(charged <= limit);
    // Exact: a debit was refused only when it did not fit any more, and every charge took its own credits.
    for (const [i, result] of results.entries())
      if (!result.ok)
        assert.ok(
          result.remaining < costs[i],
          `debit ${i} of ${costs[i]} refused with ${result.remaining} left`,
        );
    const after = results.flatMap((r) => (r.ok ? [limit - r.remaining] : []));
    assert.equal(new Set(after).size, after.length);
    assert.equal(Math.max(...after), charged);
    assert.ok(
      results.some((r) => !r.ok),
      'the limit was reached',
    );
  });

  test('a cost that is not a count of credits is refused alone: the rest of its turn is debited', async () => {
    const ledger = new RedisCreditLedger(await connect(), { keyPrefix: prefix });
    const [good, bad, alsoGood] = await Promise.allSettled([
      ledger.debit('key_cost', 100, 10, NOON),
      ledger.debit('key_cost', 100, Number.NaN, NOON),
      ledger.debit('key_cost', 100, 10, NOON),
    ]);
    assert.deepEqual(good, { status: 'fulfilled', value: { ok: true, remaining: 90 } });
    assert.equal(bad.status, 'rejected');
    assert.ok((bad as PromiseRejectedResult).reason instanceof RangeError);
    assert.deepEqual(alsoGood, { status: 'fulfilled', value: { ok: true, remaining: 80 } });
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
    const turn = await Promise.allSettled([1, 2, 3].map(() => ledger.debit('key_closed', 100, 10, NOON)));
    assert.ok(
      turn.every((t) => t.status === 'rejected' && (t.reason as GatewayError).kind === 'storeUnavailable'),
      'every debit of a turn is refused',
    );
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
    const turn = await Promise.all([1, 2, 3].map(() => ledger.debit('key_open', 100, 30, NOON)));
    assert.deepEqual(turn.slice(0, 2), [
      { ok: true, remaining: 40 },
      { ok: true, remaining: 10 },
    ]);
    assert.equal(turn[2].ok, false, 'the limit holds locally too, in order within a turn');
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
