/** The UTC day a moment belongs to, as YYYY-MM-DD; balances reset when it changes. */
export function utcDay(now: number): string {
  return new Date(now).toISOString().slice(0, 10);
}

/** The next 00:00 UTC after `now`, when daily balances reset. */
export function nextUtcMidnight(now: number): Date {
  const date = new Date(now);
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate() + 1));
}
