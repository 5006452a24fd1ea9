import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hexNumberOf } from './hex-number.ts';

test('hexNumberOf reads hex quantities of up to 16 digits, nothing else', () => {
  assert.equal(hexNumberOf('0x10'), 16);
  assert.equal(hexNumberOf('0xA'), 10);
  assert.equal(hexNumberOf('0x0'), 0);
  assert.equal(hexNumberOf(`0x${'f'.repeat(16)}`), 2 ** 64);
  for (const other of ['latest', '0x', `0x${'1'.repeat(17)}`, 'x0x10', '0x10z', '0xg', ['0x10'], 16, null]) {
    assert.equal(hexNumberOf(other), undefined, JSON.stringify(other));
  }
});
