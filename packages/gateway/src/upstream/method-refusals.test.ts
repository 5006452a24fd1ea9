import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isMethodRefusal, MethodRefusals } from './method-refusals.ts';

test('"method not found / not available / unsupported" in every spelling is a refusal', () => {
  const refusals = [
    { code: -32601, message: 'the method eth_getBlockReceipts does not exist/is not available' }, // geth, reth, erigon
    { code: -32700, message: 'The method eth_getBlockReceipts does not exist/is not available' }, // ganache 7.9.2
    { code: -32601, message: 'Method not found' }, // Besu, Nethermind, Solana
    { code: -32604, message: 'Method not enabled' }, // Besu with the namespace off
    { code: -32004, message: 'Method not supported' }, // EIP-1474
    { code: -32600, message: 'Unsupported method: trace_block' }, // hosted nodes
    { code: -32000, message: 'the method debug_traceCall is not supported on this plan' },
  ];
  for (const error of refusals) assert.equal(isMethodRefusal(error), true, error.message);
  const others = [
    { code: -32000, message: 'header not found' },
    { code: -32000, message: 'transaction type not supported' },
    { code: 3, message: 'execution reverted' },
    // A contract's own reason that reads like a refusal is still the call's answer.
    { code: 3, message: 'execution reverted: method not allowed' },
    { code: -32000, message: 'execution reverted: Unsupported method' },
    { code: -32000, message: 'VM Exception while processing transaction: revert method not supported' },
    { code: -32602, message: 'invalid argument 0: hex string has length 3, want 40 for common.Address' },
  ];
  for (const error of others) assert.equal(isMethodRefusal(error), false, error.message);
});

test('a refused method is remembered until its time runs out', () => {
  const refusals = new MethodRefusals(1000);
  refusals.note('eth_getBlockReceipts', 0);
  assert.equal(refusals.refuses('eth_getBlockReceipts', 999), true);
  assert.deepEqual(refusals.list(999), ['eth_getBlockReceipts']);
  assert.equal(refusals.refuses('eth_getBlockReceipts', 1000), false);
  assert.deepEqual(refusals.list(1000), []);
});
