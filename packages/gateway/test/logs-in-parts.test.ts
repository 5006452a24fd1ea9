// eth_getLogs over far more blocks than an upstream takes at once: the gateway splits the range,
// learns each upstream's own limit from its refusals, joins the parts in block order and charges
// by the blocks. A real anvil holds a few thousand blocks with logs spread over them; the second
// upstream is the same anvil behind a proxy that refuses ranges wider than 5 blocks the way geth
// and the providers word it (anvil itself has no range limit to hit).
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { type Anvil, type EvmSeed, PorticoDemo, seedEvmChain, startAnvil } from '@portico/devchain';
import { encodeFunctionData } from 'viem';
import { type Gateway, parseConfig, startGateway } from '../src/index.ts';
import { closedPort, postOnly, remaining, rpc } from './harness.ts';

const PASSTHROUGH = 80;
const GATEWAY_RANGE = 20;
const PROXY_RANGE = 5;

async function direct(url: string, method: string, params: unknown[] = []) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await response.json()) as { result?: unknown; error?: { message: string } };
  assert.equal(body.error, undefined, body.error?.message);
  return body.result;
}

/** Forwards to anvil, but refuses eth_getLogs over more than `limit` blocks (counted). */
async function startNarrowProxy(target: string, limit: number) {
  const state = { refused: 0, served: 0 };
  const server: Server = createServer(
    postOnly((request, response) => {
      let body = '';
      request.on('data', (chunk) => {
        body += chunk;
      });
      request.on('end', async () => {
        const call = JSON.parse(body) as {
          id: number;
          method: string;
          params: { fromBlock: string; toBlock: string }[];
        };
        if (call.method === 'eth_getLogs') {
          const { fromBlock, toBlock } = call.params[0];
          const blocks = Number(BigInt(toBlock)) - Number(BigInt(fromBlock)) + 1;
          if (blocks > limit) {
            state.refused += 1;
            response.setHeader('content-type', 'application/json');
            response.end(
              JSON.stringify({
                jsonrpc: '2.0',
                id: call.id,
                error: { code: -32005, message: `block range too large: at most ${limit} blocks` },
              }),
            );
            return;
          }
          state.served += 1;
        }
        const upstream = await fetch(target, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        });
        response.setHeader('content-type', 'application/json');
        response.end(await upstream.text());
      });
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  // A gateway still polling this proxy keeps its keep-alive connections busy, so `close` alone
  // could wait for ever (it did, once, on Node 20): its connections are ended too.
  const close = () =>
    new Promise((resolve) => {
      server.close(resolve);
      server.closeAllConnections();
    });
  return { url: `http://127.0.0.1:${port}`, state, close };
}

describe('eth_getLogs over 100 times the upstreams’ range', () => {
  let anvil: Anvil;
  let seed: EvmSeed;
  let proxy: Awaited<ReturnType<typeof startNarrowProxy>>;
  let head: number;
  const gateways: Gateway[] = [];

  const start = async (network: Record<string, unknown>) => {
    const started = await startGateway(
      parseConfig({
        port: 0,
        logLevel: 'silent',
        networks: [
          {
            name: 'local',
            chainId: 'eip155:31337',
            upstreams: [anvil.url, proxy.url],
            headPollMs: 100,
            cache: false,
            maxLogsBlockRange: GATEWAY_RANGE,
            ...network,
          },
        ],
      }),
    );
    gateways.push(started);
    const { key } = await started.keys.create({ name: 'logs', dailyCredits: 10_000_000 });
    return `${started.networks[0].baseUrl}/v3/${key}`;
  };

  before(async () => {
    anvil = await startAnvil();
    seed = await seedEvmChain(anvil.url);
    await direct(anvil.url, 'evm_setAutomine', [true]);
    // 120 transactions emitting Stored, 3 at a time in every 8th round, with 3 to 33 empty blocks
    // after each: about 2,200 blocks, logs in some of them.
    for (let i = 0; i < 120; i++) {
      const many = i % 8 === 0;
      if (many) await direct(anvil.url, 'evm_setAutomine', [false]);
      for (let j = 0; j < (many ? 3 : 1); j++) {
        await direct(anvil.url, 'eth_sendTransaction', [
          {
            from: seed.accounts[j],
            to: seed.demoContract,
            data: encodeFunctionData({
              abi: PorticoDemo.abi,
              functionName: 'store',
              args: [BigInt(i * 10 + j)],
            }),
          },
        ]);
      }
      if (many) {
        await direct(anvil.url, 'evm_mine');
        await direct(anvil.url, 'evm_setAutomine', [true]);
      }
      await direct(anvil.url, 'anvil_mine', [`0x${(((i * 7) % 31) + 3).toString(16)}`]);
    }
    head = Number(BigInt((await direct(anvil.url, 'eth_blockNumber')) as string));
    assert.ok(head + 1 >= 100 * GATEWAY_RANGE, `${head + 1} blocks`);
    proxy = await startNarrowProxy(anvil.url, PROXY_RANGE);
  });
  after(async () => {
    for (const g of gateways) await g.close();
    await proxy?.close();
    await anvil?.stop();
  });

  test('the whole range equals anvil’s own answer, charged per started 1,000 blocks', async () => {
    const url = await start({});
    const filter = { fromBlock: '0x0', toBlock: `0x${head.toString(16)}`, address: seed.demoContract };
    const expected = (await direct(anvil.url, 'eth_getLogs', [filter])) as unknown[];
    assert.ok(expected.length >= 140, `${expected.length} logs`);
    const before = remaining(await rpc(url, 'eth_chainId')) as number;
    const reply = await rpc(url, 'eth_getLogs', [filter]);
    assert.equal(reply.body.error, undefined, reply.body.error?.message);
    assert.deepEqual(reply.body.result, expected);
    const units = Math.ceil((head + 1) / 1000);
    assert.equal(remaining(reply), before - PASSTHROUGH * units, `${units} started thousands of blocks`);

    // Without an address: every log of the chain, the seed's included; tags as bounds.
    const all = await rpc(url, 'eth_getLogs', [{ fromBlock: 'earliest', toBlock: 'latest' }]);
    assert.deepEqual(
      all.body.result,
      await direct(anvil.url, 'eth_getLogs', [{ fromBlock: '0x0', toBlock: `0x${head.toString(16)}` }]),
    );
  });

  test('an upstream that refuses a range is asked for less from then on, remembered', async () => {
    assert.ok(proxy.state.refused > 0, 'the narrow upstream refused the gateway’s first parts');
    assert.ok(proxy.state.served > 0, 'and then served smaller ones');
    const refused = proxy.state.refused;
    const url = gateways[0] ? `${gateways[0].networks[0].baseUrl}` : '';
    assert.ok(url);
    const { key } = await gateways[0].keys.create({ name: 'again' });
    const reply = await rpc(`${url}/v3/${key}`, 'eth_getLogs', [
      { fromBlock: '0x1', toBlock: `0x${(head - 3).toString(16)}`, address: seed.demoContract },
    ]);
    assert.deepEqual(
      reply.body.result,
      await direct(anvil.url, 'eth_getLogs', [
        { fromBlock: '0x1', toBlock: `0x${(head - 3).toString(16)}`, address: seed.demoContract },
      ]),
    );
    assert.equal(proxy.state.refused, refused, 'no range refused a second time');
  });

  test('finalized parts are cached: the same logs again ask no upstream', async () => {
    const only = await startNarrowProxy(anvil.url, PROXY_RANGE);
    try {
      const url = await start({ upstreams: [only.url], cache: {} });
      const base = gateways.at(-1)!.url;
      // The first head poll also reads the finalized block: wait for it.
      const deadline = Date.now() + 10_000;
      for (;;) {
        const report = (await (await fetch(`${base}/readyz`)).json()) as {
          networks: Record<string, { upstreams: { head: number }[] }>;
        };
        if (report.networks.local.upstreams[0].head >= 0 || Date.now() > deadline) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      // anvil finalizes blocks two epochs (64 blocks) behind its head.
      const filter = {
        fromBlock: '0x10',
        toBlock: `0x${(head - 100).toString(16)}`,
        address: seed.demoContract,
      };
      const first = await rpc(url, 'eth_getLogs', [filter]);
      assert.deepEqual(first.body.result, await direct(anvil.url, 'eth_getLogs', [filter]));
      const asked = only.state.served + only.state.refused;
      assert.ok(asked > 100 / PROXY_RANGE, `${asked} parts`);
      const second = await rpc(url, 'eth_getLogs', [filter]);
      assert.deepEqual(second.body.result, first.body.result);
      assert.equal(only.state.served + only.state.refused, asked, 'no part was asked again');
    } finally {
      await only.close();
    }
  });

  test('an upstream that cannot be reached: its parts go to the other, the answer is whole', async () => {
    const url = await start({ upstreams: [`http://127.0.0.1:${await closedPort()}`, anvil.url] });
    const filter = { fromBlock: '0x0', toBlock: `0x${head.toString(16)}`, address: seed.demoContract };
    const reply = await rpc(url, 'eth_getLogs', [filter]);
    assert.equal(reply.body.error, undefined, reply.body.error?.message);
    assert.deepEqual(reply.body.result, await direct(anvil.url, 'eth_getLogs', [filter]));
  });

  test('an answer above maxResponseBytes is refused naming the cap, and costs nothing', async () => {
    const url = await start({ maxResponseBytes: 4096, maxLogsBlockRange: 4 });
    const before = remaining(await rpc(url, 'eth_chainId')) as number;
    const reply = await rpc(url, 'eth_getLogs', [{ fromBlock: '0x0', toBlock: `0x${head.toString(16)}` }]);
    assert.equal(reply.body.error?.code, -32005);
    assert.match(reply.body.error?.message ?? '', /larger than maxResponseBytes \(4096 bytes\)/);
    assert.equal(
      remaining(await rpc(url, 'eth_chainId')),
      before - PASSTHROUGH,
      'only the second eth_chainId was charged',
    );
  });

  test('a range above maxLogsBlockRangeTotal is -32602 naming it, and costs nothing', async () => {
    const url = await start({ maxLogsBlockRangeTotal: 1000 });
    const before = remaining(await rpc(url, 'eth_chainId')) as number;
    const reply = await rpc(url, 'eth_getLogs', [{ fromBlock: '0x0', toBlock: '0x3e8' }]);
    assert.equal(reply.body.error?.code, -32602);
    assert.match(
      reply.body.error?.message ?? '',
      /1001 blocks \(0 to 1000\), at most 1000 per request \(maxLogsBlockRangeTotal\)/,
    );
    const within = await rpc(url, 'eth_getLogs', [{ fromBlock: '0x0', toBlock: '0x3e7' }]);
    assert.equal(within.body.error, undefined);
    assert.equal(remaining(within), before - PASSTHROUGH, 'the refusal was free; 1,000 blocks cost one unit');
  });
});
