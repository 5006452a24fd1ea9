import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { optional } from '@metamask/superstruct';
import { AuthValidationError } from '../errors.ts';
import { check, dict, exact, flag, nonEmptyText, oneOf, text, wholeNumber } from './rules.ts';

const fields = exact(
  { name: nonEmptyText, size: optional(wholeNumber('a whole number from 1 to 9', 1, 9)), on: optional(flag) },
  { shape: 'an object with name' },
);

function refused(run: () => unknown, field: string, message: string): void {
  assert.throws(run, (err: unknown) => {
    assert.ok(err instanceof AuthValidationError, String(err));
    assert.equal(err.field, field);
    assert.equal(err.message, message);
    return true;
  });
}

describe('parameter schema rules', () => {
  it('names the field, shows the value and says what is allowed', () => {
    refused(
      () => check(fields, { name: 'a', size: 12 }),
      'size',
      'Invalid size: 12. Allowed: a whole number from 1 to 9',
    );
    refused(() => check(fields, {}), 'name', 'Invalid name: missing. Allowed: a non-empty string');
    refused(() => check(oneOf(['x', 'y']), 'z', 'pick'), 'pick', 'Invalid pick: "z". Allowed: x, y');
  });

  it('refuses an unknown key before any invalid known field, listing the known ones', () => {
    refused(
      () => check(fields, { name: '', extra: 1 }, 'thing'),
      'thing.extra',
      'Invalid thing.extra: 1. Allowed: known fields of thing: name, size, on',
    );
  });

  it('tells a non-object its shape', () => {
    refused(() => check(fields, [1], 'thing'), 'thing', 'Invalid thing: [1]. Allowed: an object with name');
  });

  it('returns fresh data without undefined fields and leaves the input alone', () => {
    const input = { name: 'a', size: undefined, on: true };
    const out = check(fields, input);
    assert.deepEqual(out, { name: 'a', on: true });
    assert.ok(!('size' in out));
    assert.notEqual(out, input);
    assert.deepEqual(input, { name: 'a', size: undefined, on: true });
  });

  it('keeps a dict entry named __proto__ as an own property, never as the prototype', () => {
    const out = check(
      dict(text, 'an object of strings'),
      JSON.parse('{"__proto__": "x", "a": "b"}'),
      'params',
    );
    assert.equal(Object.getPrototypeOf(out), Object.prototype);
    assert.deepEqual(Object.keys(out), ['__proto__', 'a']);
    assert.equal(Object.getOwnPropertyDescriptor(out, '__proto__')?.value, 'x');
  });

  it('does not count inherited properties as given', () => {
    refused(
      () => check(fields, Object.create({ name: 'inherited' })),
      'name',
      'Invalid name: missing. Allowed: a non-empty string',
    );
  });
});
