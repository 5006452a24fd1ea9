import assert from 'node:assert/strict';
import { createServer, type Server, Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { type Anvil, startAnvil } from '@portico/devchain';
import { createPublicClient, createTestClient, http } from 'viem';
import { foundry } from 'viem/chains';
import { type Gateway, parseConfig, startGateway } from '../src/index.ts';

/** A TCP proxy to an upstream that a test can cut and restore, like a node going down and back. */
async function startCuttableProxy(targetPort: number) {
  let server: Server | undefined;
  const sockets = new Set<Socket>();
  let port = 0;
  const open = () =>
    new Promise<void>((resolve) => {
      server = createServer((client) => {
        const upstream = new Socket();
        upstream.connect(targetPort, '127.0.0.1');
        client.pipe(upstream).pipe(client);
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on('close', () => sockets.delete(s));
          s.on('error', () => s.destroy());
        }
      });
      server.listen(port, '127.0.0.1', () => {
        port = (server!.address() as { port: number }).port;
        resolve();
      });
    });
  const cut = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server?.close(() => resolve());
    });
  await open();
  return { url: () => `http://127.0.0.1:${port}`, cut, restore: open };
}

async function rpc(url: string, method: string, params: unknown[] = []) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return {
    status: response.status,
    cache: response.headers.get('x-cache'),
    body: (await response.json()) as { result?: unknown; error?: { code: number; message: string } },
  };
}

describe('an upstream killed in the middle of a load', () => {
  let anvil: Anvil;
  let gateway: Gateway;
  let proxy: Awaited<ReturnType<typeof startCuttableProxy>>;
  let url: string;

  before(async () => {
    anvil = await startAnvil();
    proxy = await startCuttableProxy(anvil.port);
    gateway = await startGateway(
      parseConfig({
        port: 0,
        logLevel: 'silent',
        networks: [
          {
            name: 'local',
            chainId: 'eip155:31337',
            upstreams: [proxy.url(), anvil.url],
            headPollMs: 200,
            cache: false,
            breaker: { failures: 2, cooldownMs: 300 },
          },
        ],
      }),
    );
    const { key } = await gateway.keys.create({ name: 'load' });
    url = `${gateway.networks[0].baseUrl}/v3/${key}`;
  });
  after(async () => {
    await gateway.close();
    await proxy.cut();
    await anvil.stop();
  });

  test('no request fails while another upstream can answer, and the cut one comes back', async () => {
    const results: number[] = [];
    let cutDone = false;
    const worker = async () => {
      for (let i = 0; i < 60; i++) {
        const { status, body } = await rpc(url, 'eth_getBalance', [
          '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
          'latest',
        ]);
        results.push(status === 200 && typeof body.result === 'string' ? 1 : 0);
        if (i === 20 && !cutDone) {
          cutDone = true;
          await proxy.cut();
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    assert.equal(results.length, 480);
    assert.equal(results.filter((ok) => ok === 0).length, 0, 'every request answered');

    // The cut upstream was set aside by its breaker...
    assert.equal((await upstreamHealth(gateway.url))[0].breaker, 'open');
    await proxy.restore();
    // ...and a successful health poll brings it back.
    const deadline = Date.now() + 30_000;
    let breaker = 'open';
    while (breaker !== 'closed' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      breaker = (await upstreamHealth(gateway.url))[0].breaker;
    }
    assert.equal(breaker, 'closed');
  });
});

/** The breaker state of each upstream of `local`, as /readyz reports it. */
async function upstreamHealth(gatewayUrl: string): Promise<{ breaker: string; up: boolean }[]> {
  const report = (await (await fetch(`${gatewayUrl}/readyz`)).json()) as {
    networks: Record<string, { upstreams: { breaker: string; up: boolean }[] }>;
  };
  return report.networks.local.upstreams;
}

describe('finality-aware cache', () => {
  let anvil: Anvil;
  let gateway: Gateway;
  let url: string;

  before(async () => {
    anvil = await startAnvil({ extraArgs: ['--slots-in-an-epoch', '1'] });
    gateway = await startGateway(
      parseConfig({
        port: 0,
        logLevel: 'silent',
        networks: [
          {
            name: 'local',
            chainId: 'eip155:31337',
            upstreams: [anvil.url],
            headPollMs: 100,
            // Polls only: tags go to the node as they are (with heads pushed they are pinned to
            // numbers and cached as such: pushed-heads.test.ts).
            headPush: false,
            cache: { unfinalizedTtlMs: 60_000 },
          },
        ],
      }),
    );
    const { key } = await gateway.keys.create({ name: 'cache' });
    url = `${gateway.networks[0].baseUrl}/v3/${key}`;
  });
  after(async () => {
    await gateway.close();
    await anvil.stop();
  });

  test('moving tags are never cached; numbered blocks are, and hits are still charged', async () => {
    const client = createTestClient({ chain: foundry, mode: 'anvil', transport: http(anvil.url) });
    await client.mine({ blocks: 3 });
    const first = await rpc(url, 'eth_getBlockByNumber', ['latest', false]);
    const second = await rpc(url, 'eth_getBlockByNumber', ['latest', false]);
    assert.equal(first.cache, 'BYPASS');
    assert.equal(second.cache, 'BYPASS');
    assert.equal((await rpc(url, 'eth_getBlockByNumber', ['finalized', false])).cache, 'BYPASS');
    const miss = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getBlockByNumber', params: ['0x1', false] }),
    });
    const hit = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getBlockByNumber', params: ['0x1', false] }),
    });
    assert.equal(miss.headers.get('x-cache'), 'MISS');
    assert.equal(hit.headers.get('x-cache'), 'HIT');
    assert.deepEqual(await hit.json(), await miss.json());
    assert.equal(
      Number(miss.headers.get('x-credits-remaining')) - Number(hit.headers.get('x-credits-remaining')),
      80,
    );
  });

  test('logs of a range fixed by numbers are cached; a range ending at latest or past every head is not', async () => {
    const client = createTestClient({ chain: foundry, mode: 'anvil', transport: http(anvil.url) });
    await client.mine({ blocks: 2 });
    const reader = createPublicClient({ chain: foundry, transport: http(anvil.url) });
    const head = Number(await reader.getBlockNumber());
    // The gateway learns the head from its polls (every 100 ms here): wait until it knows this one.
    await rpc(url, 'eth_getBlockByNumber', [`0x${head.toString(16)}`, false]);
    const fixed = { fromBlock: '0x1', toBlock: `0x${head.toString(16)}` };
    const miss = await rpc(url, 'eth_getLogs', [fixed]);
    const hit = await rpc(url, 'eth_getLogs', [fixed]);
    assert.equal(miss.cache, 'MISS');
    assert.equal(hit.cache, 'HIT');
    assert.deepEqual(hit.body.result, miss.body.result);
    for (const open of [{ fromBlock: '0x1', toBlock: 'latest' }, { fromBlock: '0x1' }]) {
      await rpc(url, 'eth_getLogs', [open]);
      assert.equal((await rpc(url, 'eth_getLogs', [open])).cache, 'BYPASS', JSON.stringify(open));
    }
    const ahead = { fromBlock: '0x1', toBlock: `0x${(head + 1000).toString(16)}` };
    await rpc(url, 'eth_getLogs', [ahead]);
    assert.equal(
      (await rpc(url, 'eth_getLogs', [ahead])).cache,
      'MISS',
      'logs up to a future block may still grow',
    );
  });

  test('an eth_blockNumber answer tells the gateway the head between its polls', async () => {
    // A second gateway that polls once at start only: the head moves only through answers.
    const slow = await startGateway(
      parseConfig({
        port: 0,
        logLevel: 'silent',
        networks: [{ name: 'slow', chainId: 'eip155:31337', upstreams: [anvil.url], headPollMs: 600_000 }],
      }),
    );
    try {
      const { key } = await slow.keys.create({ name: 'slow' });
      const slowUrl = `${slow.networks[0].baseUrl}/v3/${key}`;
      await rpc(slowUrl, 'eth_chainId', []);
      const client = createTestClient({ chain: foundry, mode: 'anvil', transport: http(anvil.url) });
      await client.mine({ blocks: 3 });
      const head = (await rpc(slowUrl, 'eth_blockNumber', [])).body.result as string;
      const range = { fromBlock: '0x1', toBlock: head };
      await rpc(slowUrl, 'eth_getLogs', [range]);
      assert.equal(
        (await rpc(slowUrl, 'eth_getLogs', [range])).cache,
        'HIT',
        'the head the answer named is known',
      );
    } finally {
      await slow.close();
    }
  });

  test('errors are never cached', async () => {
    const reverting = { data: '0x60006000fd' }; // init code that reverts with empty data
    const a = await rpc(url, 'eth_call', [reverting, '0x1']);
    const b = await rpc(url, 'eth_call', [reverting, '0x1']);
    assert.equal(a.body.error?.code, 3);
    assert.equal(b.cache, 'MISS');
  });

  test('a reorg (anvil snapshot revert and a different block) evicts the stale block', async () => {
    const client = createTestClient({ chain: foundry, mode: 'anvil', transport: http(anvil.url) });
    const snapshot = await client.snapshot();
    await client.mine({ blocks: 1 });
    const reader = createPublicClient({ chain: foundry, transport: http(anvil.url) });
    const height = `0x${(await reader.getBlockNumber()).toString(16)}`;
    const before = await rpc(url, 'eth_getBlockByNumber', [height, false]);
    const cached = await rpc(url, 'eth_getBlockByNumber', [height, false]);
    assert.equal(cached.cache, 'HIT');
    const staleHash = (before.body.result as { hash: string }).hash;

    await client.revert({ id: snapshot });
    await client.setNextBlockTimestamp({ timestamp: BigInt(Math.floor(Date.now() / 1000) + 1000) });
    await client.mine({ blocks: 1 });
    const freshHash = (await reader.getBlock({ blockNumber: BigInt(height) })).hash;
    assert.notEqual(freshHash, staleHash, 'anvil mined a different block at the same height');

    // The unfinalized TTL is a minute: only reorg detection (a head poll every 100 ms) can evict it.
    const deadline = Date.now() + 30_000;
    let seen = staleHash;
    while (seen === staleHash && Date.now() < deadline) {
      seen = ((await rpc(url, 'eth_getBlockByNumber', [height, false])).body.result as { hash: string }).hash;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(seen, freshHash);
  });

  test('a block beyond every upstream head is null, without an error', async () => {
    const response = await rpc(url, 'eth_getBlockByNumber', ['0xffffff', false]);
    assert.equal(response.status, 200);
    assert.equal(response.body.result, null);
    assert.equal(response.body.error, undefined);
  });
});
