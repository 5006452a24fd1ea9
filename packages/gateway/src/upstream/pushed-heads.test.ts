// The addresses of one node's WebSocket tried in turn: the first that takes the newHeads
// subscription is used, and tried first when the connection is lost.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { after, test } from 'node:test';
import { type WebSocket, WebSocketServer } from 'ws';
import { closedPort } from '../../test/harness.ts';
import { type PushedHead, PushedHeads } from './pushed-heads.ts';

/** A WebSocket node: takes eth_subscribe (or refuses it), counts connections, pushes on demand. */
async function wsNode(takes: boolean) {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await once(server, 'listening');
  const node = {
    server,
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections: 0,
    socket: undefined as WebSocket | undefined,
  };
  server.on('connection', (socket) => {
    node.connections += 1;
    node.socket = socket;
    socket.on('message', (data) => {
      const { id } = JSON.parse(String(data)) as { id: number };
      const answer = takes
        ? { jsonrpc: '2.0', id, result: '0xab' }
        : { jsonrpc: '2.0', id, error: { code: -32601, message: 'no subscriptions here' } };
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

async function until(check: () => boolean, what: string) {
  const deadline = Date.now() + 5000;
  while (!check()) {
    assert.ok(Date.now() < deadline, `timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

test('past a closed port and a node that refuses newHeads, the third address is used and tried first after a loss', async () => {
  const refuses = await wsNode(false);
  const takes = await wsNode(true);
  servers.push(refuses.server, takes.server);
  const heads: PushedHead[] = [];
  const pusher = new PushedHeads({
    urls: [`ws://127.0.0.1:${await closedPort()}`, refuses.url, takes.url],
    onHead: (head) => heads.push(head),
    retryMs: 20,
    timeoutMs: 2000,
  });
  pushers.push(pusher);
  pusher.start();
  await until(() => pusher.live, 'subscribed');
  assert.equal(refuses.connections, 1, 'the node that refused was asked once');
  assert.equal(takes.connections, 1);
  takes.socket!.send(
    JSON.stringify({
      jsonrpc: '2.0',
      method: 'eth_subscription',
      params: { subscription: '0xab', result: { number: '0x2a', hash: '0x01', parentHash: '0x00' } },
    }),
  );
  await until(() => heads.length === 1, 'a head arrived');
  assert.deepEqual(heads[0], { number: 42, hash: '0x01', parentHash: '0x00' });

  takes.socket!.terminate();
  await until(() => takes.connections === 2 && pusher.live, 'subscribed again');
  assert.equal(refuses.connections, 1, 'the address that took it is tried first again');
});

test('when no address takes it, all are tried again after the wait, from the first', async () => {
  const first = await wsNode(false);
  const second = await wsNode(false);
  servers.push(first.server, second.server);
  const pusher = new PushedHeads({
    urls: [first.url, second.url],
    onHead: () => {},
    retryMs: 20,
    timeoutMs: 2000,
  });
  pushers.push(pusher);
  pusher.start();
  await until(() => second.connections >= 1, 'the second address was tried');
  assert.equal(first.connections, 1, 'in one turn each address once');
  await until(() => first.connections >= 2, 'the next turn begins');
  await until(() => second.connections >= 2, 'and goes on to the second');
  assert.equal(pusher.live, false);
});
