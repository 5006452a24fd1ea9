// Health and head across a fleet of real nodes: an upstream that never reported a head (a socket
// that accepts and never answers) gets no traffic, one anvil far ahead neither evicts the others
// nor drags `latest`, and a lagging anvil gets no `latest` reads until it catches up.
import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { type Anvil, startAnvil } from '@portico/devchain';
import type { ApiKeyRecord, Gateway } from '@portico/gateway';
import { gatewayFor, post, rpc } from './harness.ts';

type UpstreamState = { host: string; head: number; lag: number; lagging: boolean; up: boolean };

let silent: Server;
const sockets: Socket[] = [];
let anvils: Anvil[];
let gateway: Gateway;
let record: ApiKeyRecord;
let key: string;

const X = '0x00000000000000000000000000000000000000aa';
const hostOf = (url: string) => new URL(url).host;

before(async () => {
  silent = createServer((socket) => sockets.push(socket)); // accepts, never answers
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const silentUrl = `http://127.0.0.1:${(silent.address() as { port: number }).port}`;
  anvils = await Promise.all([startAnvil(), startAnvil(), startAnvil(), startAnvil()]);
  const common = { chainId: 'eip155:31337', cache: false, headPollMs: 200, timeoutMs: 120_000 };
  gateway = await gatewayFor(anvils[0].url, {
    extraNetworks: [
      // The silent node first, its breaker never opening: only health keeps traffic off it.
      { ...common, name: 'silent', upstreams: [silentUrl, anvils[0].url], breaker: { failures: 1000 } },
      { ...common, name: 'fleet', upstreams: anvils.slice(1).map((a) => a.url), maxLagBlocks: 5 },
    ],
  });
  const created = await gateway.keys.create({ name: 'fleet', dailyCredits: 1_000_000 });
  record = created.record;
  key = created.key;
});
after(async () => {
  await gateway?.close();
  for (const socket of sockets) socket.destroy();
  silent?.close();
  await Promise.all((anvils ?? []).map((a) => a.stop()));
});

const urlOf = (network: string) => `${gateway.url}/${network}/v3/${key}`;

async function upstreamsOf(network: string): Promise<UpstreamState[]> {
  const reply = await post(`${gateway.url}/readyz`, undefined, { method: 'GET' });
  return (reply.body as { networks: Record<string, { upstreams: UpstreamState[] }> }).networks[network]
    .upstreams;
}

/** Waits until the gateway's view of a network's upstreams passes `check` (head polls every 200 ms). */
async function until(network: string, check: (upstreams: UpstreamState[]) => boolean) {
  for (let i = 0; i < 300; i++) {
    const upstreams = await upstreamsOf(network);
    if (check(upstreams)) return upstreams;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${network}: ${JSON.stringify(await upstreamsOf(network))}`);
}

async function anvilCall(anvil: Anvil, method: string, params: unknown[]) {
  const reply = await post(anvil.url, { jsonrpc: '2.0', id: 1, method, params });
  assert.equal((reply.body as { error?: unknown }).error, undefined, reply.text);
  return (reply.body as { result: unknown }).result;
}

describe('health and head', () => {
  test('an upstream that never reported a head is not up and gets no calls', async () => {
    const [silentNode] = await until('silent', (u) => u[1].up);
    assert.equal(silentNode.up, false);
    assert.equal(silentNode.head, -1);
    const spent = await gateway.ledger.spent(record.id);
    // Round-robin would start every other call at the silent node: each is answered by anvil.
    for (let i = 0; i < 6; i++) {
      const reply = await post(
        urlOf('silent'),
        { jsonrpc: '2.0', id: i, method: 'eth_chainId', params: [] },
        {
          timeoutMs: 20_000,
        },
      );
      assert.equal((reply.body as { result?: string }).result, '0x7a69', reply.text);
    }
    assert.ok((await gateway.ledger.spent(record.id)) > spent, 'the answered calls were charged');
  });

  test('one node far ahead neither evicts the others nor drags latest', async () => {
    const [a, b, c] = anvils.slice(1);
    await until('fleet', (u) => u.every((x) => x.up));
    await anvilCall(c, 'anvil_mine', ['0x64']); // 100 blocks ahead
    const upstreams = await until('fleet', (u) => u[2].head === 100);
    assert.deepEqual(
      upstreams.map((u) => [u.host, u.lag, u.lagging]),
      [
        [hostOf(a.url), 0, false],
        [hostOf(b.url), 0, false],
        [hostOf(c.url), 0, false],
      ],
    );
    const cFinalized = (await anvilCall(c, 'eth_getBlockByNumber', ['finalized', false])) as {
      number: string;
    };
    assert.ok(Number(cFinalized.number) > 0, 'the node ahead reports a finalized block above the others');
    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    assert.match(
      metrics,
      /portico_network_finalized_block\{network="fleet"\} 0\n/,
      'finalized is not dragged either',
    );
    const head = await rpc(urlOf('fleet'), 'eth_blockNumber');
    assert.equal(head.body.result, '0x0', 'latest is the head the others agree on, not the one far ahead');
    const block = await rpc(urlOf('fleet'), 'eth_getBlockByNumber', ['latest', false]);
    assert.equal((block.body.result as { number: string }).number, '0x0');
  });

  test('a lagging node gets no latest reads until it catches up', async () => {
    const [a, b, c] = anvils.slice(1);
    await anvilCall(a, 'anvil_mine', ['0x6e']); // a, b at 110; c at 100: 10 behind
    await anvilCall(b, 'anvil_mine', ['0x6e']);
    // Only c holds a balance for X: an answer with it came from c.
    await anvilCall(c, 'anvil_setBalance', [X, '0x5']);
    const upstreams = await until('fleet', (u) => u[0].head === 110 && u[1].head === 110);
    assert.deepEqual(
      upstreams.map((u) => [u.lag, u.lagging]),
      [
        [0, false],
        [0, false],
        [10, true],
      ],
    );
    const spent = await gateway.ledger.spent(record.id);
    for (let i = 0; i < 6; i++) {
      const reply = await rpc(urlOf('fleet'), 'eth_getBalance', [X, 'latest']);
      assert.equal(reply.body.result, '0x0', reply.text);
    }
    assert.equal(await gateway.ledger.spent(record.id), spent + 6 * 80);
    await anvilCall(c, 'anvil_mine', ['0x0f']); // c at 115: caught up
    await until('fleet', (u) => u[2].head === 115 && !u[2].lagging);
    const answers = new Set<unknown>();
    for (let i = 0; i < 6; i++)
      answers.add((await rpc(urlOf('fleet'), 'eth_getBalance', [X, 'latest'])).body.result);
    assert.deepEqual([...answers].sort(), ['0x0', '0x5'], 'c serves latest reads again');
  });
});
