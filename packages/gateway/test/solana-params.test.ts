import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { getBase58Decoder } from '@solana/kit';
import { getSignaturesForAddressParamError as check } from '../src/methods/solana/getSignaturesForAddress.ts';

const b58 = getBase58Decoder();
const bytes = (length: number, fill = 7) => new Uint8Array(length).fill(fill);
const ADDRESS = b58.decode(bytes(32));
const SYSTEM_PROGRAM = '11111111111111111111111111111111';
const SIGNATURE = b58.decode(bytes(64));
const OTHER_SIGNATURE = b58.decode(bytes(64, 200));

function rejects(params: unknown, ...fragments: string[]): void {
  const message = check(params);
  assert.ok(message, `expected ${JSON.stringify(params)} to be rejected`);
  for (const fragment of fragments)
    assert.ok(message.includes(fragment), `"${message}" should mention "${fragment}"`);
}

describe('getSignaturesForAddress parameter rules', () => {
  test('accepts an address alone, with null or empty config, and every valid option', () => {
    assert.equal(check([ADDRESS]), undefined);
    assert.equal(check([SYSTEM_PROGRAM]), undefined);
    assert.equal(check([ADDRESS, null]), undefined);
    assert.equal(check([ADDRESS, {}]), undefined);
    assert.equal(
      check([
        ADDRESS,
        { commitment: 'finalized', minContextSlot: 0, limit: 1, before: SIGNATURE, until: OTHER_SIGNATURE },
      ]),
      undefined,
    );
    assert.equal(
      check([ADDRESS, { commitment: 'confirmed', minContextSlot: 123456789, limit: 1000 }]),
      undefined,
    );
  });

  test('treats null members as absent, as the Solana RPC does', () => {
    assert.equal(
      check([ADDRESS, { commitment: null, minContextSlot: null, limit: null, before: null, until: null }]),
      undefined,
    );
  });

  test('params must be an array of one or two items', () => {
    for (const params of [undefined, null, {}, 'x', 1, true]) rejects(params, 'params must be an array');
    rejects([], 'params[0] (address) is required');
    rejects([ADDRESS, {}, {}], 'at most 2 parameters', 'got 3');
  });

  test('address must be a base-58 string of a 32-byte key', () => {
    for (const value of [undefined, null, 1, {}, [], true])
      rejects([value], 'params[0] (address)', 'base-58 string');
    rejects(['0OIl' + ADDRESS.slice(4)], 'params[0] (address)', 'must be base-58');
    rejects([`${ADDRESS} `], 'params[0] (address)', 'must be base-58');
    rejects([''], 'params[0] (address)', 'must decode to 32 bytes, got 0');
    rejects([b58.decode(bytes(31))], 'must decode to 32 bytes, got 31');
    rejects([b58.decode(bytes(33))], 'must decode to 32 bytes, got 33');
    rejects([SIGNATURE], 'params[0] (address)', 'must decode to 32 bytes, got 64');
  });

  test('config must be an object', () => {
    for (const value of ['finalized', 5, true, [1]])
      rejects([ADDRESS, value], 'params[1] (config) must be an object');
  });

  test('unknown config members are rejected by name', () => {
    rejects([ADDRESS, { encoding: 'json' }], 'params[1].encoding is not an option', 'allowed: commitment');
    rejects([ADDRESS, { Limit: 5 }], 'params[1].Limit');
    rejects([ADDRESS, { limit: 5, searchTransactionHistory: true }], 'params[1].searchTransactionHistory');
  });

  test('commitment is finalized or confirmed; processed is refused as Solana refuses it', () => {
    rejects(
      [ADDRESS, { commitment: 'processed' }],
      'params[1].commitment',
      'does not support commitment below `confirmed`',
    );
    for (const value of ['latest', 'FINALIZED', 'recent', '', 1, {}]) {
      rejects(
        [ADDRESS, { commitment: value }],
        'params[1].commitment must be one of finalized, confirmed, processed',
      );
    }
  });

  test('minContextSlot is a non-negative integer', () => {
    for (const value of [-1, 1.5, '5', Number.NaN, Number.POSITIVE_INFINITY, 2 ** 60, true, {}]) {
      rejects(
        [ADDRESS, { minContextSlot: value }],
        'params[1].minContextSlot must be a non-negative integer',
      );
    }
  });

  test('minContextSlot beyond 2^53 (read exactly, as a bigint) is accepted up to 2^64-1', () => {
    assert.equal(check([ADDRESS, { minContextSlot: 2n ** 60n }]), undefined);
    assert.equal(check([ADDRESS, { minContextSlot: 2n ** 64n - 1n }]), undefined);
    for (const value of [2n ** 64n, -1n]) {
      assert.match(
        check([ADDRESS, { minContextSlot: value }]) ?? '',
        /^params\[1\]\.minContextSlot must be a non-negative integer slot \(at most 2\^64-1\), got bigint/,
      );
    }
  });

  test('limit is an integer from 1 to 1000', () => {
    assert.equal(check([ADDRESS, { limit: 1 }]), undefined);
    assert.equal(check([ADDRESS, { limit: 1000 }]), undefined);
    for (const value of [0, -1, 1001, 1e9, 2.5, '10', Number.NaN, false]) {
      rejects([ADDRESS, { limit: value }], 'params[1].limit must be an integer from 1 to 1000');
    }
  });

  test('before and until are base-58 strings of 64-byte signatures', () => {
    for (const key of ['before', 'until']) {
      for (const value of [5, {}, [], true])
        rejects([ADDRESS, { [key]: value }], `params[1].${key}`, 'base-58 string');
      rejects([ADDRESS, { [key]: ADDRESS }], `params[1].${key}`, 'must decode to 64 bytes, got 32');
      rejects([ADDRESS, { [key]: b58.decode(bytes(63)) }], 'must decode to 64 bytes, got 63');
      rejects([ADDRESS, { [key]: b58.decode(bytes(65)) }], 'must decode to 64 bytes, got 65');
      rejects([ADDRESS, { [key]: `${SIGNATURE.slice(0, -1)}0` }], `params[1].${key}`, 'must be base-58');
      rejects([ADDRESS, { [key]: '' }], 'must decode to 64 bytes, got 0');
    }
  });

  test('the first broken rule is reported, address before config', () => {
    rejects([1, { limit: 0 }], 'params[0] (address)');
    rejects([ADDRESS, { limit: 0, foo: 1 }], 'params[1].foo');
  });
});
