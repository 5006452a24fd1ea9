// JSON-RPC over WebSocket at {base}/ws/v3/<key>: auth at the upgrade, the same pipeline as HTTP,
// eth_subscribe relayed from anvil's own WebSocket while anvil mines real blocks, and each
// notification charged at its subscription type's price (closing the connection when unpaid).
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import { type EvmSeed, PorticoDemo, seedEvmChain } from '@portico/devchain';
import { createPublicClient, createWalletClient, http, webSocket } from 'viem';
import { foundry } from 'viem/chains';
import WebSocket from 'ws';
import { closedPort, post, remaining, rpc, type Stack, startStack } from './harness.ts';
import { eventually } from './shared-services.ts';

const ADMIN_TOKEN = 'websocket-test-admin-token';

type Message = {
  id?: number;
  method?: string;
  result?: unknown;
  error?: { code: number; message: string };
  params?: { subscription: string; result: Record<string, unknown> };
};

/** A raw WebSocket JSON-RPC client that lets a test wait for the message it expects. */
async function connect(url: string) {
  const socket = new WebSocket(url);
  const queued: Message[] = [];
  /** Every eth_subscription received, in order (also those a test took with `next`). */
  const notifications: Message[] = [];
  const waiters: { want: (m: Message) => boolean; resolve: (m: Message) => void }[] = [];
  socket.on('message', (data) => {
    const message = JSON.parse(String(data)) as Message;
    if (message.method === 'eth_subscription') notifications.push(message);
    const index = waiters.findIndex((w) => w.want(message));
    if (index >= 0) waiters.splice(index, 1)[0].resolve(message);
    else queued.push(message);
  });
  await once(socket, 'open');
  let nextId = 1;
  const next = (want: (m: Message) => boolean): Promise<Message> => {
    const index = queued.findIndex(want);
    if (index >= 0) return Promise.resolve(queued.splice(index, 1)[0]);
    return new Promise((resolve) => waiters.push({ want, resolve }));
  };
  return {
    socket,
    notifications,
    next,
    send: (value: unknown) => socket.send(typeof value === 'string' ? value : JSON.stringify(value)),
    call(method: string, params: unknown[] = []) {
      const id = nextId++;
      socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
      return next((m) => m.id === id);
    },
    async close() {
      if (socket.readyState === WebSocket.CLOSED) return;
      const closed = once(socket, 'close');
      socket.close();
      await closed;
    },
  };
}

/** The status of a refused upgrade. */
async function upgradeStatus(url: string): Promise<number> {
  const socket = new WebSocket(url);
  socket.on('error', () => {});
  const [, response] = (await once(socket, 'unexpected-response')) as [unknown, { statusCode: number }];
  socket.terminate();
  return response.statusCode;
}

describe('WebSocket JSON-RPC', () => {
  let stack: Stack;
  let seed: EvmSeed;
  let keyId: string;
  let wsUrl: string;
  const mine = () => rpc(stack.anvil.url, 'evm_mine');

  before(async () => {
    const down = await closedPort();
    stack = await startStack({
      seed: false,
      adminToken: ADMIN_TOKEN,
      extraNetworks: [{ name: 'down', chainId: 'eip155:31338', upstreams: [`http://127.0.0.1:${down}`] }],
    });
    seed = await seedEvmChain(stack.anvil.url);
    const record = await stack.gateway.keys.authenticate(stack.key);
    keyId = record!.id;
    wsUrl = `${stack.gateway.networks[0].baseUrl.replace(/^http/, 'ws')}/ws/v3/${stack.key}`;
  });
  after(async () => {
    await stack?.close();
  });

  test('an unknown or missing key is refused with 401 at the upgrade', { timeout: 20_000 }, async () => {
    const base = stack.gateway.networks[0].baseUrl.replace(/^http/, 'ws');
    assert.equal(await upgradeStatus(`${base}/ws/v3/not-a-key`), 401);
    assert.equal(await upgradeStatus(`${base}/ws/v3`), 401);
    assert.equal(await upgradeStatus(`${stack.gateway.url.replace(/^http/, 'ws')}/nowhere/ws/v3/x`), 404);
  });

  test('the HTTP methods answer over WebSocket and are charged the same', { timeout: 20_000 }, async () => {
    const before = await stack.gateway.ledger.spent(keyId);
    const overHttp = await rpc(stack.url(stack.key), 'eth_getBalance', [seed.accounts[0], 'latest']);
    const httpCost = (await stack.gateway.ledger.spent(keyId)) - before;
    assert.ok(httpCost > 0);
    const client = await connect(wsUrl);
    try {
      const reply = await client.call('eth_getBalance', [seed.accounts[0], 'latest']);
      assert.equal(reply.result, overHttp.body.result);
      assert.equal((await stack.gateway.ledger.spent(keyId)) - before, 2 * httpCost);
      const unknown = await client.call('no_suchMethod');
      assert.equal(unknown.error?.code, -32601);
      client.send([
        { jsonrpc: '2.0', id: 'a', method: 'eth_chainId', params: [] },
        { jsonrpc: '2.0', id: 'b', method: 'eth_blockNumber', params: [] },
      ]);
      const batch = await client.next(() => true);
      assert.ok(Array.isArray(batch));
      assert.deepEqual((batch as unknown as Message[]).map((m) => m.id).sort(), ['a', 'b']);
      client.send('{not json');
      const parseError = await client.next((m) => m.error?.code === -32700);
      assert.equal(parseError.id, null);
    } finally {
      await client.close();
    }
  });

  test('eth_subscribe newHeads relays mined blocks as eth_subscription; eth_unsubscribe ends it', {
    timeout: 30_000,
  }, async () => {
    const client = await connect(wsUrl);
    try {
      const spentBefore = await stack.gateway.ledger.spent(keyId);
      const subscribed = await client.call('eth_subscribe', ['newHeads']);
      assert.equal(typeof subscribed.result, 'string', JSON.stringify(subscribed));
      const subscription = subscribed.result as string;
      assert.equal((await stack.gateway.ledger.spent(keyId)) - spentBefore, 80, 'charged as a passthrough');
      const mined = await mine();
      assert.equal(mined.status, 200);
      const head = await client.next((m) => m.method === 'eth_subscription');
      assert.equal(head.params?.subscription, subscription);
      assert.match(String(head.params?.result.number), /^0x[0-9a-f]+$/);
      assert.match(String(head.params?.result.hash), /^0x[0-9a-f]{64}$/);
      const metrics = await (await fetch(`${stack.gateway.url}/metrics`)).text();
      assert.match(metrics, /portico_ws_subscriptions\{network="local"\} 1/);
      assert.match(metrics, /portico_rpc_requests_total\{network="local",method="eth_subscribe"\} 1/);
      const unsubscribed = await client.call('eth_unsubscribe', [subscription]);
      assert.equal(unsubscribed.result, true);
      const again = await client.call('eth_unsubscribe', [subscription]);
      assert.equal(again.result, false);
    } finally {
      await client.close();
    }
  });

  test('an unsupported subscription is -32602 and is not charged', { timeout: 20_000 }, async () => {
    const client = await connect(wsUrl);
    try {
      const spentBefore = await stack.gateway.ledger.spent(keyId);
      const reply = await client.call('eth_subscribe', ['newPendingTransactionsWithBodies']);
      assert.equal(reply.error?.code, -32602);
      assert.equal(await stack.gateway.ledger.spent(keyId), spentBefore);
    } finally {
      await client.close();
    }
  });

  test('eth_subscribe with no reachable upstream is -32603 and the credits are given back', {
    timeout: 20_000,
  }, async () => {
    const downUrl = `${stack.gateway.networks[1].baseUrl.replace(/^http/, 'ws')}/ws/v3/${stack.key}`;
    const client = await connect(downUrl);
    try {
      const spentBefore = await stack.gateway.ledger.spent(keyId);
      const reply = await client.call('eth_subscribe', ['newHeads']);
      assert.equal(reply.error?.code, -32603);
      assert.equal(await stack.gateway.ledger.spent(keyId), spentBefore);
    } finally {
      await client.close();
    }
  });

  test('viem watchBlocks and watchContractEvent over the gateway WebSocket', {
    timeout: 30_000,
  }, async () => {
    const client = createPublicClient({ chain: foundry, transport: webSocket(wsUrl, { reconnect: false }) });
    const blocks: bigint[] = [];
    const stored: bigint[] = [];
    let sawBlock!: () => void;
    let sawLog!: () => void;
    const gotBlock = new Promise<void>((resolve) => {
      sawBlock = resolve;
    });
    const gotLog = new Promise<void>((resolve) => {
      sawLog = resolve;
    });
    const stopBlocks = client.watchBlocks({
      onBlock: (block) => {
        if (block.number !== null) blocks.push(block.number);
        sawBlock();
      },
      onError: (error) => assert.fail(error),
    });
    const stopEvents = client.watchContractEvent({
      address: seed.demoContract,
      abi: PorticoDemo.abi,
      eventName: 'Stored',
      onLogs: (logs) => {
        for (const log of logs) stored.push((log.args as { value: bigint }).value);
        sawLog();
      },
      onError: (error) => assert.fail(error),
    });
    try {
      // Both subscriptions are open once the gateway counts them; then a transaction is mined.
      const bothOpen = await eventually(async () => {
        const text = await (await fetch(`${stack.gateway.url}/metrics`)).text();
        return /portico_ws_subscriptions\{network="local"\} 2/.test(text);
      }, 400);
      assert.ok(bothOpen, 'the gateway counts both subscriptions open');
      const wallet = createWalletClient({ chain: foundry, transport: http(stack.anvil.url) });
      await wallet.writeContract({
        account: seed.accounts[0],
        address: seed.demoContract,
        abi: PorticoDemo.abi,
        functionName: 'store',
        args: [4242n],
      });
      await Promise.all([gotBlock, gotLog]);
      assert.ok(blocks.length >= 1);
      assert.deepEqual(stored, [4242n]);
    } finally {
      stopBlocks();
      stopEvents();
      const socket = await client.transport.getRpcClient();
      socket.close();
    }
  });

  /** A fresh key with its own daily balance, and its WebSocket address. */
  const keyWith = async (dailyCredits: number) => {
    const { key, record } = await stack.gateway.keys.create({ name: `ws-${dailyCredits}`, dailyCredits });
    const ws = `${stack.gateway.networks[0].baseUrl.replace(/^http/, 'ws')}/ws/v3/${key}`;
    return { key, id: record.id, ws };
  };
  /** The key's usage rows from the admin API, by method. */
  const usageOf = async (id: string) => {
    const reply = await post(`${stack.gateway.url}/admin/usage?keyId=${id}`, undefined, {
      method: 'GET',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    assert.equal(reply.status, 200, reply.text);
    const rows = (reply.body as { usage: { method: string; requests: number; credits: number }[] }).usage;
    return Object.fromEntries(rows.map((r) => [r.method, { requests: r.requests, credits: r.credits }]));
  };
  /** The balance left after an HTTP eth_blockNumber (80 credits), from X-Credits-Remaining. */
  const balanceAfterHttpCall = async (key: string) => remaining(await rpc(stack.url(key), 'eth_blockNumber'));
  const of = (subscription: unknown) => (m: Message) =>
    m.method === 'eth_subscription' && m.params?.subscription === subscription;

  test('each newHeads notification costs 50 credits, is delivered in order and recorded as eth_subscription:newHeads', {
    timeout: 30_000,
  }, async () => {
    const { key, id, ws } = await keyWith(100_000);
    const client = await connect(ws);
    try {
      const subscribed = await client.call('eth_subscribe', ['newHeads']);
      for (let i = 0; i < 3; i++) await mine();
      const heads: Message[] = [];
      for (let i = 0; i < 3; i++) heads.push(await client.next(of(subscribed.result)));
      const first = Number(heads[0].params?.result.number);
      assert.deepEqual(
        heads.map((h) => Number(h.params?.result.number)),
        [first, first + 1, first + 2],
      );
      assert.equal((await client.call('eth_unsubscribe', [subscribed.result])).result, true);
      assert.equal(client.notifications.length, 3);
      // eth_subscribe 80 + 3 heads × 50 + eth_unsubscribe 0 + the HTTP call 80
      assert.equal(await balanceAfterHttpCall(key), 100_000 - 80 - 3 * 50 - 80);
      const usage = await usageOf(id);
      assert.deepEqual(usage['eth_subscription:newHeads'], { requests: 3, credits: 150 });
      assert.deepEqual(usage.eth_subscribe, { requests: 1, credits: 80 });
      assert.deepEqual(usage.eth_unsubscribe, { requests: 1, credits: 0 });
      const metrics = await (await fetch(`${stack.gateway.url}/metrics`)).text();
      assert.match(
        metrics,
        new RegExp(`portico_credits_charged_total\\{network="local",key_id="${id}"\\} 310\\n`),
      );
      assert.match(metrics, /portico_ws_notifications_total\{network="local",type="newHeads"\} [1-9]/);
    } finally {
      await client.close();
    }
  });

  test('logs notifications cost 300 credits each, beside newHeads at 50 on the same connection', {
    timeout: 30_000,
  }, async () => {
    const { key, id, ws } = await keyWith(100_000);
    const client = await connect(ws);
    try {
      const logs = await client.call('eth_subscribe', ['logs', { address: seed.demoContract }]);
      const heads = await client.call('eth_subscribe', ['newHeads']);
      assert.equal(typeof logs.result, 'string', JSON.stringify(logs));
      const wallet = createWalletClient({ chain: foundry, transport: http(stack.anvil.url) });
      for (const value of [7n, 8n]) {
        await wallet.writeContract({
          account: seed.accounts[0],
          address: seed.demoContract,
          abi: PorticoDemo.abi,
          functionName: 'store',
          args: [value],
        });
      }
      // anvil mines each transaction in a block of its own: 2 logs and 2 heads.
      for (let i = 0; i < 2; i++) {
        await client.next(of(logs.result));
        await client.next(of(heads.result));
      }
      assert.equal(client.notifications.length, 4);
      assert.equal(await balanceAfterHttpCall(key), 100_000 - 2 * 80 - 2 * 300 - 2 * 50 - 80);
      const usage = await usageOf(id);
      assert.deepEqual(usage['eth_subscription:logs'], { requests: 2, credits: 600 });
      assert.deepEqual(usage['eth_subscription:newHeads'], { requests: 2, credits: 100 });
    } finally {
      await client.close();
    }
  });

  test('a balance that runs out mid-subscription closes the connection with 1008 and delivers nothing beyond it', {
    timeout: 30_000,
  }, async () => {
    const { key, id, ws } = await keyWith(80 + 3 * 50); // eth_subscribe and exactly 3 heads
    const client = await connect(ws);
    const closed = once(client.socket, 'close') as Promise<[number, Buffer]>;
    try {
      const subscribed = await client.call('eth_subscribe', ['newHeads']);
      assert.equal(typeof subscribed.result, 'string', JSON.stringify(subscribed));
      for (let i = 0; i < 5; i++) await mine();
      const [code, reason] = await closed;
      assert.equal(code, 1008);
      assert.equal(
        String(reason),
        'daily credits exhausted: a newHeads notification costs 50, 0 left; they reset at 00:00 UTC',
      );
      assert.equal(client.notifications.length, 3);
      const refused = await rpc(stack.url(key), 'eth_blockNumber');
      assert.equal(refused.status, 429);
      assert.equal(remaining(refused), 0);
      assert.deepEqual((await usageOf(id))['eth_subscription:newHeads'], { requests: 3, credits: 150 });
      assert.equal(await stack.gateway.ledger.spent(id), 230);
    } finally {
      await client.close();
    }
  });

  test('a key revoked while its connection is open: the next call or notification closes it with 1008', {
    timeout: 30_000,
  }, async () => {
    const { id, ws } = await keyWith(100_000);
    const calling = await connect(ws);
    const streaming = await connect(ws);
    const callingClosed = once(calling.socket, 'close') as Promise<[number, Buffer]>;
    const streamingClosed = once(streaming.socket, 'close') as Promise<[number, Buffer]>;
    try {
      assert.equal(typeof (await streaming.call('eth_subscribe', ['newHeads'])).result, 'string');
      await stack.gateway.keys.revoke(id);
      calling.send({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] });
      await mine();
      for (const [code, reason] of [await callingClosed, await streamingClosed]) {
        assert.equal(code, 1008);
        assert.equal(String(reason), 'the API key was revoked');
      }
      assert.equal(streaming.notifications.length, 0, 'no notification after the revocation');
    } finally {
      await calling.close();
      await streaming.close();
    }
  });
});
