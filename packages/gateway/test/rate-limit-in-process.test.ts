// The per-second cap of a single `portico dev` / `portico start` process (the in-memory limiter):
// HTTP 429 with Infura's data, nothing charged for a refusal. The clock is frozen inside one
// second, so the counts are exact however fast the machine runs.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Anvil, startAnvil } from '@portico/devchain';
import { parseConfig } from '../src/config/config.ts';
import { MemoryRateLimiter } from '../src/credits/rate-limiter.ts';
import { type Gateway, startGateway } from '../src/gateway.ts';
import { openEmbeddedStores } from '../src/open-stores.ts';
import { post, type RpcReply } from './harness.ts';

const COST = 10; // passthroughCost of the test network

describe('the in-process per-second cap', () => {
  let anvil: Anvil;
  let gateway: Gateway;
  const frozen = 1_700_000_000_300;

  before(async () => {
    anvil = await startAnvil();
    const stores = { ...openEmbeddedStores(undefined), rateLimiter: new MemoryRateLimiter(() => frozen) };
    gateway = await startGateway(
      parseConfig({
        port: 0,
        logLevel: 'silent',
        networks: [{ name: 'local', chainId: 'eip155:31337', upstreams: [anvil.url], passthroughCost: COST }],
      }),
      { stores },
    );
  });

  after(async () => {
    await gateway?.close();
    const keepAlive = setInterval(() => {}, 1000); // anvil's child is unref'd: wait for its exit
    await anvil?.stop();
    clearInterval(keepAlive);
  });

  test('concurrent calls beyond the cap get HTTP 429, -32005 with current_rps, allowed_rps, backoff_seconds; only served calls are charged', async () => {
    const { key, record } = await gateway.keys.create({ name: 'capped', creditsPerSecond: 5 * COST + 5 });
    const body = { jsonrpc: '2.0', id: 7, method: 'eth_blockNumber', params: [] };
    const replies = await Promise.all(
      Array.from(
        { length: 12 },
        () => post(`${gateway.networks[0].baseUrl}/v3/${key}`, body) as Promise<RpcReply>,
      ),
    );
    const served = replies.filter((r) => r.status === 200);
    const refused = replies.filter((r) => r.status === 429);
    assert.equal(served.length, 5);
    assert.equal(refused.length, 7);
    for (const reply of refused) {
      assert.equal(reply.body.id, 7);
      assert.equal(reply.body.error?.code, -32005);
      assert.deepEqual(reply.body.error?.data, {
        current_rps: 5 * COST,
        allowed_rps: 5 * COST + 5,
        backoff_seconds: 0.7,
      });
      assert.match(reply.body.error?.message ?? '', /per-second credit limit reached/);
    }
    assert.equal(await gateway.ledger.spent(record.id), 5 * COST);
  });
});
