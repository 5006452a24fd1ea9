import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { GatewayError } from './errors.ts';
import { JsonNumberText, parseJsonExact, stringifyJsonExact } from './exact-json.ts';
import { JsonResult, jsonRpcChunks, resultTextOf, stringifyJsonRpc } from './json-result.ts';

describe('an upstream result spliced into the answer as the node wrote it', () => {
  test('the result text of the usual answer shape, whatever its value', () => {
    const results = [
      '"0x1"',
      'null',
      'true',
      '12345678901234567890',
      '[]',
      '{"a":"}]\\"","b":[1,{"c":null}]}',
      '-1.5e3',
      '"\\\\"',
    ];
    for (const result of results) {
      assert.equal(resultTextOf(`{"jsonrpc":"2.0","id":7,"result":${result}}`, 7), result);
      assert.equal(resultTextOf(`{"jsonrpc":"2.0","id":7,"result":${result}}\n`, 7), result);
    }
  });

  test('any other shape gives nothing (the answer is then read in full)', () => {
    for (const text of [
      '{"jsonrpc":"2.0","id":8,"result":"0x1"}', // another id
      '{"id":7,"jsonrpc":"2.0","result":"0x1"}', // another order
      '{"jsonrpc": "2.0", "id": 7, "result": "0x1"}', // not compact
      '{"jsonrpc":"2.0","id":7,"result":"0x1","extra":1}', // a member after the result
      '{"jsonrpc":"2.0","id":7,"result":1,"result":2}', // a duplicate member
      '{"jsonrpc":"2.0","id":7,"error":{"code":1,"message":"x"}}',
    ]) {
      assert.equal(resultTextOf(text, 7), undefined, text);
    }
  });

  test('a result that would spill into the rest of the answer, or is no value, is not spliced', () => {
    for (const result of [
      '"0x1', // a string that never closes
      '{"a":1', // an object that never closes
      '{"a":[1}]', // brackets that do not pair up
      '[1]]', // a closer too many
      'tru', // not a literal
      '0x1', // not a JSON number
      '', // nothing at all
      '"a","error":{"code":1}', // a value, then more members
    ]) {
      const text = `{"jsonrpc":"2.0","id":7,"result":${result}}`;
      assert.equal(resultTextOf(text, 7), undefined, text);
    }
  });

  test('a result is read only when asked, once, and exactly with the exact reader', () => {
    let reads = 0;
    const result = JsonResult.ofText('{"lamports":18446744073709551615}', (text) => {
      reads += 1;
      return parseJsonExact(text);
    });
    assert.equal(result.text, '{"lamports":18446744073709551615}');
    assert.equal(result.isNull, false);
    assert.equal(reads, 0);
    assert.deepEqual(result.value, { lamports: 18446744073709551615n });
    assert.deepEqual(result.value, { lamports: 18446744073709551615n });
    assert.equal(reads, 1);
    assert.equal(JsonResult.ofText('null').isNull, true);
    assert.equal(JsonResult.ofValue(null).isNull, true);
    assert.equal(JsonResult.ofValue(0).isNull, false);
  });

  test('a result known by its value is written once as text; a node text that is not JSON fails as an upstream error', () => {
    assert.equal(JsonResult.ofValue({ n: 18446744073709551615n }).text, '{"n":18446744073709551615}');
    assert.throws(
      () => JsonResult.ofText('{"a":nope}').value,
      (error: unknown) => error instanceof GatewayError && error.kind === 'upstreamUnavailable',
    );
  });

  test('the answer carries the text and the client id exactly; elsewhere the value is written', () => {
    const raw = JsonResult.ofText('{"n":18446744073709551615, "s":"\\u003c"}', () => ({ n: 1 }));
    const ids = [1, 'a"b', null, new JsonNumberText('12345678901234567890')];
    for (const id of ids) {
      assert.equal(
        stringifyJsonRpc({ jsonrpc: '2.0', id, result: raw }),
        `{"jsonrpc":"2.0","id":${stringifyJsonExact(id)},"result":${raw.text}}`,
      );
    }
    assert.equal(
      stringifyJsonRpc({ jsonrpc: '2.0', id: 1, result: '0x1' }),
      '{"jsonrpc":"2.0","id":1,"result":"0x1"}',
    );
    assert.equal(
      stringifyJsonRpc([
        { jsonrpc: '2.0', id: 1, result: raw },
        { jsonrpc: '2.0', id: 2, error: { code: -32000, message: 'm' } },
      ]),
      `[{"jsonrpc":"2.0","id":1,"result":${raw.text}},{"jsonrpc":"2.0","id":2,"error":{"code":-32000,"message":"m"}}]`,
    );
    assert.equal(JSON.stringify({ result: raw }), '{"result":{"n":1}}');
  });

  test('a list held as its items is written as them: the same bytes as one text, never joined unless asked', () => {
    const items = ['{"a":1},{"b":"]\\""}', '{"c":[2,3]}', '{"d":"é"}'];
    const body = {
      jsonrpc: '2.0',
      id: new JsonNumberText('12345678901234567890'),
      result: JsonResult.ofItems(items),
    };
    const chunks = jsonRpcChunks(body);
    assert.ok(chunks);
    // Each item is a chunk of its own (a comma joined to it would copy it when written).
    for (const item of items) assert.ok(chunks.includes(item));
    const whole = `{"jsonrpc":"2.0","id":12345678901234567890,"result":[${items.join(',')}]}`;
    assert.equal(chunks.join(''), whole);
    assert.equal(stringifyJsonRpc(body), whole);
    // Once joined (a WebSocket answer, a batch), the result is that text and is written as it.
    assert.equal(body.result.items, undefined);
    assert.equal(jsonRpcChunks(body), undefined);
    assert.deepEqual(body.result.value, [{ a: 1 }, { b: ']"' }, { c: [2, 3] }, { d: 'é' }]);

    const none = { jsonrpc: '2.0', id: 1, result: JsonResult.ofItems([]) };
    assert.equal(jsonRpcChunks(none)?.join(''), '{"jsonrpc":"2.0","id":1,"result":[]}');
    assert.equal(none.result.isNull, false);
    assert.equal(jsonRpcChunks({ jsonrpc: '2.0', id: 1, result: JsonResult.ofText('[]') }), undefined);
    assert.equal(jsonRpcChunks([none]), undefined);
  });
});
