// Every node dialect's revert (recorded answers in fixtures/revert-dialects.ts) reaches the client
// in the spec's one shape; errors that are not reverts pass as they are.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { evmHooks } from '../src/methods/evm/hooks.ts';
import { NOT_REVERTS, REVERT_FIXTURES, SPEC } from './fixtures/revert-dialects.ts';

describe('reverts of every node dialect', () => {
  for (const fixture of REVERT_FIXTURES) {
    test(`${fixture.dialect}, ${fixture.method}: ${fixture.answer.message.slice(0, 60)} → code 3 (${fixture.expected})`, () => {
      assert.deepEqual(
        evmHooks.shapeError?.(structuredClone(fixture.answer)),
        SPEC[fixture.expected],
        fixture.source,
      );
    });
  }
  for (const { dialect, answer } of NOT_REVERTS) {
    test(`${dialect}: ${answer.message} is not a revert and passes as it is`, () => {
      assert.deepEqual(evmHooks.shapeError?.(structuredClone(answer)), answer);
    });
  }
});
