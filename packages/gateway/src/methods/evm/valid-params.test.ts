// Over-rejection oracle: requests valid by the execution-apis schemas (within the widths nodes
// decode) are generated for the spec's nine methods and eth_getLogs, and every one must pass the
// gateway's parameter rules. The hostile fuzz suite (test/fuzz.test.ts) accepts any -32602, so a
// rule refusing a valid request would pass there; here it fails with the shrunk parameters.
// The rules of spec.ts run in process (no node): what reaches them is exactly the params array.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { validParams } from '../../../test/valid-params.ts';
import { GatewayError } from '../../rpc/errors.ts';
import type { MethodSpecs } from '../types.ts';
import { EVM_METHOD_SPECS, getLogsSpec } from './spec.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 20261127);
const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
const BLOCK_GAS_LIMIT = 30_000_000n;
const HEAD = 1_000_000;
const MAX_LOGS_RANGE = 10_000;
const chain = { blockGasLimit: async () => BLOCK_GAS_LIMIT, headNumber: async () => HEAD };

const VALID = validParams({ head: HEAD, blockGasLimit: BLOCK_GAS_LIMIT, maxLogsRange: MAX_LOGS_RANGE });

const SPECS: MethodSpecs = { ...EVM_METHOD_SPECS, eth_getLogs: getLogsSpec(MAX_LOGS_RANGE, MAX_LOGS_RANGE) };

test('every generated method is one the gateway checks', () => {
  for (const method of Object.keys(VALID)) assert.ok(SPECS[method]?.check, `${method} has a parameter rule`);
});

for (const [method, params] of Object.entries(VALID)) {
  test(`${method}: valid parameters are never refused with -32602`, async () => {
    await fc.assert(
      fc.asyncProperty(params, async (generated) => {
        try {
          await SPECS[method].check!(generated, chain);
        } catch (error) {
          const detail = error instanceof GatewayError ? `${error.kind}: ${error.message}` : String(error);
          assert.fail(`${method} refused valid ${JSON.stringify(generated)}: ${detail}`);
        }
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });
}
