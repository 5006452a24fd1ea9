import type { CreditLedger } from '../credits/ledger.ts';
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
