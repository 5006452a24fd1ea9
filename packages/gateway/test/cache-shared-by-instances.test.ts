import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { type Anvil, startAnvil } from '@portico/devchain';
import { serviceUrl } from '@portico/testkit';
import { Redis } from 'ioredis';
import pino, { type Logger } from 'pino';
import { createPublicClient, createTestClient, http } from 'viem';
import { foundry } from 'viem/chains';
import { parseConfig } from '../src/config/config.ts';
import { type Gateway, startGateway } from '../src/gateway.ts';
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
const BLOCK_COST = 80; // eth_getBlockByNumber in the spec's credit table

type Reply = {
  status: number;
  cache: string | null;
  remaining: number;
  text: string;
  body: { result?: { hash: string } | string | null; error?: { code: number; message: string } };
};

async function rpc(url: string, method: string, params: unknown[]): Promise<Reply> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const text = await response.text();
  return {
    status: response.status,
    cache: response.headers.get('x-cache'),
    remaining: Number(response.headers.get('x-credits-remaining')),
    text,
    body: JSON.parse(text),
  };
}

const getBlock = (url: string, block: string) => rpc(url, 'eth_getBlockByNumber', [block, false]);
const hashOf = (reply: Reply) => (reply.body.result as { hash?: string } | null)?.hash;
const chainAt = (url: string) => ({
  control: createTestClient({ chain: foundry, mode: 'anvil', transport: http(url) }),
  read: createPublicClient({ chain: foundry, transport: http(url) }),
});

describe('a response cache shared by gateway instances on Redis', {
  skip: postgres.skip || redis.skip,
}, () => {
  let anvil: Anvil;
  let chain: ReturnType<typeof chainAt>['control'];
  let reader: ReturnType<typeof chainAt>['read'];
  let schema: Awaited<ReturnType<typeof freshSchema>>;
  let proxy: TcpProxy;
  let inspect: Redis;
  const prefix = freshPrefix();
  const gateways: Gateway[] = [];

  /** One gateway instance with stores of its own on the shared PostgreSQL and Redis, ready to serve. */
  const instance = async (
    network: Record<string, unknown>,
    options: { redisUrl?: string; logger?: Logger } = {},
  ) => {
    const config = parseConfig({
      port: 0,
      logLevel: 'silent',
      // Polls only: moving tags go to the node as they are, never cached.
      networks: [
        { chainId: 'eip155:31337', upstreams: [anvil.url], headPollMs: 100, headPush: false, ...network },
      ],
      stores: {
        kind: 'shared',
        databaseUrl: schema.url,
        redisUrl: options.redisUrl ?? redis.url,
        redisFailure: 'open',
        redisKeyPrefix: prefix,
      },
    });
    const gateway = await startGateway(config, { logger: options.logger });
    gateways.push(gateway);
    // Ready once the upstream reported its head and finalized block (what makes data final).
    assert.ok(await eventually(async () => (await fetch(`${gateway.url}/readyz`)).status === 200));
    return gateway;
  };

  /** Two instances of one network and a key valid on both (keys live in PostgreSQL). */
  const pair = async (network: Record<string, unknown>, second: Record<string, unknown> = {}) => {
    const a = await instance(network);
    const b = await instance({ ...network, ...second });
    const { key } = await a.keys.create({ name: `cache-${network.name}` });
    return {
      a: `${a.networks[0].baseUrl}/v3/${key}`,
      b: `${b.networks[0].baseUrl}/v3/${key}`,
      gateways: { a, b },
    };
  };

  const redisKeyOf = (network: string, block: string) =>
    `${prefix}cache:${network}:${createHash('sha256').update(`eth_getBlockByNumber:["${block}",false]`).digest('base64url')}`;

  const cachedKeys = async (network: string) => {
    let cursor = '0';
    let count = 0;
    do {
      const [next, keys] = await inspect.scan(cursor, 'MATCH', `${prefix}cache:${network}:*`, 'COUNT', 500);
      cursor = next;
      count += keys.length;
    } while (cursor !== '0');
    return count;
  };

  const head = async () => `0x${(await reader.getBlockNumber({ cacheTime: 0 })).toString(16)}`;

  before(async () => {
    anvil = await startAnvil({ extraArgs: ['--slots-in-an-epoch', '1'] }); // finalized = head - 2
    ({ control: chain, read: reader } = chainAt(anvil.url));
    await chain.mine({ blocks: 5 });
    schema = await freshSchema(postgres.url!);
    proxy = await startTcpProxy(redis.url!);
    inspect = new Redis(redis.url!);
  });

  after(async () => {
    for (const gateway of gateways.reverse()) await gateway.close();
    inspect?.disconnect();
    await proxy?.close();
    await schema?.drop();
    await dropPrefix(redis.url!, prefix);
    // anvil's child process is unref'd; hold a timer until it has exited (as in two-instances-share-stores.test.ts).
    const keepAlive = setInterval(() => {}, 1000);
    await anvil?.stop();
    clearInterval(keepAlive);
  });

  test('a finalized block fetched through one instance is a hit on the other, with the same body, and still charged', async () => {
    const { a, b, gateways } = await pair({ name: 'final' });
    const miss = await getBlock(a, '0x1');
    const hit = await getBlock(b, '0x1');
    assert.equal(miss.cache, 'MISS');
    assert.equal(hit.cache, 'HIT');
    assert.equal(hit.text, miss.text);
    assert.equal(miss.remaining - hit.remaining, BLOCK_COST, 'the hit is charged like the miss');
    const ttl = await inspect.pttl(redisKeyOf('final', '0x1'));
    assert.ok(ttl > 3_600_000, `kept as final data (PTTL ${ttl} ms), not for the unfinalized TTL`);
    const metrics = await (await fetch(`${gateways.b.url}/metrics`)).text();
    assert.match(metrics, /portico_cache_hits_total\{network="final"\} 1/);
    assert.match(metrics, /portico_cache_store_errors_total\{network="final"\} 0/);
  });

  test('unfinalized data is shared until its TTL runs out', async () => {
    const { a, b } = await pair({ name: 'ttl', cache: { unfinalizedTtlMs: 3000 } });
    await chain.mine({ blocks: 1 });
    const height = await head();
    assert.equal((await getBlock(a, height)).cache, 'MISS');
    assert.equal((await getBlock(b, height)).cache, 'HIT');
    const ttl = await inspect.pttl(redisKeyOf('ttl', height));
    assert.ok(ttl > 0 && ttl <= 3000, `PTTL ${ttl} ms`);
    assert.ok(
      await eventually(async () => (await getBlock(b, height)).cache === 'MISS', 100, 100),
      'a miss again once the TTL has run out',
    );
  });

  test('a reorg seen by one instance evicts what the other cached; neither serves the stale block', async () => {
    // B polls its head once at start and then only for blocks beyond it: it does not see the
    // reorg itself, and the unfinalized TTL is a minute, so only A's eviction can refresh B.
    const { a, b } = await pair(
      { name: 'reorg', cache: { unfinalizedTtlMs: 60_000 } },
      { headPollMs: 600_000 },
    );
    const snapshot = await chain.snapshot();
    await chain.mine({ blocks: 1 });
    const height = await head();
    const stale = await getBlock(a, height);
    assert.equal(stale.cache, 'MISS');
    const cached = await getBlock(b, height);
    assert.equal(cached.cache, 'HIT');
    assert.equal(hashOf(cached), hashOf(stale));

    await chain.revert({ id: snapshot });
    await chain.setNextBlockTimestamp({ timestamp: BigInt(Math.floor(Date.now() / 1000) + 1000) });
    await chain.mine({ blocks: 1 });
    const fresh = await reader.getBlock({ blockNumber: BigInt(height) });
    assert.notEqual(fresh.hash, hashOf(stale), 'anvil mined a different block at the same height');

    assert.ok(
      await eventually(async () => hashOf(await getBlock(b, height)) === fresh.hash),
      'B serves the new block once A has evicted',
    );
    assert.equal(hashOf(await getBlock(a, height)), fresh.hash);
    const again = await getBlock(b, height);
    assert.equal(again.cache, 'HIT');
    assert.equal(hashOf(again), fresh.hash);
  });

  test('errors and the moving tags are never cached', async () => {
    const { a, b } = await pair({ name: 'bypass' });
    for (const tag of ['latest', 'pending', 'safe', 'finalized']) {
      assert.equal((await getBlock(a, tag)).cache, 'BYPASS', tag);
      assert.equal((await getBlock(b, tag)).cache, 'BYPASS', tag);
    }
    const reverting = { data: '0x60006000fd' }; // init code that reverts with empty data
    const first = await rpc(a, 'eth_call', [reverting, '0x1']);
    const second = await rpc(b, 'eth_call', [reverting, '0x1']);
    assert.equal(first.body.error?.code, 3);
    assert.equal(second.body.error?.code, 3);
    assert.equal(second.cache, 'MISS', 'the error was not stored');
    assert.equal(await cachedKeys('bypass'), 0);
  });

  test('Redis cut off mid-run: requests are answered as misses, one warning is logged, caching resumes when Redis is back', async () => {
    const lines: { level: number; msg: string }[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const gateway = await instance({ name: 'cut' }, { redisUrl: proxy.url, logger });
    const { key } = await gateway.keys.create({ name: 'cut' });
    const url = `${gateway.networks[0].baseUrl}/v3/${key}`;
    const before = await getBlock(url, '0x2');
    assert.equal(before.cache, 'MISS');
    assert.equal((await getBlock(url, '0x2')).cache, 'HIT');

    proxy.cut();
    try {
      for (const block of ['0x2', '0x2', '0x3', '0x3']) {
        const reply = await getBlock(url, block);
        assert.equal(reply.status, 200);
        assert.equal(reply.cache, 'MISS', `block ${block} while Redis is cut off`);
        if (block === '0x2') assert.equal(reply.text, before.text);
      }
    } finally {
      proxy.restore();
    }
    const warnings = lines.filter((l) => l.msg.startsWith('redis is unreachable: the response cache'));
    assert.equal(warnings.length, 1, 'one warning for the outage, not one per request');
    assert.ok(
      await eventually(async () => (await getBlock(url, '0x4')).cache === 'HIT'),
      'cached and served from Redis again',
    );
    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    const errors = Number(/portico_cache_store_errors_total\{network="cut"\} (\d+)/.exec(metrics)?.[1]);
    assert.ok(errors >= 1, `store errors counted (${errors})`);
  });
});
