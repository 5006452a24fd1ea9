// Daily credits: the seed's price of each method, the exhausted balance (HTTP 429, -32005), atomic
// debits under concurrency, usage per key/method/day, balances surviving a restart, and the
// configurable price of pass-through methods.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type EvmSeed, PorticoDemo } from '@portico/devchain';
import { nextUtcMidnight, utcDay } from '@portico/gateway';
import { tempDir } from '@portico/testkit';
import { encodeFunctionData, type Hex } from 'viem';
import { gatewayFor, post, remaining, rpc, type Stack, startStack } from './harness.ts';

const ADMIN_TOKEN = 'credits-test-admin-token';

let stack: Stack;
let seed: EvmSeed;

before(async () => {
  stack = await startStack({ adminToken: ADMIN_TOKEN });
  seed = stack.seed!;
});
after(async () => {
  await stack?.close();
});

async function newKey(dailyCredits: number) {
  const { key, record } = await stack.gateway.keys.create({ name: `credits-${dailyCredits}`, dailyCredits });
  return { key, record, url: stack.url(key) };
}

/** One valid call of each of the nine methods, with the seed's price. */
function nineMethods(blockHash: Hex): [string, unknown[], number][] {
  const busy = `0x${seed.busyBlock.toString(16)}`;
  const valueCall = encodeFunctionData({ abi: PorticoDemo.abi, functionName: 'value' });
  return [
    ['eth_getBlockByHash', [blockHash, false], 80],
    ['eth_getBlockByNumber', ['latest', true], 80],
    ['eth_getUncleByBlockNumberAndIndex', ['latest', '0x0'], 150],
    ['eth_getTransactionByBlockNumberAndIndex', [busy, '0x1'], 150],
    ['eth_getTransactionByHash', [seed.transactions.store], 80],
    ['eth_getTransactionReceipt', [seed.transactions.failed], 80],
    ['eth_getBlockReceipts', [busy], 1000],
    ['eth_call', [{ to: seed.demoContract, data: valueCall }, 'latest'], 80],
    ['eth_estimateGas', [{ from: seed.accounts[0], to: seed.accounts[1], value: '0x1' }], 300],
  ];
}

describe('prices', () => {
  test("each of the nine methods costs exactly the seed's credits", async () => {
    const { url, record } = await newKey(1_000_000);
    const block = await rpc(stack.anvil.url, 'eth_getBlockByNumber', [
      `0x${seed.busyBlock.toString(16)}`,
      false,
    ]);
    let balance = 1_000_000;
    for (const [method, params, cost] of nineMethods((block.body.result as { hash: Hex }).hash)) {
      const reply = await rpc(url, method, params);
      assert.equal(reply.status, 200, reply.text);
      assert.ok('result' in reply.body, `${method}: ${reply.text}`);
      balance -= cost;
      assert.equal(remaining(reply), balance, `${method} costs ${cost}`);
      assert.match(reply.headers.get('x-credits-reset') ?? '', /T00:00:00\.000Z$/);
    }
    assert.equal(await stack.gateway.ledger.spent(record.id), 1_000_000 - balance);
    assert.equal(1_000_000 - balance, 80 + 80 + 150 + 150 + 80 + 80 + 1000 + 80 + 300);
  });

  test('a revert is served and charged like any answer', async () => {
    const { url } = await newKey(1000);
    const reply = await rpc(url, 'eth_call', [
      {
        to: seed.demoContract,
        data: encodeFunctionData({ abi: PorticoDemo.abi, functionName: 'failWithReason' }),
      },
      'latest',
    ]);
    assert.equal(reply.body.error?.code, 3);
    assert.equal(remaining(reply), 920);
  });

  test('pass-through methods cost 80 by default; passthroughCost changes it per network', async () => {
    const { url } = await newKey(10_000);
    let reply = await rpc(url, 'eth_blockNumber', []);
    assert.equal(remaining(reply), 10_000 - 80);
    reply = await rpc(url, 'eth_getBalance', [seed.accounts[0], 'latest']);
    assert.equal(remaining(reply), 10_000 - 160);

    // A gateway whose `local` network prices pass-through at 5, beside a network left at the default.
    const cheap = await gatewayFor(stack.anvil.url, {
      passthroughCost: 5,
      extraNetworks: [{ name: 'other', chainId: 'eip155:31337', upstreams: [stack.anvil.url] }],
    });
    try {
      const { key } = await cheap.keys.create({ name: 'cheap', dailyCredits: 10_000 });
      const cheapUrl = `${cheap.networks[0].baseUrl}/v3/${key}`;
      const otherUrl = `${cheap.networks[1].baseUrl}/v3/${key}`;
      reply = await rpc(cheapUrl, 'eth_blockNumber', []);
      assert.equal(reply.status, 200, reply.text);
      assert.equal(remaining(reply), 10_000 - 5);
      reply = await rpc(cheapUrl, 'eth_getBlockByNumber', ['latest', false]);
      assert.equal(remaining(reply), 10_000 - 5 - 80, 'the seed table is not changed by passthroughCost');
      reply = await rpc(otherUrl, 'eth_blockNumber', []);
      assert.equal(remaining(reply), 10_000 - 85 - 80, 'the other network keeps the default 80');
    } finally {
      await cheap.close();
    }
  });
});

describe('an exhausted balance', () => {
  test('HTTP 429, -32005, says the daily limit is reached and when it resets; costs nothing', async () => {
    const { url, record } = await newKey(400);
    const startedAt = Date.now();
    const estimate = await rpc(url, 'eth_estimateGas', [{ from: seed.accounts[0], to: seed.accounts[1] }]);
    assert.equal(remaining(estimate), 100);
    const ok = await rpc(url, 'eth_chainId', []);
    assert.equal(remaining(ok), 20);
    const refused = await rpc(url, 'eth_chainId', []);
    assert.equal(refused.status, 429, refused.text);
    const error = refused.body.error!;
    assert.equal(error.code, -32005);
    assert.match(error.message, /daily credit limit/);
    assert.match(error.message, /reached/);
    assert.match(error.message, /resets at 00:00 UTC/);
    // The next 00:00 UTC after the moment of the refusal (a run across midnight names either).
    const reset = (error.data as { resetsAt: string }).resetsAt;
    const possible = [nextUtcMidnight(startedAt), nextUtcMidnight(Date.now())].map((d) => d.toISOString());
    assert.ok(possible.includes(reset), `${reset} is one of ${possible}`);
    assert.ok(error.message.includes(reset), `${error.message} names ${reset}`);
    assert.deepEqual(error.data, { dailyCredits: 400, remaining: 20, cost: 80, resetsAt: reset });
    assert.equal(remaining(refused), 20);
    assert.equal(refused.headers.get('x-credits-reset'), reset);
    assert.equal(await stack.gateway.ledger.spent(record.id), 380, 'a refused request costs nothing');
    assert.equal(typeof refused.body.id, 'number', 'the id is echoed on a 429');
    // Still refused on the next try: the balance only comes back at 00:00 UTC.
    const again = await rpc(url, 'eth_chainId', []);
    assert.equal(again.status, 429);
    assert.equal(await stack.gateway.ledger.spent(record.id), 380);
  });

  test('a key with a zero daily balance is refused every paid method', async () => {
    const { url } = await newKey(0);
    const reply = await rpc(url, 'eth_getBlockByNumber', ['latest', false]);
    assert.equal(reply.status, 429);
    assert.equal(reply.body.error?.code, -32005);
  });
});

describe('concurrency', () => {
  test('300 parallel requests against a balance for exactly 100: exactly 100 served, no overspend', async () => {
    const { url, record } = await newKey(100 * 80);
    const replies = await Promise.all(
      Array.from({ length: 300 }, (_, id) =>
        post(url, { jsonrpc: '2.0', id, method: 'eth_chainId', params: [] }),
      ),
    );
    const served = replies.filter((r) => r.status === 200);
    const refused = replies.filter((r) => r.status === 429);
    assert.equal(served.length, 100);
    assert.equal(refused.length, 200);
    for (const r of served) assert.equal((r.body as { result: string }).result, '0x7a69');
    for (const r of refused) assert.equal((r.body as { error: { code: number } }).error.code, -32005);
    assert.equal(await stack.gateway.ledger.spent(record.id), 8000);
    const balances = served.map((r) => remaining(r)).sort((a, b) => (a ?? 0) - (b ?? 0));
    assert.deepEqual(
      balances,
      Array.from({ length: 100 }, (_, i) => i * 80),
      'every served request saw its own balance',
    );
  });

  test('parallel batches with mixed prices never overspend', async () => {
    const { url, record } = await newKey(5000);
    const batch = [
      { jsonrpc: '2.0', id: 1, method: 'eth_getBlockByNumber', params: ['latest', false] },
      { jsonrpc: '2.0', id: 2, method: 'eth_getUncleByBlockNumberAndIndex', params: ['latest', '0x0'] },
      {
        jsonrpc: '2.0',
        id: 3,
        method: 'eth_estimateGas',
        params: [{ from: seed.accounts[0], to: seed.accounts[1] }],
      },
    ];
    const replies = await Promise.all(Array.from({ length: 20 }, () => post(url, batch)));
    let served = 0;
    for (const reply of replies) {
      for (const item of reply.body as { id: number; result?: unknown; error?: { code: number } }[]) {
        if (item.error) assert.equal(item.error.code, -32005);
        else served += [0, 80, 150, 300][item.id];
      }
    }
    const spent = await stack.gateway.ledger.spent(record.id);
    assert.equal(spent, served, 'exactly the served items were charged');
    assert.ok(spent <= 5000 && spent > 5000 - 300, `spent ${spent}`);
  });
});

describe('usage and persistence', () => {
  test('usage is recorded per key, method and UTC day (admin API)', async () => {
    const { url, record } = await newKey(100_000);
    const dayBefore = utcDay(Date.now());
    await rpc(url, 'eth_getBlockByNumber', ['latest', false]);
    await rpc(url, 'eth_getBlockByNumber', ['earliest', false]);
    await rpc(url, 'eth_getBlockReceipts', ['latest']);
    await rpc(url, 'eth_getBlockByNumber', ['bad', false]);
    const usageUrl = `${stack.gateway.url}/admin/usage?keyId=${record.id}`;
    const refused = await post(usageUrl, undefined, { method: 'GET' });
    assert.equal(refused.status, 401);
    const reply = await post(usageUrl, undefined, {
      method: 'GET',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    assert.equal(reply.status, 200, reply.text);
    const body = reply.body as {
      usage: { keyId: string; day: string; method: string; requests: number; credits: number }[];
      errors: { keyId: string; day: string; code: number; count: number }[];
    };
    // Rows are per UTC day: every row is the day of a call, and the totals per method are exact
    // (a run that crossed 00:00 UTC between the calls splits them over two days, nothing else).
    const callDays = [dayBefore, utcDay(Date.now())];
    for (const row of [...body.usage, ...body.errors]) {
      assert.ok(callDays.includes(row.day), `${row.day} is the day of a call (${callDays})`);
      assert.equal(row.keyId, record.id);
    }
    const totals = (rows: { method: string; requests: number; credits: number }[]) =>
      rows.reduce<Record<string, [number, number]>>((sum, { method, requests, credits }) => {
        const [r, c] = sum[method] ?? [0, 0];
        return Object.assign(sum, { [method]: [r + requests, c + credits] });
      }, {});
    assert.deepEqual(totals(body.usage), { eth_getBlockByNumber: [3, 160], eth_getBlockReceipts: [1, 1000] });
    assert.deepEqual(
      body.errors.map(({ code, count }) => [code, count]),
      [[-32602, 1]],
    );
    // Another key's usage is not mixed in.
    assert.ok(body.usage.every((row) => row.keyId === record.id));
  });

  test("a key's balance survives a gateway restart on the same data dir", async () => {
    const dir = tempDir('portico-restart-');
    try {
      let gateway = await gatewayFor(stack.anvil.url, { dataDir: dir.path });
      const { key, record } = await gateway.keys.create({ name: 'restart', dailyCredits: 10_000 });
      const url = () => `${gateway.networks[0].baseUrl}/v3/${key}`;
      await rpc(url(), 'eth_getBlockReceipts', ['latest']);
      const before = await rpc(url(), 'eth_getBlockByNumber', ['latest', false]);
      assert.equal(remaining(before), 10_000 - 1080);
      await gateway.close();

      gateway = await gatewayFor(stack.anvil.url, { dataDir: dir.path });
      try {
        assert.equal(await gateway.ledger.spent(record.id), 1080);
        const afterRestart = await rpc(url(), 'eth_chainId', []);
        assert.equal(afterRestart.status, 200, 'the key itself survived');
        assert.equal(remaining(afterRestart), 10_000 - 1160);
      } finally {
        await gateway.close();
      }
    } finally {
      dir.cleanup();
    }
  });
});
