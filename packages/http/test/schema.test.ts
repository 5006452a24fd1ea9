import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  boolean,
  fields,
  listOf,
  nonEmptyString,
  oneOf,
  optional,
  parseBody,
  recordOf,
  rule,
  string,
  wholeNumber,
} from '../src/index.ts';

class Refused extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}
const refuse = (field: string, message: string) => new Refused(field, message);

/** The field and message `parseBody` refuses `body` with. */
function refusal(body: unknown) {
  try {
    parseBody(ORDER, body, refuse);
  } catch (error) {
    assert.ok(error instanceof Refused, 'the error refuse made');
    return { field: error.field, message: error.message };
  }
  assert.fail('expected a refusal');
}

const ORDER = fields({
  id: nonEmptyString,
  kind: oneOf(['buy', 'sell']),
  count: wholeNumber(1, 10),
  urgent: optional(boolean),
  tags: optional(listOf(string)),
  by: optional(recordOf(listOf(string))),
  payload: optional(fields({ ref: string })),
  note: optional(rule<string>((value) => (typeof value === 'string' && value.length < 5) || 'is too long')),
});

describe('request body schemas', () => {
  test('a body that fits comes back as sent, fields it does not name included', () => {
    const body = { id: 'a', kind: 'buy', count: 2, tags: ['x'], extra: true };
    assert.equal(parseBody(ORDER, body, refuse), body);
  });

  test('the first field at fault is named, nested ones by their path', () => {
    assert.deepEqual(refusal([1]), { field: 'body', message: 'body must be an object' });
    assert.deepEqual(refusal({ kind: 'buy', count: 1 }), {
      field: 'id',
      message: 'id must be a non-empty string',
    });
    assert.deepEqual(refusal({ id: 'a', kind: 'hold', count: 1 }), {
      field: 'kind',
      message: 'kind must be one of "buy", "sell"',
    });
    assert.deepEqual(refusal({ id: 'a', kind: 'buy', count: 11 }), {
      field: 'count',
      message: 'count must be a whole number from 1 to 10',
    });
    assert.deepEqual(refusal({ id: 'a', kind: 'buy', count: 1, urgent: 'yes' }), {
      field: 'urgent',
      message: 'urgent must be true or false',
    });
    assert.deepEqual(refusal({ id: 'a', kind: 'sell', count: 1, tags: ['x', 2] }), {
      field: 'tags.1',
      message: 'tags.1 must be a string',
    });
    assert.deepEqual(refusal({ id: 'a', kind: 'sell', count: 1, tags: 'x' }), {
      field: 'tags',
      message: 'tags must be a list',
    });
    assert.deepEqual(refusal({ id: 'a', kind: 'sell', count: 1, payload: { ref: 1 } }), {
      field: 'payload.ref',
      message: 'payload.ref must be a string',
    });
    assert.deepEqual(refusal({ id: 'a', kind: 'sell', count: 1, note: 'longer' }), {
      field: 'note',
      message: 'note is too long',
    });
  });

  test('names such as __proto__ are data: only own members are read, record keys are checked', () => {
    const inherited = Object.create({ id: 'a', kind: 'buy', count: 1 });
    assert.equal(refusal(inherited).field, 'id');
    const by = JSON.parse('{"id":"a","kind":"buy","count":1,"by":{"__proto__":[1]}}');
    assert.deepEqual(refusal(by), {
      field: 'by.__proto__.0',
      message: 'by.__proto__.0 must be a string',
    });
  });
});
