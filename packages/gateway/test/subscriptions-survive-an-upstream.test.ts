// A client's newHeads subscription outlives the upstream behind it: when that anvil is killed,
// the gateway subscribes again on the other one under the same id and sends the heads of the gap
// by block number, so the client sees every block once. The two anvils are mined in step (same
// numbers, their own hashes); then the second alone mines four blocks nobody hears, and the first
// is killed: those four are the gap the gateway has to fill.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import { type Anvil, PorticoDemo, seedEvmChain, startAnvil } from '@portico/devchain';
import { encodeFunctionData } from 'viem';
import WebSocket from 'ws';
import { type Gateway, parseConfig, startGateway } from '../src/index.ts';

type Message = {
  id?: number;
  result?: unknown;
  method?: string;
  params?: { subscription: string; result: { number: string } };
};

async function mine(anvil: Anvil) {
  const response = await fetch(anvil.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'evm_mine', params: [] }),
  });
  await response.text();
}

async function until(check: () => boolean, what: string) {
  const deadline = Date.now() + 15_000;
  while (!check() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  assert.ok(check(), what);
}

describe('a newHeads subscription across an upstream kill', () => {
  let first: Anvil;
  let second: Anvil;
  let gateway: Gateway;
  let wsUrl: string;
  let keyId: string;

  before(async () => {
    [first, second] = await Promise.all([startAnvil(), startAnvil()]);
    gateway = await startGateway(
      parseConfig({
        port: 0,
        logLevel: 'silent',
        networks: [
          { name: 'local', chainId: 'eip155:31337', upstreams: [first.url, second.url], cache: false },
        ],
      }),
    );
    const created = await gateway.keys.create({ name: 'subscriber', dailyCredits: 1_000_000 });
    keyId = (await gateway.keys.authenticate(created.key))!.id;
    wsUrl = `${gateway.networks[0].baseUrl.replace(/^http/, 'ws')}/ws/v3/${created.key}`;
  });
  after(async () => {
    await gateway?.close();
    await Promise.all([first?.stop(), second?.stop()]);
  });

  test('20 blocks: none missing, none twice, one id, each charged once; the socket stays open', {
    timeout: 60_000,
  }, async () => {
    const socket = new WebSocket(wsUrl);
    const heads: number[] = [];
    const ids = new Set<string>();
    let answer: Message | undefined;
    let closed: number | undefined;
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as Message;
      if (message.method === 'eth_subscription' && message.params) {
        ids.add(message.params.subscription);
        heads.push(Number(BigInt(message.params.result.number)));
      } else if (message.id === 1) answer = message;
    });
    socket.on('close', (code) => {
      closed = code;
    });
    await once(socket, 'open');
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] }));
    await until(() => answer !== undefined, 'subscribed');
    assert.equal(typeof answer?.result, 'string', JSON.stringify(answer));
    const spentBefore = await gateway.ledger.spent(keyId);

    // Blocks 1 to 6 on both, heard from the first.
    for (let block = 1; block <= 6; block++) {
      await Promise.all([mine(first), mine(second)]);
      await until(() => heads.at(-1) === block, `head ${block} heard`);
    }
    // Blocks 7 to 10 on the second only, which no subscription hears: the first falls behind
    // and is killed, and these four are the gap the gateway must fill from the second.
    for (let block = 7; block <= 10; block++) await mine(second);
    await first.stop();
    // Blocks 11 to 20, pushed by the second.
    for (let block = 11; block <= 20; block++) {
      await mine(second);
      await until(() => heads.at(-1) === block, `head ${block} heard`);
    }
    assert.deepEqual(
      heads,
      Array.from({ length: 20 }, (_, i) => i + 1),
      'every block once, in order',
    );
    assert.deepEqual([...ids], [answer?.result], 'the id the client was given');
    assert.equal(closed, undefined, 'the client connection stayed open');
    const spent = (await gateway.ledger.spent(keyId)) - spentBefore;
    assert.equal(spent, 20 * 50, 'each delivered head charged once (newHeads: 50)');
    socket.close();
  });
});

describe('a logs subscription across an upstream kill', () => {
  test('resumes on the other upstream under the same id, with the logs of the gap, none twice', {
    timeout: 60_000,
  }, async () => {
    const [first, second] = await Promise.all([startAnvil(), startAnvil()]);
    const gateway = await startGateway(
      parseConfig({
        port: 0,
        logLevel: 'silent',
        networks: [
          { name: 'local', chainId: 'eip155:31337', upstreams: [first.url, second.url], cache: false },
        ],
      }),
    );
    const call = async (anvil: Anvil, method: string, params: unknown[]) => {
      const response = await fetch(anvil.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      });
      return ((await response.json()) as { result: unknown }).result;
    };
    try {
      // The same deployment on both: the contract has the same address.
      const [seed] = await Promise.all([seedEvmChain(first.url), seedEvmChain(second.url)]);
      await Promise.all([first, second].map((a) => call(a, 'evm_setAutomine', [true])));
      /** Emits Stored(value) on an anvil; the block it was mined in. */
      const store = async (anvil: Anvil, value: bigint) => {
        const data = encodeFunctionData({ abi: PorticoDemo.abi, functionName: 'store', args: [value] });
        const hash = await call(anvil, 'eth_sendTransaction', [
          { from: seed.accounts[0], to: seed.demoContract, data },
        ]);
        // Automine answers the hash before the block is sealed: a loaded machine sees no receipt yet.
        let receipt: { blockNumber: string } | null = null;
        for (let tries = 0; !receipt && tries < 500; tries++) {
          receipt = (await call(anvil, 'eth_getTransactionReceipt', [hash])) as {
            blockNumber: string;
          } | null;
          if (!receipt) await new Promise((r) => setTimeout(r, 20));
        }
        assert.ok(receipt, `a receipt for ${String(hash)}`);
        return Number(BigInt(receipt.blockNumber));
      };
      const { key } = await gateway.keys.create({ name: 'logs' });
      const socket = new WebSocket(`${gateway.networks[0].baseUrl.replace(/^http/, 'ws')}/ws/v3/${key}`);
      const messages: Message[] = [];
      socket.on('message', (data) => messages.push(JSON.parse(String(data)) as Message));
      await once(socket, 'open');
      socket.send(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'eth_subscribe',
          params: ['logs', { address: seed.demoContract }],
        }),
      );
      await until(() => messages.some((m) => m.id === 1), 'subscribed');
      const id = messages.find((m) => m.id === 1)?.result;
      assert.equal(typeof id, 'string');
      const logs = () => messages.filter((m) => m.method === 'eth_subscription');

      // One log heard from the first, at the same height as on the second.
      const [heard] = await Promise.all([store(first, 1n), store(second, 1n)]);
      await until(() => logs().length === 1, 'the first log heard');
      // Two logs on the second only, which no subscription hears: the gap.
      const gap = [await store(second, 2n), await store(second, 3n)];
      assert.ok(gap[0] > heard, 'the gap comes after the log heard');
      await first.stop();
      await until(() => logs().length === 3, 'the gap’s two logs sent');
      const after = await store(second, 4n);
      await until(() => logs().length === 4, 'a log heard from the second');
      assert.deepEqual(
        logs().map((m) =>
          Number(BigInt(String((m.params?.result as { blockNumber?: string } | undefined)?.blockNumber))),
        ),
        [heard, ...gap, after],
        'every log once, in order',
      );
      assert.ok(
        logs().every((m) => m.params?.subscription === id),
        'under the id the client was given',
      );
      socket.close();
    } finally {
      await gateway.close();
      await Promise.all([first.stop(), second.stop()]);
    }
  });
});
