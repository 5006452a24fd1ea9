import type { CreditLedger } from '../credits/ledger.ts';
import type { RateLimiter } from '../credits/rate-limiter.ts';
import type { ApiKeyRecord } from '../keys/key-store.ts';
import { GatewayError } from '../rpc/errors.ts';

/** Stage 4: draw the method's credits from today's balance before anything is forwarded. */
export async function charge(ledger: CreditLedger, key: ApiKeyRecord, method: string, cost: number) {
  const debit = await ledger.debit(key.id, key.dailyCredits, cost);
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

/** Stage 3: the key's credits-per-second cap, when it has one (HTTP 429 with Infura's data shape). */
export async function limitRate(limiter: RateLimiter, key: ApiKeyRecord, method: string, cost: number) {
  if (key.creditsPerSecond === null) return;
  const result = await limiter.take(key.id, cost, key.creditsPerSecond);
  if (result.ok) return;
  const backoffSeconds = Math.ceil(result.retryAfterMs / 100) / 10;
  throw new GatewayError(
    'rateLimited',
    `per-second credit limit reached: ${method} costs ${cost} credits and this key may spend ${key.creditsPerSecond} per second; retry in ${backoffSeconds} s`,
    { current_rps: result.current, allowed_rps: key.creditsPerSecond, backoff_seconds: backoffSeconds },
  );
}
