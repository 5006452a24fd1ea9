import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseJsonExact, stringifyJsonExact } from '../src/rpc/exact-json.ts';

describe('exact JSON for u64 values', () => {
  test('integers beyond 2^53 are read as bigint; everything else as JSON.parse reads it', () => {
    const text =
      '{"rentEpoch":18446744073709551615,"neg":-9007199254740993,"safe":9007199254740991,"float":1.5e300,' +
      '"frac":12345678901234567.5,"str":"18446744073709551615","esc":"a\\"18446744073709551615","arr":[1,99999999999999999999]}';
    assert.deepEqual(parseJsonExact(text), {
      rentEpoch: 18446744073709551615n,
      neg: -9007199254740993n,
      safe: 9007199254740991,
      float: 1.5e300,
      frac: Number('12345678901234567.5'),
      str: '18446744073709551615',
      esc: 'a"18446744073709551615',
      arr: [1, 99999999999999999999n],
    });
  });

  test('writing back gives the same digits', () => {
    const text =
      '{"jsonrpc":"2.0","id":1,"result":{"value":{"lamports":123456789012345678,"rentEpoch":18446744073709551615,"data":["","base64"]}}}';
    assert.equal(stringifyJsonExact(parseJsonExact(text)), text);
    assert.equal(stringifyJsonExact({ a: 1n, b: [2n], c: 'x' }), '{"a":1,"b":[2],"c":"x"}');
  });

  test('plain JSON takes the plain path and invalid JSON still throws', () => {
    assert.deepEqual(parseJsonExact('{"a":[1,2,"3"]}'), { a: [1, 2, '3'] });
    assert.throws(() => parseJsonExact('{"a":'), SyntaxError);
    assert.throws(() => parseJsonExact('{"a":12345678901234567890'), SyntaxError);
  });
});
