// `latest` from pushed heads: with a `newHeads` subscription on the upstream's WebSocket, the
// gateway's agreed head follows the node block by block although its polls are ten minutes apart;
// a gateway with `headPush: false` beside it stays at the head of its first poll.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { type Anvil, startAnvil } from '@portico/devchain';
import { privateKeyToAccount } from 'viem/accounts';
import { WebSocket, WebSocketServer } from 'ws';
import { type Gateway, parseConfig, startGateway } from '../src/index.ts';
import { type Ganache, startGanache } from './ganache.ts';
import { closedPort, rpc } from './harness.ts';

// anvil's first dev account.
const ACCOUNT = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');

async function direct(url: string, method: string, params: unknown[] = []) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return ((await response.json()) as { result?: unknown }).result;
}

/** Asks until `check` holds (at most 10 s), and returns the last value seen. */
async function until<T>(read: () => Promise<T>, check: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 10_000;
  let value = await read();
  while (!check(value) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 10));
    value = await read();
  }
  return value;
}

describe('latest from heads the node pushes', () => {
  let anvil: Anvil;
  const gateways: Gateway[] = [];

  const start = async (headPush: boolean, network: Record<string, unknown> = {}) => {
    const gateway = await startGateway(
      parseConfig({
        port: 0,
        logLevel: 'silent',
        networks: [
          {
            name: 'local',
            chainId: 'eip155:31337',
            upstreams: [anvil.url],
            blockTags: 'agreed',
            // One poll at start, the next in ten minutes: only a push can move the head.
            headPollMs: 600_000,
            headPush,
            ...network,
          },
        ],
      }),
    );
    gateways.push(gateway);
    const { key } = await gateway.keys.create({ name: 'heads' });
    return `${gateway.networks[0].baseUrl}/v3/${key}`;
  };

  before(async () => {
    anvil = await startAnvil();
    await direct(anvil.url, 'anvil_mine', ['0x5']);
  });
  after(async () => {
    for (const gateway of gateways) await gateway.close();
    await anvil?.stop();
  });

  test('20 blocks mined one by one: eth_blockNumber and latest follow each; without push they stay', async () => {
    const pushed = await start(true);
    const polled = await start(false);
    const blockNumber = async (url: string) => (await rpc(url, 'eth_blockNumber')).body.result as string;
    const first = await until(
      () => blockNumber(polled),
      (n) => n === '0x5',
    );
    assert.equal(first, '0x5', 'the first poll saw block 5');
    for (let block = 6; block <= 25; block++) {
      await direct(anvil.url, 'evm_mine');
      const hex = `0x${block.toString(16)}`;
      assert.equal(
        await until(
          () => blockNumber(pushed),
          (n) => n === hex,
        ),
        hex,
        `block ${block} pushed`,
      );
      const latest = (await rpc(pushed, 'eth_getBlockByNumber', ['latest', false])).body.result as {
        number: string;
      };
      assert.equal(latest.number, hex, 'latest is the pushed block');
    }
    assert.equal(await blockNumber(polled), '0x5', 'polls alone have not moved (the next is minutes away)');
  });

  test('by default, heads come from the upstream’s own address as ws:// (anvil serves both)', async () => {
    const url = await start(true, { headPush: undefined, blockTags: undefined });
    const gateway = gateways.at(-1)!;
    const readyz = async () =>
      (
        (await (await fetch(`${gateway.url}/readyz`)).json()) as {
          networks: Record<string, { upstreams: { headsPushed: boolean }[] }>;
        }
      ).networks.local.upstreams[0].headsPushed;
    assert.equal(await until(readyz, (pushed) => pushed), true, '/readyz says its heads are pushed');
    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    assert.match(metrics, /portico_upstream_heads_pushed\{[^}]*\} 1/);
    const blockNumber = async () => (await rpc(url, 'eth_blockNumber')).body.result as string;
    const head = Number(BigInt((await direct(anvil.url, 'eth_blockNumber')) as string));
    assert.equal(await until(blockNumber, (n) => n === `0x${head.toString(16)}`), `0x${head.toString(16)}`);
    await direct(anvil.url, 'evm_mine');
    const next = `0x${(head + 1).toString(16)}`;
    assert.equal(
      await until(blockNumber, (n) => n === next),
      next,
      'the pushed head arrived (the next poll is minutes away)',
    );
  });

  test('a Portico gateway as the upstream: its WebSocket is found at /ws/v3/<key>; heads pushed, subscriptions relayed', async () => {
    const front = await start(true);
    const back = await start(true, { upstreams: [front] });
    const gateway = gateways.at(-1)!;
    const readyz = async () =>
      (
        (await (await fetch(`${gateway.url}/readyz`)).json()) as {
          networks: Record<string, { upstreams: { headsPushed: boolean }[] }>;
        }
      ).networks.local.upstreams[0].headsPushed;
    assert.equal(
      await until(readyz, (pushed) => pushed),
      true,
      'the front gateway pushes heads to the back one',
    );

    const { key } = await gateway.keys.create({ name: 'subscriber' });
    const client = new WebSocket(`${gateway.networks[0].baseUrl.replace(/^http/, 'ws')}/ws/v3/${key}`);
    await once(client, 'open');
    const messages: { id?: number; result?: unknown; params?: { result: { number: string } } }[] = [];
    client.on('message', (data) => messages.push(JSON.parse(String(data))));
    client.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] }));
    await until(
      async () => messages.length,
      (n) => n > 0,
    );
    assert.equal(
      typeof messages[0].result,
      'string',
      `subscribed through both: ${JSON.stringify(messages[0])}`,
    );

    await direct(anvil.url, 'evm_mine');
    const head = (await direct(anvil.url, 'eth_blockNumber')) as string;
    const blockNumber = async () => (await rpc(back, 'eth_blockNumber')).body.result as string;
    assert.equal(
      await until(blockNumber, (n) => n === head),
      head,
      'the pushed head reached the back gateway',
    );
    const notified = await until(
      async () => messages.find((m) => m.params?.result.number === head),
      (m) => m !== undefined,
    );
    assert.ok(notified, `the client heard block ${head} through both gateways`);
    client.close();
  });

  test('a node whose WebSocket cannot be reached: the polls still move the head', async () => {
    const url = await start(true, { headPollMs: 100, wsUpstreams: [`ws://127.0.0.1:${await closedPort()}`] });
    const head = (await direct(anvil.url, 'eth_blockNumber')) as string;
    // Once the first poll is in, eth_blockNumber is answered from the heads the gateway knows.
    const ready = async () =>
      (
        (await (await fetch(`${gateways.at(-1)!.url}/readyz`)).json()) as {
          networks: Record<string, { upstreams: { head: number }[] }>;
        }
      ).networks.local.upstreams[0].head;
    assert.equal(await until(ready, (n) => n === Number(BigInt(head))), Number(BigInt(head)));
    const states = (await (await fetch(`${gateways.at(-1)!.url}/readyz`)).json()) as {
      networks: Record<string, { upstreams: { headsPushed: boolean }[] }>;
    };
    assert.equal(states.networks.local.upstreams[0].headsPushed, false, 'no subscription: polled only');
    await direct(anvil.url, 'evm_mine');
    const next = `0x${(Number(BigInt(head)) + 1).toString(16)}`;
    const seen = await until(
      async () => (await rpc(url, 'eth_blockNumber')).body.result,
      (n) => n === next,
    );
    assert.equal(seen, next);
  });
});

/**
 * A stand-in for a node's WebSocket (anvil pushes every head at once, so a test could not hold one
 * back): it takes the `newHeads` subscription and pushes a head only when the test says so, while
 * the HTTP calls go to the real node.
 */
async function standInHeads() {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await once(server, 'listening');
  let socket: WebSocket | undefined;
  const subscribed = new Promise<void>((resolve) => {
    server.on('connection', (ws) => {
      socket = ws;
      ws.on('message', (data) => {
        const { id } = JSON.parse(String(data)) as { id: number };
        ws.send(JSON.stringify({ jsonrpc: '2.0', id, result: '0xfeed' }));
        resolve();
      });
    });
  });
  return {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`,
    subscribed,
    socket: () => socket,
    push: (number: string) =>
      socket!.send(
        JSON.stringify({
          jsonrpc: '2.0',
          method: 'eth_subscription',
          params: { subscription: '0xfeed', result: { number, hash: null, parentHash: null } },
        }),
      ),
    close: () => server.close(),
  };
}

/** A gateway with the default tags for one upstream, its heads pushed by `ws` only. */
async function pinnedGateway(upstream: string, ws: string) {
  const config = parseConfig({
    port: 0,
    logLevel: 'silent',
    networks: [
      {
        name: 'local',
        chainId: 'eip155:31337',
        upstreams: [upstream],
        wsUpstreams: [ws],
        // One poll at start, the next in ten minutes; a lost socket is tried again in 50 minutes.
        headPollMs: 600_000,
      },
    ],
  });
  assert.equal(config.networks[0].blockTags, 'pushed', 'the default with one upstream and wsUpstreams');
  const gateway = await startGateway(config);
  const { key } = await gateway.keys.create({ name: 'pinned' });
  return { gateway, url: `${gateway.networks[0].baseUrl}/v3/${key}` };
}

const hex = (n: number) => `0x${n.toString(16)}`;

describe('tags pinned by default only while heads are pushed (one upstream)', () => {
  let anvil: Anvil;
  let heads: Awaited<ReturnType<typeof standInHeads>>;
  let gateway: Gateway;
  let url: string;
  const blockNumber = async () => (await rpc(url, 'eth_blockNumber')).body.result as string;

  before(async () => {
    anvil = await startAnvil();
    await direct(anvil.url, 'anvil_mine', ['0x3']);
    heads = await standInHeads();
    ({ gateway, url } = await pinnedGateway(anvil.url, heads.url));
    await heads.subscribed;
  });
  after(async () => {
    await gateway?.close();
    heads?.close();
    await anvil?.stop();
  });

  test('pinned while the subscription is open: the head moves by pushes and receipts, not by the node alone', async () => {
    // The first poll saw block 3; the socket is open and has pushed nothing.
    assert.equal(await until(blockNumber, (n) => n === '0x3'), '0x3');
    await direct(anvil.url, 'anvil_mine', ['0x2']);
    assert.equal(
      await blockNumber(),
      '0x3',
      'eth_blockNumber is the head the gateway knows, not asked of the node',
    );
    const latest = (await rpc(url, 'eth_getBlockByNumber', ['latest', false])).body.result as {
      number: string;
    };
    assert.equal(latest.number, '0x3', 'latest is sent as block 3');
    assert.equal(
      (await rpc(url, 'eth_getBlockByNumber', ['latest', false])).headers.get('x-cache'),
      'HIT',
      'and cached as block 3 until the next head',
    );

    heads.push('0x5');
    assert.equal(await until(blockNumber, (n) => n === '0x5'), '0x5', 'a pushed head moves it');

    // A transaction the node mines in block 6, its receipt read through the gateway: that block
    // is the upstream's head at once, so a read at latest after the receipt sees its state.
    const [from] = (await direct(anvil.url, 'eth_accounts')) as string[];
    const to = '0x000000000000000000000000000000000000beef';
    const hash = (await direct(anvil.url, 'eth_sendTransaction', [{ from, to, value: '0x7' }])) as string;
    const receipt = (await rpc(url, 'eth_getTransactionReceipt', [hash])).body.result as {
      blockNumber: string;
    };
    assert.equal(receipt.blockNumber, hex(6));
    assert.equal(await blockNumber(), hex(6), 'the receipt moved the head');
    assert.equal((await rpc(url, 'eth_getBalance', [to, 'latest'])).body.result, '0x7');
  });

  test('not pinned once the subscription is lost: tags go to the node as they are', async () => {
    const socket = heads.socket()!;
    const closed = once(socket, 'close');
    socket.terminate();
    await closed;
    await direct(anvil.url, 'anvil_mine', ['0x4']);
    const head = (await direct(anvil.url, 'eth_blockNumber')) as string;
    assert.equal(await until(blockNumber, (n) => n === head), head, 'eth_blockNumber is the node’s');
    const latest = (await rpc(url, 'eth_getBlockByNumber', ['latest', false])).body.result as {
      number: string;
    };
    assert.equal(latest.number, head);
  });
});

/**
 * `node` behind a proxy whose `eth_blockNumber` answers come 300 ms late, so that the head read
 * after a write is still under way when the client's next read arrives.
 */
async function slowHeadReads(node: string) {
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString();
    if ((JSON.parse(body) as { method?: string }).method === 'eth_blockNumber')
      await new Promise((resolve) => setTimeout(resolve, 300));
    const answer = await fetch(node, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    response.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

// ganache mines a transaction before it answers it (its default instamine, "eager"), as Hardhat
// does. anvil answers a moment before it mines (foundry-rs/foundry#3537): a read right after the
// write can miss it on anvil itself, with or without a gateway, so the write is tested here.
describe('a write through the gateway is read back at latest while tags are pinned (ganache)', () => {
  let ganache: Ganache;
  let proxy: Awaited<ReturnType<typeof slowHeadReads>>;
  let heads: Awaited<ReturnType<typeof standInHeads>>;
  let gateway: Gateway;
  let url: string;
  const blockNumber = async () => (await rpc(url, 'eth_blockNumber')).body.result as string;

  before(async () => {
    ganache = await startGanache();
    for (let i = 0; i < 3; i++) await direct(ganache.url, 'evm_mine');
    proxy = await slowHeadReads(ganache.url);
    heads = await standInHeads();
    ({ gateway, url } = await pinnedGateway(proxy.url, heads.url));
    await heads.subscribed;
  });
  after(async () => {
    await gateway?.close();
    heads?.close();
    proxy?.close();
    await ganache?.stop();
  });

  test('reads at latest go to the node from the write until its head is read again, then are pinned', async () => {
    assert.equal(await until(blockNumber, (n) => n === hex(3)), hex(3), 'the first poll saw block 3');
    await direct(ganache.url, 'evm_mine');
    assert.equal(await blockNumber(), hex(3), 'pinned before the write: block 4 was not pushed');
    const to = '0x000000000000000000000000000000000000cafe';
    const nonce = (await direct(ganache.url, 'eth_getTransactionCount', [
      ACCOUNT.address,
      'latest',
    ])) as string;
    const raw = await ACCOUNT.signTransaction({
      chainId: 31337,
      type: 'eip1559',
      to,
      value: 9n,
      nonce: Number(BigInt(nonce)),
      gas: 21_000n,
      maxFeePerGas: 10n ** 10n,
      maxPriorityFeePerGas: 1n,
    });
    const sent = await rpc(url, 'eth_sendRawTransaction', [raw]);
    assert.equal(typeof sent.body.result, 'string', JSON.stringify(sent.body));
    // ganache mined it in block 5 and pushes nothing to the stand-in, and the gateway's head read
    // after the write is still waiting: pinned to block 3, the read would not see the transfer.
    assert.equal((await rpc(url, 'eth_getBalance', [to, 'latest'])).body.result, '0x9', 'read-your-write');
    // Pinned again once the node's head was read after the write (a read at latest is a cache
    // hit only when pinned to a number).
    const pinned = async () =>
      (await rpc(url, 'eth_getBlockByNumber', ['latest', false])).headers.get('x-cache');
    assert.equal(await until(pinned, (cache) => cache === 'HIT'), 'HIT', 'pinned again');
    assert.equal(await blockNumber(), hex(5), 'the head read after the write: block 5');
    await direct(ganache.url, 'evm_mine');
    assert.equal(await blockNumber(), hex(5), 'blocks mined without a push do not move it');
  });
});
