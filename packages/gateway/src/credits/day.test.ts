import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nextUtcMidnight, nextUtcMidnightText, utcDay } from './day.ts';

test('the reset time text formatted once per day is the next midnight of each moment, across days', () => {
  const moments = [
    Date.UTC(2026, 10, 23, 12),
    Date.UTC(2026, 10, 23, 23, 59, 59, 999),
    Date.UTC(2026, 10, 24),
    Date.UTC(2026, 10, 22, 5), // back to an earlier day
    Date.UTC(2026, 11, 31, 23, 30),
  ];
  for (const now of moments) {
    assert.equal(nextUtcMidnightText(now), nextUtcMidnight(now).toISOString());
    assert.equal(utcDay(now), new Date(now).toISOString().slice(0, 10));
  }
});
