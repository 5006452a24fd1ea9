// The JSON-RPC protocol and every error row the gateway answers itself: ids echoed exactly,
// notifications, parse errors, invalid requests, unknown methods, HTTP-level refusals, keys, and an
// upstream that is down. After each, the gateway keeps serving.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import type { ApiKeyRecord } from '@portico/gateway';
import { closedPort, post, type RawReply, remaining, rpc, type Stack, startStack } from './harness.ts';

let stack: Stack;
let url: string;
let record: ApiKeyRecord;
let downPort: number;

const DAILY = 1_000_000;
const MAX_BODY = 2048;

before(async () => {
  downPort = await closedPort();
  stack = await startStack({
    seed: false,
    dailyCredits: DAILY,
    maxBodyBytes: MAX_BODY,
    extraNetworks: [
      { name: 'down', chainId: 'eip155:31337', upstreams: [`http://127.0.0.1:${downPort}/secret-path`] },
    ],
  });
  url = stack.url(stack.key);
  record = (await stack.gateway.keys.authenticate(stack.key))!;
});
after(async () => {
  await stack?.close();
});

type ErrorBody = { jsonrpc: string; id: unknown; error: { code: number; message: string; data?: unknown } };

/** After every error case the gateway still answers a plain request. */
afterEach(async () => {
  const reply = await rpc(url, 'eth_chainId');
  assert.equal(reply.status, 200, `the gateway keeps serving: ${reply.text}`);
  assert.equal(reply.body.result, '0x7a69');
});

function expectError(reply: RawReply, status: number, code: number, message?: RegExp): ErrorBody {
  assert.equal(reply.status, status, reply.text);
  assert.match(reply.headers.get('content-type') ?? '', /application\/json/);
  const body = reply.body as ErrorBody;
  assert.equal(body.jsonrpc, '2.0');
  assert.equal(body.error.code, code, reply.text);
  if (message) assert.match(body.error.message, message);
  assert.equal('result' in body, false);
  return body;
}

describe('ids', () => {
  for (const id of [0, 1.5, 'abc', '', null, Number.MAX_SAFE_INTEGER, -7, '0x1']) {
    test(`id ${JSON.stringify(id)} is echoed exactly`, async () => {
      const reply = await post(url, { jsonrpc: '2.0', id, method: 'eth_chainId', params: [] });
      assert.equal(reply.status, 200);
      assert.deepEqual(reply.body, { jsonrpc: '2.0', id, result: '0x7a69' });
      // Byte for byte: the id is not re-typed (1.5 stays 1.5, "abc" stays a string).
      assert.ok(reply.text.includes(`"id":${JSON.stringify(id)}`), reply.text);
    });
  }

  test('the id of an error answer is echoed too', async () => {
    const reply = await post(url, {
      jsonrpc: '2.0',
      id: 'err-1',
      method: 'eth_getBlockByNumber',
      params: [],
    });
    assert.equal((reply.body as ErrorBody).id, 'err-1');
    assert.equal((reply.body as ErrorBody).error.code, -32602);
  });
});

describe('notifications', () => {
  test('a notification gets no answer (204) but is processed and charged', async () => {
    const spent = await stack.gateway.ledger.spent(record.id);
    const reply = await post(url, { jsonrpc: '2.0', method: 'eth_chainId', params: [] });
    assert.equal(reply.status, 204);
    assert.equal(reply.text, '');
    assert.equal(await stack.gateway.ledger.spent(record.id), spent + 80, 'the notification was served');
    assert.equal(remaining(reply), DAILY - spent - 80);
  });

  test('a notification with bad parameters gets no answer either and costs nothing', async () => {
    const spent = await stack.gateway.ledger.spent(record.id);
    const reply = await post(url, {
      jsonrpc: '2.0',
      method: 'eth_getBlockByNumber',
      params: ['nope', false],
    });
    assert.equal(reply.status, 204);
    assert.equal(reply.text, '');
    assert.equal(await stack.gateway.ledger.spent(record.id), spent);
  });
});

describe('malformed bodies', () => {
  for (const text of ['{"jsonrpc":"2.0","id":1,"method":"eth_chainId"', 'not json', '', '{"a":1}}']) {
    test(`unparseable body ${JSON.stringify(text)}: -32700, HTTP 400, id null`, async () => {
      const reply = await post(url, text);
      const body = expectError(reply, 400, -32700, /Parse error/);
      assert.equal(body.id, null);
    });
  }

  const shapes: [string, unknown, unknown][] = [
    ['a number', 42, null],
    ['a string', '"eth_chainId"', null],
    ['null', null, null],
    ['no jsonrpc', { id: 1, method: 'eth_chainId', params: [] }, 1],
    ['jsonrpc 1.0', { jsonrpc: '1.0', id: 2, method: 'eth_chainId', params: [] }, 2],
    ['no method', { jsonrpc: '2.0', id: 3, params: [] }, 3],
    ['an empty method', { jsonrpc: '2.0', id: 4, method: '', params: [] }, 4],
    ['a numeric method', { jsonrpc: '2.0', id: 5, method: 7, params: [] }, 5],
    ['params as a string', { jsonrpc: '2.0', id: 6, method: 'eth_chainId', params: 'x' }, 6],
    ['an object id', { jsonrpc: '2.0', id: { a: 1 }, method: 'eth_chainId', params: [] }, null],
    ['an array id', { jsonrpc: '2.0', id: [1], method: 'eth_chainId', params: [] }, null],
  ];
  for (const [name, body, id] of shapes) {
    test(`invalid request (${name}): -32600`, async () => {
      const reply = await post(url, typeof body === 'string' ? body : JSON.stringify(body));
      const answer = expectError(reply, 400, -32600, /Invalid request/);
      assert.deepEqual(answer.id, id);
    });
  }

  test('an empty batch: -32600', async () => {
    expectError(await post(url, '[]'), 400, -32600, /empty batch/);
  });

  test('invalid requests cost nothing', async () => {
    const spent = await stack.gateway.ledger.spent(record.id);
    await post(url, 'not json');
    await post(url, { jsonrpc: '1.0', id: 1, method: 'eth_chainId' });
    await post(url, '[]');
    assert.equal(await stack.gateway.ledger.spent(record.id), spent);
  });
});

describe('methods', () => {
  test('an unknown method: -32601 naming it, free', async () => {
    const spent = await stack.gateway.ledger.spent(record.id);
    const reply = await rpc(url, 'eth_doesNotExist', []);
    const body = expectError(reply, 200, -32601, /eth_doesNotExist/);
    assert.equal(typeof body.id, 'number');
    assert.equal(await stack.gateway.ledger.spent(record.id), spent);
  });

  test('an anvil-only method is not passed through', async () => {
    expectError(await rpc(url, 'anvil_mine', ['0x1']), 200, -32601);
    expectError(await rpc(url, 'eth_sendTransaction', [{}]), 200, -32601);
  });
});

describe('HTTP-level refusals', () => {
  test('a body above maxBodyBytes: HTTP 413', async () => {
    const big = { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: ['x'.repeat(MAX_BODY * 2)] };
    expectError(await post(url, big), 413, -32021, /too large/);
  });

  test('a body above maxBodyBytes sent chunked (no content-length): HTTP 413', async () => {
    const chunk = new TextEncoder().encode(`[${'"xxxxxxxxxxxxxxxx",'.repeat(200)}1]`);
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(chunk);
        controller.close();
      },
    });
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    assert.equal(response.status, 413);
    assert.equal(((await response.json()) as ErrorBody).error.code, -32021);
  });

  test('a wrong content type: HTTP 415', async () => {
    const reply = await post(url, '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}', {
      headers: { 'content-type': 'text/plain' },
    });
    expectError(reply, 415, -32600, /Content-Type must be application\/json/);
  });

  test('GET: HTTP 405 with Allow', async () => {
    const reply = await post(url, undefined, { method: 'GET' });
    expectError(reply, 405, -32600, /POST/);
    assert.match(reply.headers.get('allow') ?? '', /POST/);
  });

  test('a path outside every network: HTTP 404', async () => {
    expectError(
      await post(`${stack.gateway.url}/nowhere/v3/${stack.key}`, {
        jsonrpc: '2.0',
        id: 1,
        method: 'eth_chainId',
      }),
      404,
      -32600,
    );
  });
});

describe('keys', () => {
  const call = { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] };

  test('a missing key: HTTP 401 JSON-RPC error', async () => {
    for (const path of ['/v3', '/v3/']) {
      const reply = await post(`${stack.gateway.networks[0].baseUrl}${path}`, call);
      expectError(reply, 401, -32016, /API key required/);
    }
  });

  test('an unknown key: HTTP 401', async () => {
    expectError(
      await post(stack.url('0123456789abcdef0123456789abcdef'), call),
      401,
      -32016,
      /invalid API key/,
    );
    expectError(await post(stack.url('x'.repeat(500)), call), 401, -32016, /invalid API key/);
  });

  test('a revoked key: HTTP 401, other keys unaffected', async () => {
    const { key, record: revoked } = await stack.gateway.keys.create({ name: 'to revoke' });
    assert.equal((await post(stack.url(key), call)).status, 200);
    await stack.gateway.keys.revoke(revoked.id);
    expectError(await post(stack.url(key), call), 401, -32016, /invalid API key/);
    assert.equal(await stack.gateway.ledger.spent(revoked.id), 80, 'the refused request cost nothing');
  });

  test('a key path with a malformed %-escape: HTTP 401, not a gateway failure', async () => {
    for (const bad of ['%E0%A4%A', '%', 'abc%zz']) {
      const reply = await post(`${stack.gateway.networks[0].baseUrl}/v3/${bad}`, call);
      expectError(reply, 401, -32016, /invalid API key/);
    }
  });

  test('a bad key is refused before the body is even parsed', async () => {
    expectError(await post(stack.url('0123456789abcdef0123456789abcdef'), 'not json'), 401, -32016);
  });
});

describe('an upstream that is down', () => {
  test('-32603 without the upstream address, credits refunded', async () => {
    const downUrl = `${stack.gateway.networks[1].baseUrl}/v3/${stack.key}`;
    const spent = await stack.gateway.ledger.spent(record.id);
    for (const [method, params] of [
      ['eth_getBlockByNumber', ['latest', false]],
      ['eth_chainId', []],
      ['eth_getTransactionReceipt', [`0x${'11'.repeat(32)}`]],
    ] as const) {
      const reply = await rpc(downUrl, method, [...params]);
      assert.ok(reply.status >= 500, `HTTP ${reply.status}`);
      const body = expectError(reply, reply.status, -32603);
      assert.equal(typeof body.id, 'number');
      assert.doesNotMatch(reply.text, new RegExp(String(downPort)), 'no upstream port in the answer');
      assert.doesNotMatch(reply.text, /127\.0\.0\.1|secret-path|ECONNREFUSED/);
      assert.equal(remaining(reply), DAILY - spent, 'the balance shown is the refunded one');
    }
    assert.equal(await stack.gateway.ledger.spent(record.id), spent, 'every credit was refunded');
  });

  test('in a batch: each failed item refunded', async () => {
    const downUrl = `${stack.gateway.networks[1].baseUrl}/v3/${stack.key}`;
    const spent = await stack.gateway.ledger.spent(record.id);
    const reply = await post(downUrl, [
      { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] },
      { jsonrpc: '2.0', id: 2, method: 'eth_getBlockByNumber', params: ['latest', false] },
    ]);
    const body = reply.body as ErrorBody[];
    assert.equal(body.length, 2);
    for (const item of body) assert.equal(item.error.code, -32603);
    assert.doesNotMatch(reply.text, /127\.0\.0\.1|secret-path/);
    assert.equal(await stack.gateway.ledger.spent(record.id), spent);
  });
});
