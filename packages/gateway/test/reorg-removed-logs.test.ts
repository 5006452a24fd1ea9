// A reorg under a logs subscription: anvil itself pushes the new blocks' logs but never the
// removed ones, so the gateway sends them: the logs it delivered for the dropped blocks again with
// `removed: true` (in chain order, as geth's reorg sends them), then the new blocks' logs, none
// twice, each charged once. The same when a chain reverted to a snapshot goes on with other
// blocks. A subscription without a reorg sees no removed log.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import { type Anvil, type EvmSeed, PorticoDemo, seedEvmChain, startAnvil } from '@portico/devchain';
import { encodeFunctionData } from 'viem';
import WebSocket from 'ws';
import { type Gateway, parseConfig, startGateway } from '../src/index.ts';

type Log = {
  blockNumber: string;
  blockHash: string;
  logIndex: string;
  transactionHash: string;
  data: string;
  removed: boolean;
};
type Message = {
  id?: number;
  result?: unknown;
  method?: string;
  params?: { subscription: string; result: Log };
};

async function until(check: () => boolean, what: string) {
  const deadline = Date.now() + 20_000;
  while (!check() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  assert.ok(check(), what);
}

describe('logs subscriptions and reorgs', () => {
  let anvil: Anvil;
  let seed: EvmSeed;
  let gateway: Gateway;

  const call = async (method: string, params: unknown[]) => {
    const response = await fetch(anvil.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    const body = (await response.json()) as { result?: unknown; error?: unknown };
    assert.equal(body.error, undefined, `${method}: ${JSON.stringify(body.error)}`);
    return body.result;
  };
  const storeTx = (value: bigint, nonce?: number) => ({
    from: seed.accounts[0],
    to: seed.demoContract,
    data: encodeFunctionData({ abi: PorticoDemo.abi, functionName: 'store', args: [value] }),
    gas: '0x30000',
    ...(nonce === undefined ? {} : { nonce: `0x${nonce.toString(16)}` }),
  });
  /** Emits Stored(value) in a block of its own; waits until the block is sealed. */
  const store = async (value: bigint) => {
    const hash = await call('eth_sendTransaction', [storeTx(value)]);
    for (let tries = 0; tries < 500; tries++) {
      if (await call('eth_getTransactionReceipt', [hash])) return;
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.fail(`no receipt for ${String(hash)}`);
  };
  const subscribe = async (key: string) => {
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
    return { socket, id, logs: () => logs().map((m) => m.params?.result as Log), all: logs };
  };
  const identity = (log: Log) => `${log.blockHash}:${log.logIndex}:${log.transactionHash}:${log.removed}`;

  before(async () => {
    anvil = await startAnvil();
    seed = await seedEvmChain(anvil.url);
    await call('evm_setAutomine', [true]);
    gateway = await startGateway(
      parseConfig({
        port: 0,
        logLevel: 'silent',
        networks: [{ name: 'local', chainId: 'eip155:31337', upstreams: [anvil.url], cache: false }],
      }),
    );
  });
  after(async () => {
    await gateway?.close();
    await anvil?.stop();
  });

  test('without a reorg no log is removed and none comes twice', { timeout: 60_000 }, async () => {
    const { key } = await gateway.keys.create({ name: 'quiet' });
    const client = await subscribe(key);
    for (const value of [1n, 2n, 3n]) await store(value);
    await until(() => client.logs().length === 3, 'three logs heard');
    for (let i = 0; i < 3; i++) await call('evm_mine', []);
    await store(4n);
    await until(() => client.logs().length === 4, 'the fourth log heard');
    assert.ok(
      client.logs().every((log) => log.removed === false),
      'no removed log',
    );
    assert.equal(new Set(client.logs().map(identity)).size, 4, 'none twice');
    assert.ok(
      client.all().every((m) => m.params?.subscription === client.id),
      'only the subscription’s own notifications (the gateway’s head watch stays inside)',
    );
    client.socket.close();
  });

  test('anvil_reorg: the dropped blocks’ logs come back removed, then the new ones, each once', {
    timeout: 60_000,
  }, async () => {
    const created = await gateway.keys.create({ name: 'reorged', dailyCredits: 1_000_000 });
    const keyId = (await gateway.keys.authenticate(created.key))!.id;
    const client = await subscribe(created.key);
    const spentBefore = await gateway.ledger.spent(keyId);

    for (const value of [11n, 12n, 13n]) await store(value);
    await until(() => client.logs().length === 3, 'three logs heard');
    const delivered = client.logs();
    const nonce = Number(BigInt(String(await call('eth_getTransactionCount', [seed.accounts[0], 'latest']))));
    // The last two blocks are replaced by two holding other values (same senders' nonces).
    await call('anvil_reorg', [
      2,
      [
        [storeTx(21n, nonce - 2), 0],
        [storeTx(22n, nonce - 1), 1],
      ],
    ]);
    await until(() => client.logs().length >= 7, 'two removed logs and two new ones');
    await store(23n);
    await until(() => client.logs().some((log) => log.data.endsWith('17')), 'a log after the reorg');
    const logs = client.logs();

    const removed = logs.slice(3, 5);
    assert.deepEqual(
      removed.map(identity),
      [delivered[1], delivered[2]].map((log) => identity({ ...log, removed: true })),
      'the dropped blocks’ logs in chain order, with the same block hash and index, removed: true',
    );
    assert.deepEqual(
      removed.map((log) => log.blockNumber),
      [delivered[1].blockNumber, delivered[2].blockNumber],
    );
    const replaced = logs.slice(5, 7);
    assert.deepEqual(
      replaced.map((log) => [log.blockNumber, log.removed, BigInt(log.data)]),
      [
        [delivered[1].blockNumber, false, 21n],
        [delivered[2].blockNumber, false, 22n],
      ],
      'then the new blocks’ logs in order',
    );
    const canonical = (await call('eth_getBlockByNumber', [delivered[2].blockNumber, false])) as {
      hash: string;
    };
    assert.equal(replaced[1].blockHash, canonical.hash, 'from the new chain');
    assert.equal(logs.length, 8, `nothing else, nothing twice: ${JSON.stringify(logs.map(identity))}`);
    assert.equal(new Set(logs.map(identity)).size, 8);
    const spent = (await gateway.ledger.spent(keyId)) - spentBefore;
    assert.equal(spent, 8 * 300, 'each delivered notification charged once (logs: 300)');
    client.socket.close();
  });

  test('evm_revert to a shorter chain, then another block: both logs removed, then the new one', {
    timeout: 60_000,
  }, async () => {
    const { key } = await gateway.keys.create({ name: 'reverted' });
    const client = await subscribe(key);
    const snapshot = await call('evm_snapshot', []);
    await store(31n);
    await store(32n);
    await until(() => client.logs().length === 2, 'two logs heard');
    const delivered = client.logs();
    assert.equal(await call('evm_revert', [snapshot]), true);
    // The chain is two blocks shorter; the next block is at the first one's height.
    await store(33n);
    await until(() => client.logs().length >= 5, 'two removed logs and the new one');
    await store(34n);
    await until(() => client.logs().some((log) => log.data.endsWith('22')), 'a log after it');
    const logs = client.logs();
    assert.deepEqual(
      logs.slice(2, 4).map(identity),
      [delivered[0], delivered[1]].map((log) => identity({ ...log, removed: true })),
    );
    assert.deepEqual(
      logs.slice(4).map((log) => [log.blockNumber, log.removed, BigInt(log.data)]),
      [
        [delivered[0].blockNumber, false, 33n],
        [delivered[1].blockNumber, false, 34n],
      ],
    );
    client.socket.close();
  });
});
