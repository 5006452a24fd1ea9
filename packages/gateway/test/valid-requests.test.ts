// Over-rejection oracle over HTTP: requests valid by the execution-apis schemas go through the whole
// gateway (body scan, exact numbers, key settings, parameter rules, tag pinning, the node) and are
// compared with what anvil answers to the same request sent to it directly. The gateway may refuse
// with -32602 only what the node refuses as invalid too (-32602), and such a refusal is free.
// Checked to fail: a tip equal to the fee cap refused (`>` → `>=` in params.ts) is caught at once. The in-process oracle
// (src/methods/evm/valid-params.test.ts) sees the rules alone; this one also sees what the
// transport and the forward stage do to a valid request.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { remaining, rpc, type Stack, startStack } from './harness.ts';
import { validParams } from './valid-params.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 20261127);
const RUNS = Number(process.env.FUZZ_RUNS ?? 40);
/** anvil's default block gas limit. */
const BLOCK_GAS_LIMIT = 30_000_000n;
const DAILY_CREDITS = 1_000_000_000;

let stack: Stack;
let url: string;
let arbitraries: Record<string, fc.Arbitrary<unknown[]>>;

before(async () => {
  stack = await startStack({ dailyCredits: DAILY_CREDITS });
  url = stack.url(stack.key);
  const head = Number.parseInt((await rpc(stack.anvil.url, 'eth_blockNumber')).body.result as string, 16);
  // Around the real head: some block numbers name mined blocks, some lie beyond the head.
  arbitraries = validParams({ head: head + 8, blockGasLimit: BLOCK_GAS_LIMIT, maxLogsRange: 64 });
});

after(async () => {
  await stack?.close();
});

const METHODS = [
  'eth_getBlockByHash',
  'eth_getBlockByNumber',
  'eth_getUncleByBlockNumberAndIndex',
  'eth_getTransactionByBlockNumberAndIndex',
  'eth_getTransactionByHash',
  'eth_getTransactionReceipt',
  'eth_getBlockReceipts',
  'eth_call',
  'eth_estimateGas',
  'eth_getLogs',
];

describe('valid requests over HTTP, against anvil answering the same request', () => {
  test('the oracle draws every method it names', () => {
    assert.deepEqual(Object.keys(arbitraries).sort(), [...METHODS].sort());
  });

  for (const method of METHODS) {
    test(`${method}: the gateway refuses with -32602 only what the node refuses, and charges nothing for it`, async () => {
      let refusedByBoth = 0;
      await fc.assert(
        fc.asyncProperty(arbitraries[method], async (params) => {
          const before = remaining(await rpc(url, 'eth_chainId'));
          const viaGateway = await rpc(url, method, params);
          assert.ok(
            viaGateway.status < 500,
            `${method} ${JSON.stringify(params)}: HTTP ${viaGateway.status}`,
          );
          const error = viaGateway.body.error;
          if (error?.code !== -32602) return;
          const direct = await rpc(stack.anvil.url, method, params);
          assert.equal(
            direct.body.error?.code,
            -32602,
            `${method} refused valid ${JSON.stringify(params)} ("${error.message}"), which the node does not refuse as invalid (${JSON.stringify(direct.body.error ?? 'a result')})`,
          );
          refusedByBoth++;
          const after = remaining(await rpc(url, 'eth_chainId'));
          assert.equal(
            after,
            (before ?? 0) - 80,
            `${method}: a refusal is free (only the eth_chainId after it is charged)`,
          );
        }),
        { seed: SEED, numRuns: RUNS },
      );
      // Not an assertion on the node: a count in the log says how much of the oracle was exercised.
      if (refusedByBoth > 0)
        console.log(`${method}: ${refusedByBoth} of ${RUNS} refused by node and gateway alike`);
    });
  }
});
