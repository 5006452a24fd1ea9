import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GatewayError } from '../../rpc/errors.ts';
import {
  arrayOf,
  expectArity,
  expectBlockOrEip1898,
  expectBlockParameter,
  expectBoolean,
  expectCallObject,
  expectGasWithinCap,
  expectHash,
  expectQuantity,
  expectReceiptsBlock,
  hash32,
  isBlockTag,
  memberName,
  objectWith,
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
  assert.deepEqual(toHexBlockNumber(['5']), ['5'], 'only numbers and decimal strings are rewritten');
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

/** The exact message of the refusal. */
function refusesWith(rule: () => void, message: string) {
  assert.throws(rule, (error: unknown) => {
    assert.ok(error instanceof GatewayError);
    assert.equal(error.kind, 'invalidParams');
    assert.equal(error.message, message);
    return true;
  });
}

const HASH = `0x${'ab'.repeat(32)}`;
const ADDR = `0x${'cd'.repeat(20)}`;

test('hex patterns are anchored at both ends and take hex digits only', () => {
  for (const bad of [`x${HASH}`, `${HASH}00`, `0x${'g'.repeat(64)}`, [HASH]]) {
    refuses(() => expectHash(bad, 'block hash'), /block hash must be a 32-byte hex string/);
  }
  for (const bad of [`x${ADDR}`, `${ADDR}00`, `0x${'g'.repeat(40)}`, '0xa', [ADDR]]) {
    refuses(() => expectCallObject({ to: bad }), /transaction call object\.to must be a 20-byte hex address/);
  }
  for (const bad of ['x0x1', '0x1 ', '0xg']) refuses(() => expectQuantity(bad, 'value', 64), /value must be/);
  for (const bad of ['x0xab', '0xab0', '0xabc', '0xzz', 'abcd', [`0xab`]]) {
    refuses(
      () => expectCallObject({ data: bad }),
      /transaction call object\.data must be a 0x-prefixed hex string/,
    );
  }
  expectCallObject({ data: '0x' });
  expectCallObject({ data: '0xAbCd', to: null, from: ADDR });
  refusesWith(
    () => expectCallObject({ from: null }),
    'transaction call object.from must be a 20-byte hex address, got null',
  );
});

test('arity: exactly the most parameters is accepted', () => {
  expectArity(['a', 'b'], 1, 2, ['first', 'second']);
  refusesWith(
    () => expectArity([1, 2, 3], 0, 2, ['first', 'second']),
    'too many parameters: expected at most 2 (first, second), got 3',
  );
  refusesWith(
    () => expectArity([], 1, 2, ['first', 'second']),
    'missing value for required parameter first (position 0)',
  );
});

test('booleans are true or false, nothing else', () => {
  expectBoolean(true, 'flag');
  expectBoolean(false, 'flag');
  refusesWith(
    () => expectBoolean('true', 'flag'),
    'flag must be a boolean (true or false), got string "true"',
  );
  refusesWith(() => expectBoolean(0, 'flag'), 'flag must be a boolean (true or false), got number 0');
});

test('block parameters: the message lists every tag', () => {
  refusesWith(
    () => expectBlockParameter('0x01'),
    'block parameter must be a hex block number of at most 64 bits (at most 0xffffffffffffffff) or one of latest, earliest, pending, safe, finalized, got string "0x01"',
  );
  refusesWith(
    () => expectBlockParameter(1, 'fromBlock'),
    'fromBlock must be a hex block number of at most 64 bits (at most 0xffffffffffffffff) or one of latest, earliest, pending, safe, finalized, got number 1',
  );
});

test('EIP-1898 objects: blockHash with an optional boolean requireCanonical, or blockNumber alone', () => {
  expectBlockOrEip1898({ blockHash: HASH, requireCanonical: true });
  expectBlockOrEip1898({ blockHash: HASH, requireCanonical: false });
  expectBlockOrEip1898('latest');
  refusesWith(
    () => expectBlockOrEip1898({ blockHash: '0x12' }),
    'block parameter.blockHash must be a 32-byte hex string (0x followed by 64 hex digits), got string "0x12"',
  );
  refusesWith(
    () => expectBlockOrEip1898({ blockHash: HASH, requireCanonical: 'yes' }),
    'block parameter.requireCanonical must be a boolean (true or false), got string "yes"',
  );
  refusesWith(
    () => expectBlockOrEip1898({ blockHash: HASH, a: 1, b: 2, c: 3, d: 4, e: 5, f: 6 }, 'block'),
    'block has unknown member(s): "a", "b", "c", "d", "e"',
  );
  refusesWith(
    () => expectBlockOrEip1898({ blockNumber: 'x' }),
    'block parameter.blockNumber must be a hex block number of at most 64 bits (at most 0xffffffffffffffff) or one of latest, earliest, pending, safe, finalized, got string "x"',
  );
  const notEip1898 =
    'block parameter object must be {blockHash[, requireCanonical]} or {blockNumber} (EIP-1898)';
  refusesWith(() => expectBlockOrEip1898({ blockNumber: '0x1', requireCanonical: true }), notEip1898);
  refusesWith(() => expectBlockOrEip1898({}), notEip1898);
  refusesWith(() => expectBlockOrEip1898({ requireCanonical: true }), notEip1898);
  for (const bad of [null, [HASH], ['latest']]) {
    refuses(() => expectBlockOrEip1898(bad), /^block parameter must be a hex block number/);
  }
});

test('eth_getBlockReceipts: tags and hex numbers too; arrays are not block numbers', () => {
  expectReceiptsBlock('latest');
  expectReceiptsBlock('0x0');
  refusesWith(
    () => expectReceiptsBlock([HASH]),
    'blockNumber must be a hex or decimal block number of at most 2^64-1, a 32-byte block hash, or one of latest, earliest, pending, safe, finalized, got an array',
  );
  refuses(() => expectReceiptsBlock(['5']), /got an array/);
});

test('arrays: checked entry by entry, at most their length', () => {
  const two = arrayOf(hash32, 2);
  two([HASH, HASH], 'hashes');
  two([], 'hashes');
  refusesWith(() => two([HASH, HASH, HASH], 'hashes'), 'hashes may hold at most 2 entries, got 3');
  refusesWith(() => two('x', 'hashes'), 'hashes must be an array, got string "x"');
  refuses(() => two([HASH, '0x1'], 'hashes'), /^hashes\[1\] must be a 32-byte hex string/);
  arrayOf(hash32)(
    Array.from({ length: 50 }, () => HASH),
    'many',
  );
});

test('objects: required members, unknown members and non-objects are named', () => {
  const rule = objectWith({ a: hash32, b: hash32 }, ['a']);
  rule({ a: HASH }, 'thing');
  rule({ a: HASH, b: HASH }, 'thing');
  refusesWith(() => rule({ b: HASH }, 'thing'), 'thing.a is required');
  refusesWith(() => rule({ a: HASH, c: 1 }, 'thing'), 'thing has an unknown member "c"');
  refusesWith(() => rule({ a: HASH, constructor: 1 }, 'thing'), 'thing has an unknown member "constructor"');
  refusesWith(
    () => rule(JSON.parse(`{"a":"${HASH}","__proto__":1}`), 'thing'),
    'thing has an unknown member "__proto__"',
  );
  refuses(() => rule({ a: '0x1' }, 'thing'), /^thing\.a must be a 32-byte hex string/);
  refusesWith(() => rule(null, 'thing'), 'thing must be an object, got null');
  refusesWith(() => rule([HASH], 'thing'), 'thing must be an object, got an array');
  refusesWith(() => rule('x', 'thing'), 'thing must be an object, got string "x"');
});

test('member names in messages are quoted and cut after 64 characters', () => {
  assert.equal(memberName('a'.repeat(64)), `"${'a'.repeat(64)}"`);
  assert.equal(memberName('a'.repeat(65)), `"${'a'.repeat(64)}…"`);
});

test('call objects: access lists and authorization lists are checked member by member', () => {
  expectCallObject({
    accessList: [{ address: ADDR, storageKeys: [HASH] }],
    authorizationList: [{ address: ADDR, chainId: '0x1', nonce: '0x0', r: '0x1', s: '0x1', yParity: '0x1' }],
    blobVersionedHashes: [HASH],
    blobs: ['0xab'],
  });
  refusesWith(
    () => expectCallObject({ accessList: [{ address: ADDR }] }),
    'transaction call object.accessList[0].storageKeys is required',
  );
  refusesWith(
    () => expectCallObject({ accessList: [{ storageKeys: [] }] }),
    'transaction call object.accessList[0].address is required',
  );
  for (const member of ['address', 'chainId', 'nonce', 'r', 's']) {
    const entry: Record<string, string> = { address: ADDR, chainId: '0x1', nonce: '0x0', r: '0x1', s: '0x1' };
    delete entry[member];
    refusesWith(
      () => expectCallObject({ authorizationList: [entry] }),
      `transaction call object.authorizationList[0].${member} is required`,
    );
  }
  refuses(
    () =>
      expectCallObject({
        authorizationList: [
          { address: ADDR, chainId: '0x1', nonce: '0x0', r: '0x1', s: '0x1', yParity: '0x100' },
        ],
      }),
    /authorizationList\[0\]\.yParity must be a hex quantity of at most 8 bits/,
  );
  refuses(
    () =>
      expectCallObject({
        authorizationList: [{ address: ADDR, chainId: '0x1', nonce: '0x0', r: '0x1', s: '0x1', v: '0x100' }],
      }),
    /authorizationList\[0\]\.v must be a hex quantity of at most 8 bits/,
  );
});
