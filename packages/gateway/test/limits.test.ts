// eth_getLogs block-range cap and the upstream answer size limit: clear errors, nothing charged.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parseConfig, startGateway } from '../src/index.ts';
import { remaining, rpc, type Stack, startStack } from './harness.ts';

let stack: Stack;
before(async () => {
  stack = await startStack({ seed: true });
});
after(async () => {
  await stack?.close();
});

describe('eth_getLogs block range', () => {
  test('a range within the cap returns the seeded logs', async () => {
    const reply = await rpc(stack.url(stack.key), 'eth_getLogs', [
      { fromBlock: '0x0', toBlock: 'latest', address: stack.seed!.demoContract },
    ]);
    assert.ok(Array.isArray(reply.body.result));
    assert.ok((reply.body.result as unknown[]).length >= 2, 'the deploy and store logs');
  });

  test('a range above the cap is -32602 with the numbers, and costs nothing', async () => {
    const gateway = await limitedGateway({ maxLogsBlockRangeTotal: 100 });
    try {
      const { key } = await gateway.keys.create({ name: 'logs' });
      const url = `${gateway.networks[0].baseUrl}/v3/${key}`;
      const before = remaining(await rpc(url, 'eth_chainId'));
      const reply = await rpc(url, 'eth_getLogs', [{ fromBlock: '0x0', toBlock: '0xc8' }]);
      assert.equal(reply.body.error?.code, -32602);
      assert.match(
        reply.body.error?.message ?? '',
        /block range too large: 201 blocks \(0 to 200\), at most 100 per request \(maxLogsBlockRangeTotal\)/,
      );
      assert.equal(remaining(await rpc(url, 'eth_chainId')), (before ?? 0) - 80);
    } finally {
      await gateway.close();
    }
  });

  test('blockHash cannot be combined with a range', async () => {
    const reply = await rpc(stack.url(stack.key), 'eth_getLogs', [
      { blockHash: `0x${'11'.repeat(32)}`, fromBlock: '0x1' },
    ]);
    assert.equal(reply.body.error?.code, -32602);
    assert.match(reply.body.error?.message ?? '', /blockHash cannot be combined/);
  });
});

function limitedGateway(network: Record<string, unknown>) {
  return startGateway(
    parseConfig({
      port: 0,
      logLevel: 'silent',
      networks: [{ name: 'local', chainId: 'eip155:31337', upstreams: [stack.anvil.url], ...network }],
    }),
  );
}

test('an upstream answer above maxResponseBytes is -32603 with a clear message, refunded', async () => {
  const gateway = await limitedGateway({ maxResponseBytes: 1024 });
  try {
    const { key } = await gateway.keys.create({ name: 'size' });
    const url = `${gateway.networks[0].baseUrl}/v3/${key}`;
    const before = remaining(await rpc(url, 'eth_chainId'));
    const reply = await rpc(url, 'eth_getBlockByNumber', [`0x${stack.seed!.busyBlock.toString(16)}`, true]);
    assert.equal(reply.body.error?.code, -32603);
    assert.match(reply.body.error?.message ?? '', /answer too large: more than 1024 bytes/);
    assert.equal(
      remaining(await rpc(url, 'eth_chainId')),
      (before ?? 0) - 80,
      'the failed call was refunded',
    );
  } finally {
    await gateway.close();
  }
});
