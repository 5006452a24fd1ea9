// Usage rows are per method name, so names the network does not serve must not each get a row:
// a client inventing methods could otherwise grow the usage table without bound.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { rpc, type Stack, startStack } from './harness.ts';

let stack: Stack;
before(async () => {
  stack = await startStack({ seed: false });
});
after(async () => {
  await stack?.close();
});

test('unknown methods share one usage row and cost nothing', async () => {
  const url = stack.url(stack.key);
  for (let i = 0; i < 20; i++) assert.equal((await rpc(url, `made_up_${i}`)).body.error?.code, -32601);
  await rpc(url, 'eth_chainId');
  const rows = await stack.gateway.usage.usage({});
  const methods = rows.map((row) => row.method).sort();
  assert.deepEqual(methods, ['(unknown method)', 'eth_chainId']);
  const unknown = rows.find((row) => row.method === '(unknown method)')!;
  assert.equal(unknown.requests, 20);
  assert.equal(unknown.credits, 0);
  const errors = await stack.gateway.usage.errors({});
  assert.equal(errors.find((row) => row.code === -32601)?.count, 20);
});
