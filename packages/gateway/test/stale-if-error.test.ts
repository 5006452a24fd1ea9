// Stale-if-error: when no upstream can answer, a request whose answer the cache holds as final data
// is answered from the cache with X-Cache: STALE (and charged like a hit), in memory and in Redis.
// Data that may still change is never served that way. Real anvil behind a TCP proxy that cuts it
// off; real PostgreSQL and Redis for the shared cache.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Anvil, startAnvil } from '@portico/devchain';
import { type Gateway, JsonResult, MemoryResponseCache, parseConfig, startGateway } from '@portico/gateway';
import { serviceUrl } from '@portico/testkit';
import { post, remaining, rpc } from './harness.ts';
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
const BLOCK_COST = 80;

const hex = (n: number) => `0x${n.toString(16)}`;

async function mine(anvil: Anvil, blocks: number) {
  await rpc(anvil.url, 'anvil_mine', [hex(blocks)]);
}

async function blockNumber(anvil: Anvil, tag: 'latest' | 'finalized'): Promise<number> {
  const reply = await rpc(anvil.url, 'eth_getBlockByNumber', [tag, false]);
  return Number((reply.body.result as { number: string }).number);
}

/** The finalized block the gateway has seen, from its metrics. */
async function gatewayFinalized(gateway: Gateway): Promise<number> {
  const text = await (await fetch(`${gateway.url}/metrics`)).text();
  return Number(/portico_network_finalized_block\{network="local"\} (-?\d+)/.exec(text)?.[1] ?? -1);
}

/**
 * The scenario for one cache: blocks fetched while above the finalized block, then finalized, then
 * the upstream cut off. `unfinalizedTtlMs: 0` makes such an entry expire at once, so what answers
 * later is the copy kept for stale-if-error, whatever the test's speed.
 */
type Setup = {
  config: Record<string, unknown>;
  cache: Record<string, unknown>;
  cleanup: () => Promise<void>;
};

function scenario(name: string, setup: () => Promise<Setup>) {
  describe(name, () => {
    let anvil: Anvil;
    let proxy: TcpProxy;
    let gateway: Gateway;
    let cleanup = async () => {};
    let url: string;
    const getBlock = (block: number) =>
      post(url, { jsonrpc: '2.0', id: 7, method: 'eth_getBlockByNumber', params: [hex(block), false] });

    before(async () => {
      anvil = await startAnvil({ extraArgs: ['--slots-in-an-epoch', '1'] });
      await mine(anvil, 5);
      proxy = await startTcpProxy(anvil.url);
      const extra = await setup();
      cleanup = extra.cleanup;
      gateway = await startGateway(
        parseConfig({
          port: 0,
          logLevel: 'silent',
          ...extra.config,
          networks: [
            {
              name: 'local',
              chainId: 'eip155:31337',
              upstreams: [proxy.url],
              headPollMs: 100,
              cache: { ...extra.cache, unfinalizedTtlMs: 0 },
            },
          ],
        }),
      );
      const { key } = await gateway.keys.create({ name: 'stale' });
      url = `${gateway.networks[0].baseUrl}/v3/${key}`;
    });

    after(async () => {
      await gateway?.close();
      await proxy?.close();
      await cleanup();
      const keepAlive = setInterval(() => {}, 1000); // anvil's child is unref'd
      await anvil?.stop();
      clearInterval(keepAlive);
    });

    test('a block cached before it was finalized answers with X-Cache: STALE once the upstream is cut off, and is charged', async () => {
      const early = await blockNumber(anvil, 'latest'); // above the finalized block when fetched
      assert.ok(early > (await blockNumber(anvil, 'finalized')));
      const fetched = await getBlock(early);
      assert.equal(fetched.headers.get('x-cache'), 'MISS');
      const alwaysFinal = await getBlock(0); // at or below finalized when fetched: held as final
      assert.equal(alwaysFinal.status, 200);

      await mine(anvil, 5);
      assert.ok((await blockNumber(anvil, 'finalized')) >= early);
      assert.ok(await eventually(async () => (await gatewayFinalized(gateway)) >= early), 'finalized seen');
      const recent = await blockNumber(anvil, 'latest'); // still above finalized: may change
      assert.equal((await getBlock(recent)).status, 200);

      proxy.cut();
      const stale = await getBlock(early);
      assert.equal(stale.status, 200, stale.text);
      assert.equal(stale.headers.get('x-cache'), 'STALE');
      assert.deepEqual(stale.body, fetched.body, 'the same block, the same id');
      // Charged like a hit: block 0, the recent block and this answer since `fetched`.
      assert.equal(remaining(stale), (remaining(fetched) ?? 0) - 3 * BLOCK_COST);

      const held = await getBlock(0);
      assert.equal(held.status, 200);
      assert.match(held.headers.get('x-cache') ?? '', /^(HIT|STALE)$/);

      const unfinal = await getBlock(recent);
      assert.equal(unfinal.status, 502, 'data above the finalized block is never served stale');
      assert.equal(unfinal.headers.get('x-cache'), null);
      assert.equal((await getBlock(early + 1)).status, 502, 'nothing cached: nothing to serve');
      const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
      assert.match(metrics, /portico_cache_stale_total\{network="local"\} 1\b/);
    });
  });
}

test('the memory cache keeps an expired unfinalized entry only for stale-if-error, until its block is final, and a reorg drops it', () => {
  const cache = new MemoryResponseCache(100, 0);
  const entry = { reply: { ok: true as const, result: JsonResult.ofValue({ number: '0x7' }) }, block: 7 };
  cache.set('block 7', entry, false);
  assert.equal(cache.get('block 7'), undefined, 'expired: a miss');
  assert.equal(cache.getStale('block 7', 6), undefined, 'not final at 6');
  const stale = cache.getStale('block 7', 7)?.reply;
  assert.deepEqual(stale?.ok && stale.result.value, { number: '0x7' });
  cache.set('no block', { reply: { ok: true, result: JsonResult.ofValue('0x1') } }, false);
  assert.equal(cache.getStale('no block', 100), undefined);
  cache.evictAfterReorg(7);
  assert.equal(cache.getStale('block 7', 7), undefined);
});

scenario('stale-if-error, memory cache', async () => ({
  config: {},
  cache: { store: 'memory' },
  cleanup: async () => {},
}));

describe('shared stores', { skip: postgres.skip || redis.skip }, () => {
  scenario('stale-if-error, Redis cache', async () => {
    const schema = await freshSchema(postgres.url!);
    const prefix = freshPrefix();
    return {
      config: {
        stores: { kind: 'shared', databaseUrl: schema.url, redis: redis.url, redisKeyPrefix: prefix },
      },
      cache: { store: 'redis' },
      cleanup: async () => {
        await schema.drop();
        await dropPrefix(redis.url!, prefix);
      },
    };
  });
});
