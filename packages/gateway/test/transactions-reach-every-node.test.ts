// eth_sendRawTransaction goes to every upstream in service and to every relay (`broadcastUrls`),
// answered with the hash as soon as one holds it; a node that already has it counts as holding it;
// the caller pays once. Three real anvils without automine keep the transaction pending, so each
// node's own eth_getTransactionByHash shows it arrived there; a fourth is the private relay.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Anvil, startAnvil } from '@portico/devchain';
import { type Hex, keccak256 } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { type Gateway, parseConfig, startGateway } from '../src/index.ts';
import { closedPort, remaining, rpc } from './harness.ts';

/** anvil's first development account (its well-known test key). */
const ACCOUNT = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
const TO = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const PASSTHROUGH = 80;

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

const transfer = (nonce: number, value = 1n) =>
  ACCOUNT.signTransaction({
    chainId: 31337,
    type: 'eip1559',
    to: TO,
    value,
    nonce,
    gas: 21_000n,
    maxFeePerGas: 10n ** 10n,
    maxPriorityFeePerGas: 1n,
  });

describe('a transaction sent through the gateway reaches every node', () => {
  let nodes: Anvil[];
  let relay: Anvil;
  let gateway: Gateway;
  let url: string;

  before(async () => {
    [relay, ...nodes] = await Promise.all(
      Array.from({ length: 4 }, () => startAnvil({ extraArgs: ['--no-mining'] })),
    );
    gateway = await startGateway(
      parseConfig({
        port: 0,
        logLevel: 'silent',
        networks: [
          {
            name: 'local',
            chainId: 'eip155:31337',
            upstreams: nodes.map((n) => n.url),
            // A relay that is down does not hold the answer back.
            broadcastUrls: [relay.url, `http://127.0.0.1:${await closedPort()}`],
            cache: false,
          },
        ],
      }),
    );
    const { key } = await gateway.keys.create({ name: 'tx', dailyCredits: 100_000 });
    url = `${gateway.networks[0].baseUrl}/v3/${key}`;
  });
  after(async () => {
    await gateway?.close();
    await Promise.all([relay, ...(nodes ?? [])].map((n) => n?.stop()));
  });

  const holds = async (anvil: Anvil, hash: string) =>
    (await direct(anvil.url, 'eth_getTransactionByHash', [hash])) !== null;

  test('one call: the hash of the raw bytes, the transaction pending on every node and the relay, charged once', async () => {
    const raw = await transfer(0);
    const hash = keccak256(raw);
    const before = remaining(await rpc(url, 'eth_chainId'));
    const reply = await rpc(url, 'eth_sendRawTransaction', [raw]);
    assert.equal(reply.body.error, undefined, reply.body.error?.message);
    assert.equal(reply.body.result, hash);
    assert.equal(remaining(reply), (before as number) - PASSTHROUGH, 'charged once, not once per node');
    // The answer came with the first node; the others are reached in the background.
    for (const anvil of [...nodes, relay]) {
      const deadline = Date.now() + 10_000;
      while (!(await holds(anvil, hash)) && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 20));
      assert.ok(await holds(anvil, hash), `pending on the node at ${anvil.url}`);
    }
  });

  test('resent while pending ("already imported" everywhere): the same hash, charged once more', async () => {
    const raw = await transfer(0);
    const first = remaining(await rpc(url, 'eth_chainId')) as number;
    const reply = await rpc(url, 'eth_sendRawTransaction', [raw]);
    assert.equal(reply.body.error, undefined, reply.body.error?.message);
    assert.equal(reply.body.result, keccak256(raw));
    assert.equal(remaining(reply), first - PASSTHROUGH);
  });

  test('resent once mined ("nonce too low" for this very hash): the same hash', async () => {
    const raw = await transfer(0);
    await Promise.all(nodes.map((n) => direct(n.url, 'evm_mine')));
    for (const anvil of nodes) {
      const receipt = await direct(anvil.url, 'eth_getTransactionReceipt', [keccak256(raw)]);
      assert.notEqual(receipt, null, 'mined on every node');
    }
    const reply = await rpc(url, 'eth_sendRawTransaction', [raw]);
    assert.equal(reply.body.error, undefined, reply.body.error?.message);
    assert.equal(reply.body.result, keccak256(raw));
  });

  test('another transaction with a used nonce is the nodes’ refusal, not a success', async () => {
    const other = await transfer(0, 2n);
    const reply = await rpc(url, 'eth_sendRawTransaction', [other]);
    assert.equal(reply.body.result, undefined);
    assert.match(String(reply.body.error?.message), /nonce too low/);
  });

  test('bytes that do not decode as a signed transaction: -32602 before anything is sent, free', async () => {
    const before = remaining(await rpc(url, 'eth_chainId')) as number;
    const unsigned = `0x02${'c0'}` as Hex;
    for (const bad of ['0xdeadbeef', '0x', 'not hex', unsigned, 42]) {
      const reply = await rpc(url, 'eth_sendRawTransaction', [bad]);
      assert.equal(reply.body.error?.code, -32602, `refused: ${String(bad)}`);
      assert.match(reply.body.error?.message ?? '', /signed transaction/);
    }
    const after = remaining(await rpc(url, 'eth_chainId')) as number;
    assert.equal(after, before - PASSTHROUGH, 'only the eth_chainId was charged');
    for (const anvil of nodes) {
      assert.deepEqual(
        await direct(anvil.url, 'txpool_content').then((c) => (c as { pending: object }).pending),
        {},
      );
    }
  });
});
