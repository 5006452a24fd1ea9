// Batches: every item handled, charged and answered on its own; invalid items next to valid ones;
// notifications inside a batch; the batch-size cap (HTTP 413); viem's batching transport.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type EvmSeed, PorticoDemo } from '@portico/devchain';
import type { ApiKeyRecord } from '@portico/gateway';
import { createPublicClient, encodeFunctionData, http } from 'viem';
import { post, remaining, rpc, type Stack, startStack } from './harness.ts';

let stack: Stack;
let seed: EvmSeed;
let url: string;

const MAX_BATCH = 5;

type Item = { jsonrpc: string; id: unknown; result?: unknown; error?: { code: number; message: string } };

before(async () => {
  stack = await startStack({ maxBatchSize: MAX_BATCH });
  seed = stack.seed!;
  url = stack.url(stack.key);
});
after(async () => {
  await stack?.close();
});

async function freshKey(dailyCredits = 100_000): Promise<{ url: string; record: ApiKeyRecord }> {
  const { key, record } = await stack.gateway.keys.create({ name: 'batch', dailyCredits });
  return { url: stack.url(key), record };
}

const byId = (items: Item[]) => new Map(items.map((item) => [item.id, item]));

describe('batches', () => {
  test('every item is answered and charged separately', async () => {
    const { url, record } = await freshKey();
    const valueCall = encodeFunctionData({ abi: PorticoDemo.abi, functionName: 'value' });
    const reply = await post(url, [
      { jsonrpc: '2.0', id: 1, method: 'eth_getBlockByNumber', params: ['latest', false] },
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'eth_call',
        params: [{ to: seed.demoContract, data: valueCall }, 'latest'],
      },
      {
        jsonrpc: '2.0',
        id: 3,
        method: 'eth_estimateGas',
        params: [{ from: seed.accounts[0], to: seed.accounts[1], value: '0x1' }],
      },
      { jsonrpc: '2.0', id: 4, method: 'eth_getBlockReceipts', params: ['latest'] },
    ]);
    assert.equal(reply.status, 200, reply.text);
    const items = reply.body as Item[];
    assert.equal(items.length, 4);
    const answers = byId(items);
    assert.deepEqual([...answers.keys()].sort(), [1, 2, 3, 4]);
    for (const item of items) assert.equal(item.error, undefined, JSON.stringify(item));
    assert.equal(BigInt(answers.get(2)?.result as string), 1234n);
    assert.equal(answers.get(3)?.result, '0x5208');
    assert.equal(await stack.gateway.ledger.spent(record.id), 80 + 80 + 300 + 1000);
    assert.equal(remaining(reply), 100_000 - 1460);
  });

  test('valid, invalid, unknown and notification items side by side', async () => {
    const { url, record } = await freshKey();
    const reply = await post(url, [
      { jsonrpc: '2.0', id: 'ok', method: 'eth_chainId', params: [] },
      { jsonrpc: '2.0', id: 'params', method: 'eth_getBlockByNumber', params: ['0x01', false] },
      { jsonrpc: '2.0', id: 'unknown', method: 'eth_nope', params: [] },
      { jsonrpc: '1.0', id: 'shape', method: 'eth_chainId', params: [] },
      { jsonrpc: '2.0', method: 'eth_blockNumber', params: [] },
      42,
    ]);
    // maxBatchSize is 5 and this batch has 6 items: it must be refused whole.
    assert.equal(reply.status, 413);
    assert.equal(await stack.gateway.ledger.spent(record.id), 0);

    const fits = await post(url, [
      { jsonrpc: '2.0', id: 'ok', method: 'eth_chainId', params: [] },
      { jsonrpc: '2.0', id: 'params', method: 'eth_getBlockByNumber', params: ['0x01', false] },
      { jsonrpc: '2.0', id: 'unknown', method: 'eth_nope', params: [] },
      { jsonrpc: '1.0', id: 'shape', method: 'eth_chainId', params: [] },
      { jsonrpc: '2.0', method: 'eth_blockNumber', params: [] },
    ]);
    assert.equal(fits.status, 200, fits.text);
    const items = fits.body as Item[];
    assert.equal(items.length, 4, 'the notification is not answered');
    const answers = byId(items);
    assert.equal(answers.get('ok')?.result, '0x7a69');
    assert.equal(answers.get('params')?.error?.code, -32602);
    assert.match(answers.get('params')?.error?.message ?? '', /block parameter/);
    assert.equal(answers.get('unknown')?.error?.code, -32601);
    assert.equal(answers.get('shape')?.error?.code, -32600);
    for (const item of items) assert.equal(item.jsonrpc, '2.0');
    // eth_chainId and the notification eth_blockNumber were served; nothing else was charged.
    assert.equal(await stack.gateway.ledger.spent(record.id), 160);
  });

  test('non-object items are each answered with -32600 and a null id', async () => {
    const reply = await post(url, [1, 'x', null]);
    assert.equal(reply.status, 200);
    const items = reply.body as Item[];
    assert.equal(items.length, 3);
    for (const item of items) {
      assert.equal(item.id, null);
      assert.equal(item.error?.code, -32600);
    }
  });

  test('a batch of only notifications: HTTP 204, all served', async () => {
    const { url, record } = await freshKey();
    const reply = await post(url, [
      { jsonrpc: '2.0', method: 'eth_chainId', params: [] },
      { jsonrpc: '2.0', method: 'eth_blockNumber', params: [] },
    ]);
    assert.equal(reply.status, 204);
    assert.equal(reply.text, '');
    assert.equal(await stack.gateway.ledger.spent(record.id), 160);
  });

  test('an empty batch: -32600', async () => {
    const reply = await post(url, []);
    assert.equal(reply.status, 400);
    assert.equal((reply.body as Item).error?.code, -32600);
  });

  test('a batch above maxBatchSize: HTTP 413, nothing served or charged', async () => {
    const { url, record } = await freshKey();
    const batch = Array.from({ length: MAX_BATCH + 1 }, (_, i) => ({
      jsonrpc: '2.0',
      id: i,
      method: 'eth_chainId',
      params: [],
    }));
    const reply = await post(url, batch);
    assert.equal(reply.status, 413);
    const body = reply.body as Item;
    assert.equal(body.error?.code, -32014);
    assert.match(body.error?.message ?? '', /batch too large.*at most 5/);
    assert.equal(await stack.gateway.ledger.spent(record.id), 0);
    const atCap = await post(url, batch.slice(0, MAX_BATCH));
    assert.equal(atCap.status, 200);
    assert.equal((atCap.body as Item[]).length, MAX_BATCH);
    assert.equal(await stack.gateway.ledger.spent(record.id), 80 * MAX_BATCH);
  });

  test('items of one batch that exceed the balance are refused one by one', async () => {
    const { url, record } = await freshKey(200);
    const reply = await post(
      url,
      Array.from({ length: 4 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'eth_chainId', params: [] })),
    );
    assert.equal(reply.status, 200);
    const items = reply.body as Item[];
    assert.equal(items.filter((i) => i.result === '0x7a69').length, 2);
    assert.equal(items.filter((i) => i.error?.code === -32005).length, 2);
    assert.equal(await stack.gateway.ledger.spent(record.id), 160);
    assert.equal(remaining(reply), 40);
  });

  test("viem's batching transport works through the gateway", async () => {
    const client = createPublicClient({ transport: http(url, { batch: { batchSize: MAX_BATCH } }) });
    const [chainId, block, balance, receipt] = await Promise.all([
      client.getChainId(),
      client.getBlockNumber(),
      client.getBalance({ address: seed.accounts[0] }),
      client.getTransactionReceipt({ hash: seed.transactions.store }),
    ]);
    assert.equal(chainId, 31337);
    assert.ok(block > 0n);
    assert.ok(balance > 0n);
    assert.equal(receipt.status, 'success');
    const direct = await rpc(url, 'eth_blockNumber', []);
    assert.equal(BigInt(direct.body.result as string), block);
  });
});
