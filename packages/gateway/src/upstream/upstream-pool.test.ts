import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { HttpUpstream } from './http-upstream.ts';
import { UpstreamPool } from './upstream-pool.ts';

// Heads and breakers are set by hand: no upstream is called (the addresses are never dialled).
const pools: UpstreamPool[] = [];
function pool(heads: { head: number; safe?: number; finalized?: number }[], maxLag = 5) {
  const p = new UpstreamPool(
    heads.map((_, i) => new HttpUpstream(`http://127.0.0.1:1/${i}`)),
    { maxLag, breakerThreshold: 1 },
  );
  for (const [i, h] of heads.entries()) Object.assign(p.members[i], { safe: -1, finalized: -1, ...h });
  pools.push(p);
  return p;
}
after(() => Promise.all(pools.map((p) => p.close())));

test('no head reported yet: no best head and no agreed heights', () => {
  const p = pool([{ head: -1 }, { head: -1 }]);
  assert.equal(p.bestHead(), -1);
  assert.equal(p.agreed(), undefined);
});

test('agreed heights are the lowest every upstream in service has reached', () => {
  const p = pool([
    { head: 100, safe: 90, finalized: 80 },
    { head: 98, safe: 92, finalized: 78 },
  ]);
  assert.equal(p.bestHead(), 100);
  assert.deepEqual(p.agreed(), { latest: 98, safe: 90, finalized: 78 });
});

test('an upstream lagging more than maxLag does not hold the others back', () => {
  const p = pool(
    [
      { head: 100, finalized: 90 },
      { head: 50, finalized: 40 },
    ],
    5,
  );
  assert.deepEqual(p.agreed(), { latest: 100, safe: -1, finalized: 90 });
});

test('an upstream whose breaker is open counts neither for the best head nor the agreed heights', () => {
  const p = pool([{ head: 100 }, { head: 120 }]);
  p.members[1].breaker.failure();
  assert.equal(p.members[1].breaker.state, 'open');
  assert.equal(p.bestHead(), 100);
  assert.equal(p.agreed()?.latest, 100);
});

test('one upstream far ahead moves neither the network head nor latest, and evicts no one', () => {
  const p = pool([{ head: 100 }, { head: 101 }, { head: 1000 }]);
  assert.equal(p.networkHead(), 101);
  assert.deepEqual(
    p.members.map((m) => p.isLagging(m)),
    [false, false, false],
  );
  assert.equal(p.agreed()?.latest, 100);
});

test('one upstream far behind is lagging and does not hold latest back', () => {
  const p = pool([{ head: 100 }, { head: 101 }, { head: 10 }], 5);
  assert.equal(p.networkHead(), 100);
  assert.deepEqual(
    p.members.map((m) => [p.lagOf(m), p.isLagging(m)]),
    [
      [0, false],
      [0, false],
      [90, true],
    ],
  );
  assert.equal(p.agreed()?.latest, 100);
});
