import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MemoryCreditLedger } from './memory-ledger.ts';

test('debitNow without a moment debits today, as the request path calls it', async () => {
  const ledger = new MemoryCreditLedger();
  assert.deepEqual(ledger.debitNow('key', 100, 30), { ok: true, remaining: 70 });
  ledger.refundNow('key', 10);
  assert.equal(await ledger.spent('key'), 20);
  assert.equal(ledger.debitNow('key', 100, 81).ok, false);
});
