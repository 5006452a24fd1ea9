import type { CreditLedger, DebitResult } from '../credits/ledger.ts';
import type { RateLimiter } from '../credits/rate-limiter.ts';
import type { ApiKeyRecord } from '../keys/key-store.ts';
import { GatewayError } from '../rpc/errors.ts';

/**
 * Charge: draw the method's credits from today's balance before anything is forwarded. Returns
 * the credits left; a number at once when the ledger can decide without waiting for its store
 * (`debitNow`), else a Promise. Throws (or rejects) `dailyCreditsExhausted` when the balance is short.
 */
export function charge(
  ledger: CreditLedger,
  key: ApiKeyRecord,
  method: string,
  cost: number,
): number | Promise<number> {
  const now = ledger.debitNow?.(key.id, key.dailyCredits, cost);
  if (now !== undefined) return remainingAfter(now, key, method, cost);
  return ledger
    .debit(key.id, key.dailyCredits, cost)
    .then((debit) => remainingAfter(debit, key, method, cost));
}

function remainingAfter(debit: DebitResult, key: ApiKeyRecord, method: string, cost: number): number {
  if (debit.ok) return debit.remaining;
  throw new GatewayError(
    'dailyCreditsExhausted',
    `daily credit limit reached: ${method} costs ${cost} credits and ${debit.remaining} of ${key.dailyCredits} are left today; the balance resets at 00:00 UTC (${debit.resetsAt.toISOString()})`,
    {
      dailyCredits: key.dailyCredits,
      remaining: debit.remaining,
      cost,
      resetsAt: debit.resetsAt.toISOString(),
    },
  );
}

/**
 * Rate: the key's credits-per-second cap, when it has one (HTTP 429 with Infura's data shape).
 * A key without a cap (most) gets undefined, not a Promise: nothing to wait for on the request path.
 */
export function limitRate(
  limiter: RateLimiter,
  key: ApiKeyRecord,
  method: string,
  cost: number,
): Promise<void> | undefined {
  if (key.creditsPerSecond === null) return undefined;
  return takeOrRefuse(limiter, key, key.creditsPerSecond, method, cost);
}

async function takeOrRefuse(
  limiter: RateLimiter,
  key: ApiKeyRecord,
  creditsPerSecond: number,
  method: string,
  cost: number,
) {
  const result = await limiter.take(key.id, cost, creditsPerSecond);
  if (result.ok) return;
  const backoffSeconds = Math.ceil(result.retryAfterMs / 100) / 10;
  throw new GatewayError(
    'rateLimited',
    `per-second credit limit reached: ${method} costs ${cost} credits and this key may spend ${creditsPerSecond} per second; retry in ${backoffSeconds} s`,
    { current_rps: result.current, allowed_rps: creditsPerSecond, backoff_seconds: backoffSeconds },
  );
}
