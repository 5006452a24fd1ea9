// The per-connection notification meter on its own, with the embedded stores: delivery order when
// debits finish out of order, notifications of ended subscriptions, and a credit store that cannot
// be reached (the real Redis ledger on a closed port, failing closed) ending the connection with 1011.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import {
  type ApiKeyRecord,
  type CreditLedger,
  createRedisClient,
  openEmbeddedStores,
  RedisCreditLedger,
} from '../src/index.ts';
import {
  MAX_QUEUED_NOTIFICATIONS,
  NotificationMeter,
  type NotificationMeterOptions,
} from '../src/ws/notification-meter.ts';
import { closedPort } from './harness.ts';

const stores = openEmbeddedStores(undefined);
after(() => stores.close());

const COSTS = { newHeads: 50, logs: 300 };

async function keyWith(dailyCredits: number): Promise<ApiKeyRecord> {
  return (await stores.keys.create({ name: 'meter', dailyCredits })).record;
}

function meterFor(key: ApiKeyRecord, options: Partial<NotificationMeterOptions> = {}) {
  const sent: unknown[] = [];
  const severed: [number, string][] = [];
  const meter = new NotificationMeter({
    ledger: stores.ledger,
    usage: stores.usage,
    key: async () => key,
    costs: COSTS,
    send: (message) => sent.push(message),
    sever: (code, reason) => severed.push([code, reason]),
    ...options,
  });
  return { meter, sent, severed };
}

/** Lets pending promise callbacks and I/O run. */
const turn = () => new Promise((resolve) => setImmediate(resolve));

test('notifications leave in arrival order even when their debits finish out of order', async () => {
  // The memory ledger behind a gate the test opens newest-first: without the per-connection queue
  // the later notifications would be paid, and sent, first. Neither real ledger can be made to
  // finish out of order on demand, hence the gate.
  const gates: (() => void)[] = [];
  const ledger: CreditLedger = {
    debit: async (keyId, dailyLimit, cost) => {
      await new Promise<void>((resolve) => gates.push(resolve));
      return stores.ledger.debit(keyId, dailyLimit, cost);
    },
    refund: (keyId, cost) => stores.ledger.refund(keyId, cost),
    spent: (keyId) => stores.ledger.spent(keyId),
    close: async () => {},
  };
  const key = await keyWith(10_000);
  const { meter, sent } = meterFor(key, { ledger });
  for (const n of [1, 2, 3]) meter.deliver('newHeads', n, () => true);
  for (let i = 0; i < 100 && sent.length < 3; i++) {
    await turn();
    gates.pop()?.();
  }
  assert.deepEqual(sent, [1, 2, 3]);
  assert.equal(await stores.ledger.spent(key.id), 150);
});

test('a notification whose subscription ended before its turn, or while it was paid, is neither sent nor charged', async () => {
  const key = await keyWith(10_000);
  const { meter, sent } = meterFor(key);
  let asked = 0;
  meter.deliver('logs', 'ended before its turn', () => false);
  meter.deliver('logs', 'ended while paid', () => ++asked === 1);
  meter.deliver('logs', 'wanted', () => true);
  for (let i = 0; i < 100 && sent.length < 1; i++) await turn();
  assert.deepEqual(sent, ['wanted']);
  assert.equal(asked, 2, 'asked before and after the debit');
  assert.equal(await stores.ledger.spent(key.id), 300, 'the debit of the ended one was given back');
  const rows = await stores.usage.usage({ keyId: key.id });
  assert.deepEqual(
    rows.map((r) => [r.method, r.requests, r.credits]),
    [['eth_subscription:logs', 1, 300]],
  );
});

test('a credit store that cannot be reached (redisFailure: closed) ends the connection with 1011 and sends nothing unmetered', async () => {
  const redis = createRedisClient(`redis://127.0.0.1:${await closedPort()}`, { maxReconnectDelayMs: 100 });
  try {
    const errors: unknown[] = [];
    const key = await keyWith(10_000);
    const { meter, sent, severed } = meterFor(key, {
      ledger: new RedisCreditLedger(redis, { failure: 'closed' }),
      onError: (error) => errors.push(error),
    });
    meter.deliver('newHeads', 'first', () => true);
    meter.deliver('newHeads', 'second', () => true);
    for (let i = 0; i < 100 && severed.length < 1; i++) await turn();
    await turn();
    assert.deepEqual(severed, [[1011, 'metering is unavailable; reconnect and subscribe again shortly']]);
    assert.deepEqual(sent, []);
    assert.equal(errors.length, 1);
    assert.deepEqual(await stores.usage.usage({ keyId: key.id }), []);
  } finally {
    redis.disconnect();
  }
});

test('a backlog beyond the cap closes the connection with 1013 instead of growing without bound', async () => {
  // A debit that never finishes (a credit store hanging): nothing leaves the queue.
  const ledger: CreditLedger = {
    debit: () => new Promise(() => {}),
    refund: async () => {},
    spent: async () => 0,
    close: async () => {},
  };
  const key = await keyWith(10_000);
  const { meter, sent, severed } = meterFor(key, { ledger });
  for (let i = 0; i <= MAX_QUEUED_NOTIFICATIONS; i++) meter.deliver('newHeads', i, () => true);
  await turn();
  assert.deepEqual(severed, [
    [1013, 'notifications arrive faster than they can be metered; reconnect later'],
  ]);
  assert.equal(sent.length, 0);
});
