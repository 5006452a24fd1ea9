// WebSocket notifications paid from the shared Redis ledger (Lua debit): the daily cap holds
// notification by notification, and with Redis cut off (redisFailure: closed) the connection is
// closed with 1011 instead of being served unmetered. Needs REDIS_URL.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import { type Anvil, startAnvil } from '@portico/devchain';
import { serviceUrl } from '@portico/testkit';
import type { Redis } from 'ioredis';
import WebSocket from 'ws';
import {
  createRedisClient,
  type Gateway,
  openEmbeddedStores,
  parseConfig,
  RedisCreditLedger,
  startGateway,
  utcDay,
} from '../src/index.ts';
import { whenRedisReady } from '../src/stores/redis.ts';
import { rpc } from './harness.ts';
import { dropPrefix, freshPrefix, startTcpProxy, type TcpProxy } from './shared-services.ts';

const redisService = serviceUrl('REDIS_URL');

describe('WebSocket notifications on the Redis ledger', { skip: redisService.skip }, () => {
  const prefix = freshPrefix();
  // The balances are per UTC day: the clock is frozen so the test never straddles midnight.
  const frozen = Date.now();
  let anvil: Anvil;
  let proxy: TcpProxy;
  let redis: Redis;
  let gateway: Gateway;
  let closeStores: () => Promise<void>;

  before(async () => {
    anvil = await startAnvil();
    proxy = await startTcpProxy(redisService.url!);
    redis = createRedisClient(proxy.url, { maxReconnectDelayMs: 100 });
    assert.ok(await whenRedisReady(redis, 5000), `Redis at ${redisService.url} must be reachable`);
    const embedded = openEmbeddedStores(undefined);
    closeStores = embedded.close;
    const ledger = new RedisCreditLedger(redis, {
      keyPrefix: prefix,
      failure: 'closed',
      clock: () => frozen,
    });
    gateway = await startGateway(
      parseConfig({
        port: 0,
        logLevel: 'silent',
        networks: [{ name: 'local', chainId: 'eip155:31337', upstreams: [anvil.url] }],
      }),
      { stores: { ...embedded, ledger } },
    );
  });

  after(async () => {
    await gateway?.close();
    await closeStores?.();
    redis?.disconnect();
    await proxy?.close();
    await dropPrefix(redisService.url!, prefix);
    // anvil's child is unref'd: a timer keeps the event loop alive until it has exited.
    const keepAlive = setInterval(() => {}, 1000);
    await anvil?.stop();
    clearInterval(keepAlive);
  });

  /** A subscribed newHeads client on a fresh key; `heads` fills as notifications arrive. */
  async function subscribed(dailyCredits: number) {
    const { key, record } = await gateway.keys.create({ name: 'redis-ws', dailyCredits });
    const socket = new WebSocket(`${gateway.networks[0].baseUrl.replace(/^http/, 'ws')}/ws/v3/${key}`);
    const heads: unknown[] = [];
    let answered!: (result: unknown) => void;
    let sawHead!: () => void;
    const answer = new Promise((resolve) => {
      answered = resolve;
    });
    const firstHead = new Promise<void>((resolve) => {
      sawHead = resolve;
    });
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as { id?: number; method?: string; result?: unknown };
      if (message.method === 'eth_subscription') {
        heads.push(message);
        sawHead();
      } else if (message.id === 1) answered(message.result);
    });
    const closed = once(socket, 'close') as Promise<[number, Buffer]>;
    await once(socket, 'open');
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] }));
    assert.equal(typeof (await answer), 'string');
    return { id: record.id, socket, heads, firstHead, closed };
  }

  const mine = () => rpc(anvil.url, 'evm_mine');

  test('the daily cap holds in Redis: eth_subscribe and 3 heads are paid, the 4th closes with 1008', {
    timeout: 30_000,
  }, async () => {
    const client = await subscribed(80 + 3 * 50);
    try {
      for (let i = 0; i < 5; i++) await mine();
      const [code, reason] = await client.closed;
      assert.equal(code, 1008);
      assert.match(String(reason), /^daily credits exhausted: .* they reset at 00:00 UTC$/);
      assert.equal(client.heads.length, 3);
      const counter = await redis.get(`${prefix}credits:${client.id}:${utcDay(frozen)}`);
      assert.equal(Number(counter), 230);
    } finally {
      client.socket.terminate();
    }
  });

  test('with Redis cut off and redisFailure: closed, the connection is closed with 1011 and nothing is sent unmetered', {
    timeout: 30_000,
  }, async () => {
    const client = await subscribed(100_000);
    try {
      await mine();
      await client.firstHead;
      assert.equal(client.heads.length, 1);
      proxy.cut();
      await mine();
      const [code, reason] = await client.closed;
      assert.equal(code, 1011);
      assert.equal(String(reason), 'metering is unavailable; reconnect and subscribe again shortly');
      assert.equal(client.heads.length, 1);
    } finally {
      proxy.restore();
      client.socket.terminate();
    }
  });
});
