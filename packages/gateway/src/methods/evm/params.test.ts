import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GatewayError } from '../../rpc/errors.ts';
import {
  expectArity,
  expectBlockOrEip1898,
  expectBlockParameter,
  expectCallObject,
  expectGasWithinCap,
  expectHash,
  expectQuantity,
  expectReceiptsBlock,
  isBlockTag,
  toHexBlockNumber,
} from './params.ts';

/** The rule refuses with invalidParams (-32602) and a message naming the parameter. */
function refuses(rule: () => void, mentions: RegExp) {
  assert.throws(rule, (error: unknown) => {
    assert.ok(error instanceof GatewayError);
    assert.equal(error.kind, 'invalidParams');
    assert.match(error.message, mentions);
    return true;
  });
}

test('arity: too few and too many parameters are named', () => {
  expectArity(['a'], 1, 2, ['first', 'second']);
  refuses(() => expectArity([], 1, 2, ['first', 'second']), /required parameter first \(position 0\)/);
  refuses(
    () => expectArity([1, 2, 3], 1, 2, ['first', 'second']),
    /expected at most 2 \(first, second\), got 3/,
  );
});

test('hashes are 32 bytes of hex', () => {
  expectHash(`0x${'ab'.repeat(32)}`, 'block hash');
  refuses(() => expectHash('0x1234', 'block hash'), /block hash/);
  refuses(() => expectHash(42, 'block hash'), /block hash/);
});

test('quantities: hex without leading zeros, within the width', () => {
  expectQuantity('0x0', 'value', 64);
  expectQuantity('0xffffffffffffffff', 'value', 64);
  refuses(() => expectQuantity('0x01', 'value', 64), /value/);
  refuses(() => expectQuantity('0x10000000000000000', 'value', 64), /value/);
  refuses(() => expectQuantity('12', 'value', 64), /value/);
});

test('block parameters: a tag or a number; EIP-1898 objects where allowed', () => {
  for (const tag of ['latest', 'earliest', 'pending', 'safe', 'finalized']) {
    assert.equal(isBlockTag(tag), true);
    expectBlockParameter(tag);
  }
  assert.equal(isBlockTag('newest'), false);
  expectBlockParameter('0x10');
  refuses(() => expectBlockParameter('newest'), /block parameter/);
  expectBlockOrEip1898({ blockHash: `0x${'ab'.repeat(32)}` });
  expectBlockOrEip1898({ blockNumber: '0x1' });
  refuses(() => expectBlockOrEip1898({ blockNumber: 'nope' }), /block/);
});

test('decimal block numbers are rewritten to hex; others are left as they are', () => {
  assert.equal(toHexBlockNumber(16), '0x10');
  assert.equal(toHexBlockNumber('latest'), 'latest');
  assert.equal(toHexBlockNumber('0x5'), '0x5');
});

test('fees: a tip equal to the fee cap is accepted, one above it refused, either alone accepted', () => {
  expectCallObject({ maxFeePerGas: '0x64', maxPriorityFeePerGas: '0x64' });
  refuses(
    () => expectCallObject({ maxFeePerGas: '0x64', maxPriorityFeePerGas: '0x65' }),
    /transaction call object\.maxPriorityFeePerGas is greater than its maxFeePerGas/,
  );
  // Compared as numbers, not as strings ('0x9' > '0x10' as text).
  expectCallObject({ maxFeePerGas: '0x10', maxPriorityFeePerGas: '0x9' });
  expectCallObject({ maxFeePerGas: '0x1' });
  expectCallObject({ maxPriorityFeePerGas: `0x${'f'.repeat(32)}` });
});

test('data and input: both given and equal are accepted (web3.js sends both), different refused', () => {
  expectCallObject({ data: '0xabcd', input: '0xabcd' });
  expectCallObject({ data: '0xabcd' });
  expectCallObject({ input: '0xabcd' });
  refuses(
    () => expectCallObject({ data: '0xabcd', input: '0xabce' }),
    /both "data" and "input" to different values/,
  );
  refuses(() => expectCallObject({ data: '0x', input: '0x00' }, 'call'), /^call sets both/);
});

test('gas: exactly ten times the block gas limit is accepted, one more refused', () => {
  const limit = 30_000_000n;
  expectGasWithinCap({ gas: `0x${(limit * 10n).toString(16)}` }, limit, 'call');
  expectGasWithinCap({}, limit, 'call');
  refuses(
    () => expectGasWithinCap({ gas: `0x${(limit * 10n + 1n).toString(16)}` }, limit, 'call'),
    /^call\.gas 300000001 exceeds the cap of 10 x the current block gas limit \(300000000\)/,
  );
});

test('eth_getBlockReceipts: JSON numbers from 0 up are block numbers, negatives and fractions are not', () => {
  expectReceiptsBlock(0);
  expectReceiptsBlock(Number.MAX_SAFE_INTEGER);
  expectReceiptsBlock(0n);
  expectReceiptsBlock(2n ** 64n - 1n);
  expectReceiptsBlock('0');
  expectReceiptsBlock('18446744073709551615');
  expectReceiptsBlock(`0x${'ab'.repeat(32)}`);
  for (const bad of [
    -1,
    1.5,
    Number.MAX_SAFE_INTEGER + 1,
    -1n,
    2n ** 64n,
    '18446744073709551616',
    '01',
    null,
  ]) {
    refuses(() => expectReceiptsBlock(bad), /blockNumber must be a hex or decimal block number/);
  }
  assert.equal(toHexBlockNumber(0), '0x0');
  assert.equal(toHexBlockNumber('0'), '0x0');
  assert.equal(toHexBlockNumber(255n), '0xff');
});
