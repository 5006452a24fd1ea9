// Browsers get CORS headers (preflight and answers to requests with an Origin); server-to-server
// calls, which carry no Origin, get none.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { post, type Stack, startStack } from './harness.ts';

let stack: Stack;
before(async () => {
  stack = await startStack({ seed: false });
});
after(async () => {
  await stack?.close();
});

const body = { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] };

test('a preflight allows POST with content-type and authorization from any origin', async () => {
  const response = await fetch(stack.url(stack.key), {
    method: 'OPTIONS',
    headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
  });
  assert.equal(response.status, 204);
  assert.equal(response.headers.get('access-control-allow-origin'), '*');
  assert.match(response.headers.get('access-control-allow-headers') ?? '', /content-type/);
  assert.match(response.headers.get('access-control-allow-methods') ?? '', /POST/);
});

test('an answer to a browser request exposes the credit and cache headers', async () => {
  const reply = await post(stack.url(stack.key), body, { headers: { origin: 'https://app.example' } });
  assert.equal(reply.headers.get('access-control-allow-origin'), '*');
  assert.match(reply.headers.get('access-control-expose-headers') ?? '', /x-credits-remaining/);
});

test('a server-to-server request gets no CORS headers', async () => {
  const reply = await post(stack.url(stack.key), body);
  assert.equal(reply.status, 200);
  assert.equal(reply.headers.get('access-control-allow-origin'), null);
});
