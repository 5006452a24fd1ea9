import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GatewayError } from '../../rpc/errors.ts';
import {
  expectArity,
  expectBlockOrEip1898,
  expectBlockParameter,
  expectHash,
  expectQuantity,
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
