import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  JsonLimitExceeded,
  JsonNumberText,
  parseJsonExact,
  parseRequestJson,
  readRequestId,
  stringifyJsonExact,
} from '../src/rpc/exact-json.ts';

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

const LIMITS = { maxDepth: 8, maxItems: 3 };
const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describe('request bodies: exact ids, bounded depth and batch size', () => {
  test('an id of any JSON number is written back byte for byte', () => {
    for (const id of [
      '12345678901234567890',
      '-12345678901234567890',
      '1.0',
      '1e3',
      '1E+2',
      '-0',
      '0.10',
      '1e400',
    ]) {
      const body = parseRequestJson(`{"jsonrpc":"2.0","id":${id},"method":"m"}`, LIMITS) as { id: unknown };
      assert.ok(body.id instanceof JsonNumberText, id);
      assert.equal(
        stringifyJsonExact({ jsonrpc: '2.0', id: body.id, result: null }),
        `{"jsonrpc":"2.0","id":${id},"result":null}`,
      );
    }
  });

  test('ids a double keeps stay numbers; string ids and numbers elsewhere are untouched', () => {
    const body = parseRequestJson(
      '[{"id":7,"params":[{"id":1.0}]},{"id":-1.5},{"id":"1.0","x":{"id":12345678901234567890}}]',
      LIMITS,
    );
    assert.deepEqual(body, [
      { id: 7, params: [{ id: 1 }] },
      { id: -1.5 },
      { id: '1.0', x: { id: 12345678901234567890n } },
    ]);
  });

  test('the id of each batch item, and an id under an escaped member name, keep their text', () => {
    const body = parseRequestJson('[{"id":1.0},{"\\u0069d":2.50}]', LIMITS) as { id: JsonNumberText }[];
    assert.deepEqual(
      body.map((item) => item.id.text),
      ['1.0', '2.50'],
    );
  });

  test('a number of a request that a double would change is kept as its text; one a double keeps is a number', () => {
    const rounded = [
      '1e400',
      '-1e400',
      '1e-400',
      '12345678901234567890.5',
      '0.10000000000000000001',
      '9007199254740993e0',
    ];
    const kept = ['0.1', '1.5e300', '1.0', '25.5', '-0.0', '1E+2', '2.5e1', '5e-324', '123.456e-2'];
    const body = parseRequestJson(
      `{"jsonrpc":"2.0","id":1,"method":"m","params":[${[...rounded, ...kept].join(',')},{"a":[1e999]}]}`,
      LIMITS,
    ) as { params: unknown[] };
    assert.deepEqual(
      body.params.slice(0, rounded.length).map((value) => (value as JsonNumberText).text),
      rounded,
    );
    assert.deepEqual(body.params.slice(rounded.length, -1), kept.map(Number));
    assert.ok((body.params.at(-1) as { a: unknown[] }).a[0] instanceof JsonNumberText);
    // A request or params that is a number stays a number (an invalid request, not a parameter).
    assert.deepEqual(parseRequestJson('[1e400,{"params":1e400}]', LIMITS), [
      Number.POSITIVE_INFINITY,
      { params: Number.POSITIVE_INFINITY },
    ]);
    // An upstream's answer is read as before (its numbers are the node's to choose).
    assert.deepEqual(parseJsonExact('{"a":[1e400,0.10000000000000000001,12345678901234567890]}'), {
      a: [Number.POSITIVE_INFINITY, 0.1, 12345678901234567890n],
    });
  });

  test('an id that is not a JSON number is still a syntax error', () => {
    for (const id of ['01', '1.', '-', '.5', '+1', '1e', '0x10']) {
      assert.throws(() => parseRequestJson(`{"id":${id}}`, LIMITS), SyntaxError, id);
    }
  });

  test('nesting up to maxDepth is read; one level more is refused before parsing', () => {
    assert.deepEqual(parseRequestJson(nested(8), LIMITS), [[[[[[[[]]]]]]]]);
    assert.throws(
      () => parseRequestJson(nested(9), LIMITS),
      (error) => error instanceof JsonLimitExceeded && error.limit === 'maxDepth',
    );
    assert.throws(
      () => parseRequestJson(`{"a":${'{"b":'.repeat(10)}1${'}'.repeat(10)}}`, LIMITS),
      JsonLimitExceeded,
    );
  });

  test('brackets, braces and commas inside strings count for nothing', () => {
    const text = `[{"a":"${'[{,'.repeat(50)}\\"]}"},{"b":"\\\\"},{"c":","}]`;
    assert.deepEqual(parseRequestJson(text, LIMITS), JSON.parse(text));
  });

  test('a batch of maxItems is read; one item more is refused', () => {
    assert.equal((parseRequestJson('[{},{},{}]', LIMITS) as unknown[]).length, 3);
    assert.throws(
      () => parseRequestJson(`[{},{},{},{}${',{}'.repeat(100_000)}]`, LIMITS),
      (error) => error instanceof JsonLimitExceeded && error.limit === 'maxItems',
    );
    // Commas of nested arrays and of a top-level object are not batch items.
    assert.deepEqual(parseRequestJson('[[1,2,3,4,5]]', LIMITS), [[1, 2, 3, 4, 5]]);
    assert.deepEqual(parseRequestJson('{"a":1,"b":2,"c":3,"d":4}', LIMITS), { a: 1, b: 2, c: 3, d: 4 });
  });

  test('text that is not JSON is left for JSON.parse to refuse', () => {
    for (const text of ['', ']]]', '{"a":"unterminated', '[1,2', '{"id":1}}', 'nul']) {
      assert.throws(() => parseRequestJson(text, LIMITS), SyntaxError, text);
    }
  });
});

describe('the id of a body refused before it was parsed', () => {
  const deep = '['.repeat(200) + ']'.repeat(200);
  test('read from the top-level object, wherever it stands, without parsing the nested members', () => {
    assert.equal(readRequestId(`{"jsonrpc":"2.0","id":7,"params":${deep}}`), 7);
    assert.equal(readRequestId(`{"params":${deep},"method":"x", "id" : "a\\"b"}`), 'a"b');
    assert.equal(readRequestId(`{"params":[{"id":1}],"id":null}`), null);
    assert.deepEqual(readRequestId(`{"\\u0069d":-2.5e3,"params":${deep}}`), new JsonNumberText('-2.5e3'));
    const long = '9'.repeat(400);
    const id = readRequestId(`{"id":${long},"params":${deep}}`);
    assert.ok(id instanceof JsonNumberText);
    assert.equal(id.text, long);
  });

  test('nothing for a batch, an id that is not one, or a number cut off by the end of the text', () => {
    for (const text of [
      `[{"id":1,"params":${deep}}]`,
      `{"id":{"a":1},"params":${deep}}`,
      `{"id":[1],"params":${deep}}`,
      `{"id":true,"params":${deep}}`,
      `{"params":${deep}}`,
      '{"jsonrpc":"2.0","id":12',
      '"id"',
    ]) {
      assert.equal(readRequestId(text), undefined, text);
    }
  });
});
