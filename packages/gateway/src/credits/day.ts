let cached = { start: 0, end: 0, day: '', resetsAt: '' };

/** The UTC day a moment belongs to, as YYYY-MM-DD; balances reset when it changes. */
export function utcDay(now: number): string {
  // On the request path several times per request: formatted once per day.
  if (now >= cached.start && now < cached.end) return cached.day;
  const date = new Date(now);
  const start = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
  cached = {
    start,
    end: start + 86_400_000,
    day: date.toISOString().slice(0, 10),
    resetsAt: new Date(start + 86_400_000).toISOString(),
  };
  return cached.day;
}

/** `nextUtcMidnight(now).toISOString()`, formatted once per day (an answer header on every request). */
export function nextUtcMidnightText(now: number): string {
  utcDay(now);
  return cached.resetsAt;
}

/** The next 00:00 UTC after `now`, when daily balances reset. */
export function nextUtcMidnight(now: number): Date {
  const date = new Date(now);
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate() + 1));
}
