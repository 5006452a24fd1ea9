import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CircuitBreaker } from './circuit-breaker.ts';

test('stays closed below the threshold; a success resets the count', () => {
  const breaker = new CircuitBreaker(3, 1000);
  breaker.failure(0);
  breaker.failure(0);
  breaker.success();
  breaker.failure(0);
  breaker.failure(0);
  assert.equal(breaker.state, 'closed');
  assert.equal(breaker.allow(0), true);
});

test('opens at the threshold and refuses until the cooldown has passed', () => {
  const breaker = new CircuitBreaker(2, 1000);
  breaker.failure(100);
  breaker.failure(100);
  assert.equal(breaker.state, 'open');
  assert.equal(breaker.allow(100), false);
  assert.equal(breaker.allow(1099), false);
});

test('after the cooldown lets exactly one trial through; its success closes the breaker', () => {
  const breaker = new CircuitBreaker(1, 1000);
  breaker.failure(0);
  assert.equal(breaker.allow(1000), true);
  assert.equal(breaker.state, 'half-open');
  assert.equal(breaker.allow(1000), false, 'a second request waits for the trial');
  breaker.success();
  assert.equal(breaker.state, 'closed');
  assert.equal(breaker.allow(1000), true);
});

test('a failed trial opens the breaker again for a full cooldown', () => {
  const breaker = new CircuitBreaker(5, 1000);
  for (let i = 0; i < 5; i++) breaker.failure(0);
  assert.equal(breaker.allow(1000), true);
  breaker.failure(1000);
  assert.equal(breaker.state, 'open');
  assert.equal(breaker.allow(1999), false);
  assert.equal(breaker.allow(2000), true);
});
