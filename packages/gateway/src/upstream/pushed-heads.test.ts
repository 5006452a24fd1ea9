// One node's newHeads subscription against WebSocket nodes held in the test's hands: the addresses
// tried in turn (the one that took it first again after a loss), what is read as a head and what
// is ignored, the waits between turns, and stop.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { after, test } from 'node:test';
import { type WebSocket, WebSocketServer } from 'ws';
import { closedPort } from '../../test/harness.ts';
import { type PushedHead, PushedHeads, type PushedHeadsOptions } from './pushed-heads.ts';

type NodeBehaviour = 'takes' | 'refuses' | 'silent';

/** A WebSocket node: takes eth_subscribe (or refuses it, or never answers); counts connections. */
async function wsNode(behaviour: NodeBehaviour) {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await once(server, 'listening');
  servers.push(server);
  const node = {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections: 0,
    /** When each connection came (ms, performance.now()). */
    connectedAt: [] as number[],
    closes: 0,
    requests: [] as unknown[],
    socket: undefined as WebSocket | undefined,
    send: (message: unknown) =>
      node.socket!.send(typeof message === 'string' ? message : JSON.stringify(message)),
  };
  server.on('connection', (socket) => {
    node.connections += 1;
    node.connectedAt.push(performance.now());
    node.socket = socket;
    socket.on('close', () => {
      node.closes += 1;
    });
    socket.on('message', (data) => {
      const request = JSON.parse(String(data)) as { id: number };
      node.requests.push(request);
      if (behaviour === 'silent') return;
      const answer =
        behaviour === 'takes'
          ? { jsonrpc: '2.0', id: request.id, result: '0xab' }
          : { jsonrpc: '2.0', id: request.id, error: { code: -32601, message: 'no subscriptions here' } };
      socket.send(JSON.stringify(answer));
    });
  });
  return node;
}

const servers: WebSocketServer[] = [];
const pushers: PushedHeads[] = [];
after(() => {
  for (const pusher of pushers) pusher.stop();
  for (const server of servers) server.close();
});

function pusherOf(options: Partial<PushedHeadsOptions> & { urls: string[] }) {
  const heads: PushedHead[] = [];
  const pusher = new PushedHeads({
    onHead: (head) => heads.push(head),
    retryMs: 20,
    timeoutMs: 2000,
    ...options,
  });
  pushers.push(pusher);
  return { pusher, heads };
}

async function until(check: () => boolean, what: string) {
  const deadline = Date.now() + 5000;
  while (!check()) {
    assert.ok(Date.now() < deadline, `timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const notification = (result: unknown) => ({
  jsonrpc: '2.0',
  method: 'eth_subscription',
  params: { subscription: '0xab', result },
});

test('past a closed port and a node that refuses newHeads, the third address is used and tried first after a loss', async () => {
  const refuses = await wsNode('refuses');
  const takes = await wsNode('takes');
  const { pusher, heads } = pusherOf({
    urls: [`ws://127.0.0.1:${await closedPort()}`, refuses.url, takes.url],
  });
  pusher.start();
  await until(() => pusher.live, 'subscribed');
  assert.equal(refuses.connections, 1, 'the node that refused was asked once');
  assert.equal(takes.connections, 1);
  assert.deepEqual(
    takes.requests,
    [{ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] }],
    'one eth_subscribe for newHeads',
  );
  takes.send(notification({ number: '0x2a', hash: '0x01', parentHash: '0x00' }));
  await until(() => heads.length === 1, 'a head arrived');
  assert.deepEqual(heads[0], { number: 42, hash: '0x01', parentHash: '0x00' });

  takes.socket!.terminate();
  await until(() => takes.connections === 2 && pusher.live, 'subscribed again');
  assert.equal(refuses.connections, 1, 'the address that took it is tried first again');
});

test('only newHeads notifications with a hex number are heads; anything else on the socket is ignored', async () => {
  const node = await wsNode('takes');
  const { pusher, heads } = pusherOf({ urls: [node.url] });
  pusher.start();
  await until(() => pusher.live, 'subscribed');
  for (const message of [
    'not json',
    'null',
    '5',
    '"text"',
    { jsonrpc: '2.0', method: 'eth_somethingElse', params: { result: { number: '0x1' } } },
    { jsonrpc: '2.0', method: 'eth_subscription', params: {} },
    { jsonrpc: '2.0', method: 'eth_subscription' },
    notification(null),
    notification({ number: 'latest', hash: '0x01' }),
    notification({ number: 7, hash: '0x01' }),
    { jsonrpc: '2.0', id: 9, result: '0x1' },
  ]) {
    node.send(message);
  }
  node.send(notification({ number: '0x10', hash: 5, parentHash: ['0x0'] }));
  node.send(notification({ number: '0x11', hash: '0xaa', parentHash: '0xbb' }));
  await until(() => heads.length >= 2, 'the two heads arrived');
  assert.deepEqual(heads, [
    { number: 16, hash: null, parentHash: null },
    { number: 17, hash: '0xaa', parentHash: '0xbb' },
  ]);
  assert.equal(pusher.live, true, 'what it ignored did not end the subscription');
  assert.equal(node.connections, 1);
});

test('a node that never answers eth_subscribe is left after the timeout for the next address', async () => {
  const silent = await wsNode('silent');
  const takes = await wsNode('takes');
  const { pusher } = pusherOf({ urls: [silent.url, takes.url], timeoutMs: 150 });
  pusher.start();
  await until(() => pusher.live, 'subscribed at the second address');
  assert.equal(silent.requests.length, 1, 'the silent node was asked');
  await until(() => silent.closes === 1, 'and its connection closed');
});

test('a message over 1 MiB ends the connection; the node is asked again', async () => {
  const node = await wsNode('takes');
  const { pusher, heads } = pusherOf({ urls: [node.url] });
  pusher.start();
  await until(() => pusher.live, 'subscribed');
  node.send(
    notification({ number: '0x1', hash: '0x01', parentHash: '0x00', extraData: 'ab'.repeat(600_000) }),
  );
  await until(() => node.connections === 2 && pusher.live, 'connected again');
  assert.equal(heads.length, 0, 'the oversized message was not read');
});

test('when no address takes it, the next turn waits retryMs, then doubles: 1, 2, 4 times', async () => {
  const first = await wsNode('refuses');
  const second = await wsNode('refuses');
  const retryMs = 100;
  const { pusher } = pusherOf({ urls: [first.url, second.url], retryMs });
  pusher.start();
  await until(() => first.connections >= 4 && second.connections >= 4, 'four turns');
  pusher.stop();
  // Each turn asks the first address, then the second at once; the next turn waits.
  for (let turn = 0; turn < 4; turn++) {
    assert.ok(first.connectedAt[turn] <= second.connectedAt[turn], `turn ${turn}: the first address first`);
    if (turn === 0) continue;
    const waited = first.connectedAt[turn] - second.connectedAt[turn - 1];
    const wait = retryMs * 2 ** (turn - 1);
    assert.ok(
      waited >= wait - 5,
      `turn ${turn} began ${waited.toFixed(0)} ms after the last, expected ≥ ${wait}`,
    );
  }
});

test('start twice opens one connection; after stop nothing connects again', async () => {
  const node = await wsNode('takes');
  const { pusher } = pusherOf({ urls: [node.url] });
  pusher.start();
  pusher.start();
  await until(() => pusher.live, 'subscribed');
  assert.equal(node.connections, 1, 'one connection');
  pusher.stop();
  assert.equal(pusher.live, false);
  await until(() => node.closes === 1, 'the connection closed');
  pusher.start();
  // A negative check can only wait: ten retry periods without a new connection.
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.equal(node.connections, 1, 'stopped for good');
});
