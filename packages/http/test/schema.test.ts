import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { create, type Struct, validate } from '@metamask/superstruct';
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
import { bare, isRecord, layered, schemaBuilders } from '../src/schema.ts';

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

describe('the shared builders in another voice, with layers (@portico/http/schema)', () => {
  const messages = <T, S>(value: unknown, struct: Struct<T, S>, coerce = false) => {
    const [error] = validate(value, struct, { coerce });
    return error ? error.failures().map((failure) => failure.message) : [];
  };
  const plain = (value: unknown): value is Record<string, unknown> =>
    isRecord(value) && Object.getPrototypeOf(value) === Object.prototype;

  test('a voice words every failure; bare leaves the problem alone, isObject says what an object is', () => {
    const caip = schemaBuilders({ ...bare, isObject: plain });
    const request = caip.fields({ method: caip.string }, 'must be an object with a method');
    assert.deepEqual(messages({ method: 1 }, request), ['must be a string']);
    assert.deepEqual(messages(new Date(), request), ['must be an object with a method']);
    const config = schemaBuilders({
      say: (problem, context) => `config.${context.path.join('.')} ${problem}`,
    });
    assert.deepEqual(messages({ port: 'x' }, config.fields({ port: config.wholeNumber(1, 65535) })), [
      'config.port must be a whole number from 1 to 65535',
    ]);
  });

  test('fields with onlyThese refuses unknown fields by name; checkFirst orders the checks', () => {
    const { fields, string } = schemaBuilders(bare);
    const strict = fields(
      { a: string, b: string },
      { onlyThese: (unknown, allowed) => `has ${unknown.join(', ')} (allowed: ${allowed.join(', ')})` },
    );
    assert.deepEqual(messages({ a: 'x', b: 'y', c: 1, __proto__x: 2 }, strict), [
      'has c, __proto__x (allowed: a, b)',
    ]);
    const bFirst = fields(
      { a: rule<number>((v) => v === 1 || 'must be 1'), b: rule<number>((v) => v === 1 || 'must be 1') },
      { checkFirst: ['b'] },
    );
    assert.deepEqual(messages({ a: 0, b: 0 }, bFirst), ['b must be 1', 'a must be 1']);
  });

  test('layered adds a prepare step and checks before, after and across entries, and can skip entries', () => {
    const { fields, listOf, string } = schemaBuilders(bare);
    const names = layered(listOf(string), {
      prepare: (value) => (value === undefined ? ['default'] : value),
      before: (value) => value !== 'off' || 'is off',
      after: (value: unknown[]) => value.length <= 2 || 'has more than 2 names',
    });
    assert.deepEqual(create(undefined, names), ['default']);
    assert.deepEqual(messages('off', names, true), ['is off']);
    assert.deepEqual(messages('x', names, true), ['must be a list']);
    // The first failure is the list's own; its items are still listed after it.
    assert.deepEqual(messages(['a', 'b', 3], names, true)[0], 'has more than 2 names');
    assert.deepEqual(messages(['a', 3], names, true), ['must be a string']);
    const range = layered(fields({ from: wholeNumber(0, 9), to: wholeNumber(0, 9) }), {
      refine: (value) => value.from <= value.to || 'from must not pass to',
    });
    assert.deepEqual(messages({ from: 5, to: 1 }, range), ['from must not pass to']);
    assert.deepEqual(messages({ from: 'x', to: 1 }, range), ['from must be a whole number from 0 to 9']);
    const everything = layered(fields({ from: wholeNumber(0, 9) }), {
      complete: (value) => isRecord(value) && value.all === true,
    });
    assert.deepEqual(messages({ all: true }, everything), []);
    assert.deepEqual(messages({ all: false }, everything), ['from must be a whole number from 0 to 9']);
  });
});
