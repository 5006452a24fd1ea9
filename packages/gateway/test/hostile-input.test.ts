// Hostile input from a client with a valid key (issue 12, items 1-4): names of Object.prototype
// members, integers beyond 2^53, deep nesting, oversized batches and parameters the node would
// refuse. Each is answered with a JSON-RPC error object and costs nothing; the process keeps
// serving. Real anvil, real gateway, raw HTTP and WebSocket.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parseConfig } from '@portico/gateway';
import { gatewayFor, post, type RawReply, remaining, type Stack, startStack } from './harness.ts';
import { openRawSocket, wsUrlOf } from './raw-socket.ts';

const ADMIN_TOKEN = 'hostile-input-admin-token-0123456789';
const TO = '0x0000000000000000000000000000000000000001';

/** Every name a lookup by an untrusted name could find on Object.prototype. */
const PROTOTYPE_NAMES = [...Object.getOwnPropertyNames(Object.prototype), '__proto__'];

let stack: Stack;
let url: string;

before(async () => {
  stack = await startStack({ adminToken: ADMIN_TOKEN, dailyCredits: 1_000_000 });
  url = stack.url(stack.key);
});
after(async () => {
  await stack?.close();
});

/** POSTs a body written exactly as given. */
const send = (body: string) => post(url, body);
const request = (method: string, params: string, id = '1') =>
  `{"jsonrpc":"2.0","id":${id},"method":${JSON.stringify(method)},"params":${params}}`;
const spent = async () => stack.gateway.ledger.spent((await stack.gateway.keys.authenticate(stack.key))!.id);

function assertError(reply: RawReply, code: number, message?: RegExp) {
  const body = reply.body as { error?: { code: number; message: string } };
  assert.equal(body.error?.code, code, reply.text);
  if (message) assert.match(body.error?.message ?? '', message);
}

describe('names of Object.prototype members are ordinary unknown names', () => {
  test('a method named constructor (or any Object.prototype member) is unknown (-32601) and costs nothing', async () => {
    const before = await spent();
    for (const name of PROTOTYPE_NAMES) {
      const reply = await send(request(name, '[]'));
      assert.equal(reply.status, 200, name);
      assertError(reply, -32601, new RegExp(`${name} is not served on network local`));
      assert.equal(
        reply.headers.get('x-credits-remaining'),
        null,
        `${name}: nothing charged, no balance shown`,
      );
    }
    assert.equal(await spent(), before);
    // The usage flush that used to die on a NaN credit count still works, and records no credits.
    await stack.gateway.usage.flush();
    const usage = await stack.gateway.usage.usage({});
    assert.ok(usage.every((row) => Number.isInteger(row.credits)));
  });

  test('a method name of 100 kB is unknown (-32601) and is not echoed back whole', async () => {
    const reply = await send(request('x'.repeat(100_000), '[]'));
    assertError(reply, -32601, /^Method not found: x{100}… is not served on network local$/);
  });

  test('a key with no credits left stays refused after a prototype-named call', async () => {
    const { key } = await stack.gateway.keys.create({ name: 'exhausted', dailyCredits: 80 });
    const keyUrl = stack.url(key);
    assert.equal(remaining(await post(keyUrl, request('eth_chainId', '[]'))), 0);
    await post(keyUrl, request('constructor', '[]'));
    const refused = await post(keyUrl, request('eth_chainId', '[]'));
    assert.equal(refused.status, 429);
    assert.equal(remaining(refused), 0);
  });

  test('over WebSocket, prototype-named methods are unknown (-32601) like over HTTP', async () => {
    const before = await spent();
    const socket = await openRawSocket(wsUrlOf(url));
    try {
      for (const name of ['constructor', '__proto__', 'hasOwnProperty', 'toString', 'valueOf']) {
        const answer = JSON.parse(await socket.exchange(request(name, '[]', '7')));
        assert.equal(answer.id, 7);
        assert.equal(answer.error?.code, -32601, name);
        assert.match(answer.error?.message, /is not served on network local/);
      }
    } finally {
      await socket.close();
    }
    assert.equal(await spent(), before);
  });

  test('a call object member named after an Object.prototype member is an unknown member (-32602), not a 500', async () => {
    const before = await spent();
    for (const method of ['eth_call', 'eth_estimateGas']) {
      for (const name of PROTOTYPE_NAMES) {
        const call = `{"to":"${TO}",${JSON.stringify(name)}:"x"}`;
        const reply = await send(request(method, `[${call},"latest"]`));
        assert.equal(reply.status, 200, `${method} ${name}: ${reply.text}`);
        assertError(reply, -32602, /unknown member/);
      }
    }
    assert.equal(await spent(), before);
  });

  test('the admin API refuses settings named after Object.prototype members with 400', async () => {
    const { record } = await stack.gateway.keys.create({ name: 'settings' });
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      const reply = await post(
        `${stack.gateway.url}/admin/keys/${record.id}`,
        `{"settings":{${JSON.stringify(name)}:[]}}`,
        { method: 'PATCH', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } },
      );
      assert.equal(reply.status, 400, `${name}: ${reply.text}`);
      assert.match((reply.body as { error: { message: string } }).error.message, /is unknown/);
    }
  });
});

describe('exact JSON at the edge', () => {
  test('an id of 12345678901234567890 is answered with that exact id text, over HTTP and WebSocket', async () => {
    const id = '12345678901234567890';
    const reply = await send(request('eth_chainId', '[]', id));
    assert.equal(reply.status, 200);
    assert.equal(reply.text, `{"jsonrpc":"2.0","id":${id},"result":"0x7a69"}`);
    const batch = await send(`[${request('eth_chainId', '[]', id)},${request('eth_chainId', '[]', '2')}]`);
    assert.match(batch.text, new RegExp(`^\\[\\{"jsonrpc":"2.0","id":${id},`));
    const socket = await openRawSocket(wsUrlOf(url));
    try {
      assert.equal(
        await socket.exchange(request('eth_chainId', '[]', id)),
        `{"jsonrpc":"2.0","id":${id},"result":"0x7a69"}`,
      );
    } finally {
      await socket.close();
    }
  });

  test('ids of hundreds and thousands of digits are echoed byte for byte, answered or refused', async () => {
    for (const id of ['9'.repeat(300), `-${'1'.repeat(700)}`, '7'.repeat(5000), `1${'0'.repeat(400)}.5e-3`]) {
      const reply = await send(request('eth_chainId', '[]', id));
      assert.equal(reply.text, `{"jsonrpc":"2.0","id":${id},"result":"0x7a69"}`);
      const batch = await send(`[${request('eth_chainId', '[]', id)}]`);
      assert.equal(batch.text, `[{"jsonrpc":"2.0","id":${id},"result":"0x7a69"}]`);
      const refused = await send(request('eth_getBlockByHash', '[1,false]', id));
      assert.ok(refused.text.startsWith(`{"jsonrpc":"2.0","id":${id},"error":{"code":-32602,`), refused.text);
      const deep = await send(request('eth_getBalance', `[${'['.repeat(100)}${']'.repeat(100)}]`, id));
      assert.ok(deep.text.startsWith(`{"jsonrpc":"2.0","id":${id},"error":{"code":-32600,`), deep.text);
    }
  });

  test('a body refused for its depth carries its id when the id can be read, else null', async () => {
    const deep = `[${'['.repeat(100)}${']'.repeat(100)}]`;
    for (const [id, echoed] of [
      ['"abc"', '"abc"'],
      ['"a\\"b"', '"a\\"b"'],
      ['null', 'null'],
      ['12345678901234567890', '12345678901234567890'],
      ['{"x":1}', 'null'],
      ['true', 'null'],
    ]) {
      const reply = await send(request('eth_getBalance', deep, id));
      assert.equal(reply.status, 400);
      assert.ok(
        reply.text.startsWith(`{"jsonrpc":"2.0","id":${echoed},"error":{"code":-32600,`),
        `${id}: ${reply.text}`,
      );
    }
    // The id after the deep member is read too; a batch has no single id.
    const after = await send(`{"jsonrpc":"2.0","method":"eth_getBalance","params":${deep},"id":"late"}`);
    assert.ok(after.text.startsWith('{"jsonrpc":"2.0","id":"late",'), after.text);
    const batch = await send(`[${request('eth_getBalance', deep, '5')}]`);
    assert.ok(batch.text.startsWith('{"jsonrpc":"2.0","id":null,'), batch.text);
  });

  test('ids written as 1.0, 1e3, -0 and 1E+2 come back as written', async () => {
    for (const id of ['1.0', '1e3', '-0', '1E+2', '0.50']) {
      const reply = await send(request('eth_chainId', '[]', id));
      assert.ok(reply.text.startsWith(`{"jsonrpc":"2.0","id":${id},`), reply.text);
    }
  });

  test('an integer beyond 2^53 in a checked parameter is -32602 naming the parameter, not a 500', async () => {
    const before = await spent();
    const reply = await send(request('eth_getBlockByHash', '[12345678901234567890,false]'));
    assert.equal(reply.status, 200);
    assertError(reply, -32602, /block hash must be a 32-byte hex string.*got number 12345678901234567890/);
    for (const [method, params] of [
      ['eth_getBlockByNumber', '[12345678901234567890,false]'],
      ['eth_call', `[{"to":"${TO}","value":12345678901234567890},"latest"]`],
      ['eth_call', `[{"to":"${TO}"},"latest",12345678901234567890]`],
    ]) {
      assertError(await send(request(method, params)), -32602);
    }
    assert.equal(await spent(), before);
  });
});

describe('bounded parsing', () => {
  const deep = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

  test('arrays nested 5,000 deep in pass-through params are refused with -32600 (maxJsonDepth) and cost nothing', async () => {
    const before = await spent();
    const reply = await send(request('eth_getBalance', `[${deep(5000)}]`));
    assert.equal(reply.status, 400);
    assertError(reply, -32600, /deeper than 64 levels \(the gateway's maxJsonDepth\)/);
    assert.equal((reply.body as { id: unknown }).id, 1, 'the refusal carries the id it could read');
    assert.equal(await spent(), before);
    // The process keeps serving.
    assert.equal((await send(request('eth_chainId', '[]'))).status, 200);
  });

  test('a body nested exactly maxJsonDepth deep is read; one level more is refused', async () => {
    // The request object is level 1 and params level 2: 62 more levels reach 64.
    const within = await send(request('eth_getBalance', `[${deep(62)}]`));
    assert.doesNotMatch(within.text, /maxJsonDepth/);
    const beyond = await send(request('eth_getBalance', `[${deep(63)}]`));
    assertError(beyond, -32600, /maxJsonDepth/);
  });

  test('maxJsonDepth sets the limit (8 to 512 levels)', async () => {
    const gateway = await gatewayFor(stack.anvil.url, { maxJsonDepth: 8 });
    try {
      const { key } = await gateway.keys.create({ name: 'depth' });
      const shallow = `${gateway.networks[0].baseUrl}/v3/${key}`;
      assert.equal((await post(shallow, request('eth_chainId', `[${deep(6)}]`))).status, 200);
      assertError(
        await post(shallow, request('eth_chainId', `[${deep(7)}]`)),
        -32600,
        /deeper than 8 levels/,
      );
    } finally {
      await gateway.close();
    }
    const config = (maxJsonDepth: number) => () =>
      parseConfig({ maxJsonDepth, networks: [{ name: 'a', chainId: 'eip155:1', upstreams: ['http://x'] }] });
    assert.throws(config(4), /maxJsonDepth/);
    assert.throws(config(1000), /maxJsonDepth/);
    assert.equal(config(128)().maxJsonDepth, 128);
  });

  test('a 510 kB batch of 170,000 {} items is refused with 413 -32014 before its items are parsed', async () => {
    const body = `[${Array(170_000).fill('{}').join(',')}]`;
    const before = await spent();
    const reply = await send(body);
    assert.equal(reply.status, 413);
    // "more than 100": the scan stopped at item 101 and never learned how many there were.
    assertError(reply, -32014, /batch too large: more than 100 requests, at most 100/);
    assert.equal(await spent(), before);
    const socket = await openRawSocket(wsUrlOf(url));
    try {
      const answer = JSON.parse(await socket.exchange(body));
      assert.equal(answer.error?.code, -32014);
      const deepAnswer = JSON.parse(await socket.exchange(request('eth_getBalance', `[${deep(5000)}]`)));
      assert.equal(deepAnswer.error?.code, -32600);
    } finally {
      await socket.close();
    }
  });
});

describe('parameters the node would refuse cost nothing', () => {
  /** Sends a body; asserts a -32602 and that the balance did not move. */
  async function refusedFree(body: string, message?: RegExp) {
    const before = await spent();
    const reply = await send(body);
    assert.equal(reply.status, 200, reply.text);
    assertError(reply, -32602, message);
    assert.equal(await spent(), before, `nothing charged for ${body}`);
    return reply;
  }

  test('a 40-hex-digit block number is -32602 and costs nothing; a u64 block beyond the head answers null', async () => {
    await refusedFree(request('eth_getBlockByNumber', `["0x${'f'.repeat(40)}",false]`), /at most 64 bits/);
    const beyond = await send(request('eth_getBlockByNumber', `["0x${'f'.repeat(16)}",false]`));
    assert.equal((beyond.body as { result: unknown }).result, null);
  });

  test('eth_getBlockReceipts with a 65-digit number is -32602 and costs nothing (decimal, hex or JSON number)', async () => {
    await refusedFree(request('eth_getBlockReceipts', `["${'9'.repeat(65)}"]`), /at most 2\^64-1/);
    await refusedFree(request('eth_getBlockReceipts', `["0x${'9'.repeat(65)}"]`));
    await refusedFree(request('eth_getBlockReceipts', `[${'9'.repeat(65)}]`), /got number 9{65}/);
    // A JSON number within u64 is a block number like any other (sent upstream as hex).
    const within = await send(request('eth_getBlockReceipts', '[18446744073709551615]'));
    assert.equal((within.body as { result: unknown }).result, null);
  });

  test('an index beyond u64 is -32602 and costs nothing', async () => {
    await refusedFree(request('eth_getTransactionByBlockNumberAndIndex', `["0x1","0x${'f'.repeat(17)}"]`));
    await refusedFree(request('eth_getUncleByBlockNumberAndIndex', `["0x1","0x1${'0'.repeat(16)}"]`));
  });

  test('eth_estimateGas with a 40-digit gasPrice is -32602 and costs nothing', async () => {
    await refusedFree(
      request('eth_estimateGas', `[{"to":"${TO}","gasPrice":"0x${'f'.repeat(40)}"}]`),
      /gasPrice must be a hex quantity of at most 128 bits/,
    );
  });

  test('an eth_call block override with an odd number of digits is -32602 and costs nothing', async () => {
    await refusedFree(
      request('eth_call', `[{"to":"${TO}"},"latest",{},{"prevRandao":"0x123"}]`),
      /block override\.prevRandao/,
    );
    await refusedFree(request('eth_call', `[{"to":"${TO}"},"latest",{"${TO}":{"code":"0x123"}}]`), /\.code/);
  });

  test('a number a double cannot hold is refused before forwarding, in any parameter of any method', async () => {
    for (const body of [
      request('eth_getBalance', `["${TO}",12345678901234567890]`),
      request('net_version', '[{"minContextSlot":12345678901234567890}]'),
      request('net_version', '[[1,{"a":[-99999999999999999999]}]]'),
    ]) {
      await refusedFree(body, /beyond 2\^53 and cannot be passed on exactly/);
    }
    // One the rules write as hex is not refused: it reaches the node exactly.
    const within = await send(request('eth_getBlockReceipts', '[18446744073709551615]'));
    assert.equal((within.body as { result: unknown }).result, null);
  });

  test('a number with a fraction or an exponent that a double would change is refused before forwarding, free', async () => {
    for (const [body, read] of [
      // Forwarded as 25 (before this was refused, the key paid 80 for it).
      [request('eth_feeHistory', '["0x2","latest",[25.00000000000000000001,75]]'), /params\[2\]\[0\]/],
      // Forwarded, these were null, 0 and a rounded number: another request than the one sent.
      [request('net_version', '[1e400]'), /cannot be passed on exactly \(a double reads it as Infinity\)/],
      [
        request('net_version', '[{"minContextSlot":-1e-400}]'),
        /params\[0\]\.minContextSlot: the number -1e-400 /,
      ],
      [
        request('eth_getBalance', `["${TO}",{"blockNumber":1.2345678901234567890e19}]`),
        /1\.2345678901234567890e19/,
      ],
    ] as const) {
      await refusedFree(body, read);
    }
    // Numbers a double keeps, however they are written, go on as before.
    const history = await send(request('eth_feeHistory', '["0x2","latest",[2.5e1,75.0]]'));
    assert.ok(Array.isArray((history.body as { result: { reward: unknown[] } }).result.reward), history.text);
  });

  test("the node's refusals of the issue's bodies are free, alone and in a batch, and the header says so", async () => {
    const { key, record } = await stack.gateway.keys.create({ name: 'node-refusals', dailyCredits: 10_000 });
    const keyUrl = stack.url(key);
    const bodies = [
      // anvil: max_priority_fee_per_gas greater than max_fee_per_gas (-32602)
      request('eth_call', `[{"to":"${TO}","maxPriorityFeePerGas":"0x10"},"latest"]`),
      // anvil: BlockOutOfRangeError as -32602
      request('eth_estimateGas', `[{"to":"${TO}"},"0xffffffffffffffff"]`, '2'),
    ];
    for (const body of [...bodies, `[${bodies.join(',')}]`]) {
      const reply = await post(keyUrl, body);
      assert.equal(reply.status, 200, reply.text);
      for (const answer of [reply.body].flat() as { error?: { code: number } }[])
        assert.equal(answer.error?.code, -32602, reply.text);
      assert.equal(remaining(reply), 10_000, `nothing charged, and the header says so: ${body}`);
    }
    assert.equal(await stack.gateway.ledger.spent(record.id), 0);
  });

  test('a parameter error from the node is refunded and recorded with its code and no credits', async () => {
    const { key, record } = await stack.gateway.keys.create({ name: 'backstop', dailyCredits: 10_000 });
    const keyUrl = stack.url(key);
    // Pass-through methods have no rules: the node judges their parameters.
    const refused = [
      request('eth_getBalance', '["0x12","latest"]'),
      request('eth_getBalance', `["${TO}","0xzz"]`),
      // A ruled method whose rule accepts what anvil refuses (a range beyond its head).
      request('eth_getLogs', `[{"fromBlock":"0x${'f'.repeat(16)}","toBlock":"0x${'f'.repeat(16)}"}]`),
    ];
    for (const body of refused) {
      const reply = await post(keyUrl, body);
      assert.equal(reply.status, 200, reply.text);
      assertError(reply, -32602);
      assert.equal(remaining(reply), 10_000, `refunded: ${reply.text}`);
    }
    const socket = await openRawSocket(wsUrlOf(keyUrl));
    try {
      assert.equal(JSON.parse(await socket.exchange(refused[0])).error?.code, -32602);
    } finally {
      await socket.close();
    }
    assert.equal(await stack.gateway.ledger.spent(record.id), 0);
    const usage = await stack.gateway.usage.usage({ keyId: record.id });
    assert.deepEqual(
      usage.map(({ method, requests, credits, refused }) => ({ method, requests, credits, refused })),
      [
        { method: 'eth_getBalance', requests: 3, credits: 0, refused: 3 },
        { method: 'eth_getLogs', requests: 1, credits: 0, refused: 1 },
      ],
    );
    const errors = await stack.gateway.usage.errors({ keyId: record.id });
    assert.deepEqual(
      errors.map(({ code, count }) => ({ code, count })),
      [{ code: -32602, count: 4 }],
    );
  });
});
