import { nextUtcMidnight, utcDay } from '../credits/day.ts';
import type { CreditLedger } from '../credits/ledger.ts';
import { describeSettings } from './key-settings.ts';
import type { ApiKeyRecord } from './key-store.ts';

/** A key as the admin API, the CLI and the dashboard show it: settings plus today's balance. */
export type KeyView = Pick<
  ApiKeyRecord,
  'id' | 'name' | 'prefix' | 'project' | 'dailyCredits' | 'creditsPerSecond'
> & {
  settings: ReturnType<typeof describeSettings>;
  creditsUsedToday: number;
  creditsRemainingToday: number;
  day: string;
  resetsAt: string;
  createdAt: string;
  revokedAt: string | null;
};

export async function describeKey(
  record: ApiKeyRecord,
  ledger: CreditLedger,
  now = Date.now(),
): Promise<KeyView> {
  return keyView(record, await ledger.spent(record.id, now), now);
}

/** The view of a key whose credits spent today are already known (read before a change). */
export function keyView(record: ApiKeyRecord, spent: number, now = Date.now()): KeyView {
  return {
    id: record.id,
    name: record.name,
    prefix: record.prefix,
    project: record.project,
    dailyCredits: record.dailyCredits,
    creditsPerSecond: record.creditsPerSecond,
    settings: describeSettings(record.settings),

    creditsUsedToday: spent,
    creditsRemainingToday: Math.max(0, record.dailyCredits - spent),
    day: utcDay(now),
    resetsAt: nextUtcMidnight(now).toISOString(),
    createdAt: record.createdAt.toISOString(),
    revokedAt: record.revokedAt?.toISOString() ?? null,
  };
}
