export type RateResult = { ok: true } | { ok: false; current: number; retryAfterMs: number };

/** Per-key credits-per-second caps. */
export interface RateLimiter {
  /** Takes `credits` from the key's current one-second window if that stays within `perSecond`. */
  take(keyId: string, credits: number, perSecond: number, now?: number): Promise<RateResult>;
  close(): Promise<void>;
}

/** One-second windows in memory, for a single gateway process. */
export class MemoryRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, { second: number; used: number }>();

  /** `clock` is the time of calls without `now` (tests freeze it to stay inside one second). */
  constructor(private readonly clock: () => number = Date.now) {}

  async take(keyId: string, credits: number, perSecond: number, now = this.clock()): Promise<RateResult> {
    const second = Math.floor(now / 1000);
    let window = this.windows.get(keyId);
    if (!window || window.second !== second) {
      if (this.windows.size > 100_000) this.windows.clear();
      window = { second, used: 0 };
      this.windows.set(keyId, window);
    }
    if (window.used + credits > perSecond) {
      return { ok: false, current: window.used, retryAfterMs: (second + 1) * 1000 - now };
    }
    window.used += credits;
    return { ok: true };
  }

  async close() {}
}
