import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ApiKeyRecord } from '../keys/key-store.ts';
import { limitRate } from '../pipeline/charge.ts';
import { GatewayError } from '../rpc/errors.ts';
import { MemoryRateLimiter } from './rate-limiter.ts';

const SECOND = 1_700_000_000_000; // a whole second

test('a window admits credits up to the cap; a refused take spends nothing and says how long to wait', async () => {
  const limiter = new MemoryRateLimiter();
  assert.deepEqual(await limiter.take('k', 40, 100, SECOND + 10), { ok: true });
  assert.deepEqual(await limiter.take('k', 60, 100, SECOND + 20), { ok: true }, 'exactly the cap fits');
  assert.deepEqual(await limiter.take('k', 1, 100, SECOND + 250), {
    ok: false,
    current: 100,
    retryAfterMs: 750,
  });
  assert.deepEqual(await limiter.take('k', 1, 100, SECOND + 999), {
    ok: false,
    current: 100,
    retryAfterMs: 1,
  });
  assert.deepEqual(
    await limiter.take('k', 100, 100, SECOND + 1000),
    { ok: true },
    'the next second starts empty',
  );
});

test('keys have windows of their own', async () => {
  const limiter = new MemoryRateLimiter();
  assert.equal((await limiter.take('a', 100, 100, SECOND)).ok, true);
  assert.equal((await limiter.take('a', 1, 100, SECOND)).ok, false);
  assert.equal((await limiter.take('b', 100, 100, SECOND)).ok, true);
});

test('a take larger than the cap is refused even in an empty window', async () => {
  const limiter = new MemoryRateLimiter();
  assert.deepEqual(await limiter.take('k', 101, 100, SECOND + 500), {
    ok: false,
    current: 0,
    retryAfterMs: 500,
  });
});

test('calls without a moment use the injected clock', async () => {
  let now = SECOND;
  const limiter = new MemoryRateLimiter(() => now);
  assert.equal((await limiter.take('k', 80, 100)).ok, true);
  assert.equal((await limiter.take('k', 80, 100)).ok, false);
  now += 1000;
  assert.equal((await limiter.take('k', 80, 100)).ok, true);
});

test('in process, the refusal carries the 429 data Infura clients read (current_rps, allowed_rps, backoff_seconds)', async () => {
  const limiter = new MemoryRateLimiter(() => SECOND + 300);
  const key = { id: 'k', creditsPerSecond: 100 } as ApiKeyRecord;
  assert.equal(
    limitRate(limiter, { ...key, creditsPerSecond: null }, 'eth_call', 80),
    undefined,
    'no cap, no wait',
  );
  await limitRate(limiter, key, 'eth_call', 80);
  const refused = await limitRate(limiter, key, 'eth_call', 80)?.then(
    () => assert.fail('the second call in the second must be refused'),
    (error: unknown) => error,
  );
  assert.ok(refused instanceof GatewayError);
  assert.equal(refused.kind, 'rateLimited');
  assert.equal(refused.rpcCode('evm'), -32005);
  assert.deepEqual(refused.data, { current_rps: 80, allowed_rps: 100, backoff_seconds: 0.7 });
  assert.match(
    refused.message,
    /eth_call costs 80 credits and this key may spend 100 per second; retry in 0.7 s/,
  );
});
