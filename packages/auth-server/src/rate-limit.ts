// Per-address request limits on the endpoints that mint tokens or write to the store (/dev/token,
// parking a login request, JWT and development logins) and on session reads, so a flood from one
// address cannot fill the store or scan it. Counted in memory per instance (fixed one-minute
// windows): with N instances an address gets up to N times the limit.
import { HttpError } from './http.ts';

export interface RateLimits {
  /** Requests per minute per address to each token-minting or store-writing endpoint. */
  tokensPerMinute: number;
  /** `/api/session/get` requests per minute per address. */
  readsPerMinute: number;
}

export const DEFAULT_RATE_LIMITS: RateLimits = { tokensPerMinute: 300, readsPerMinute: 1200 };

const WINDOW_MS = 60_000;
/** Beyond this many tracked (path, address) pairs, expired windows are swept. */
const SWEEP_AT = 10_000;

export class RateLimitedError extends HttpError {
  override readonly name: string = 'RateLimitedError';

  constructor(readonly retryAfterSeconds: number) {
    super(429, 'RATE_LIMITED', `Too many requests from this address: try again in ${retryAfterSeconds} s`, {
      details: { retryAfter: retryAfterSeconds },
    });
  }
}

export function checkRateLimits(limits: Partial<RateLimits> | undefined): RateLimits {
  const out = { ...DEFAULT_RATE_LIMITS, ...limits };
  for (const [name, value] of Object.entries(out)) {
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new Error(`auth: rateLimits.${name} must be a whole number, 1 or more`);
    }
  }
  return out;
}

export class RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();
  constructor(
    private readonly limits: RateLimits,
    private readonly tokenPaths: ReadonlySet<string>,
    private readonly readPaths: ReadonlySet<string>,
    private readonly now: () => number,
  ) {}

  /** Counts a request; throws `RateLimitedError` past the path's limit for this address. */
  take(path: string, address: string): void {
    const limit = this.tokenPaths.has(path)
      ? this.limits.tokensPerMinute
      : this.readPaths.has(path)
        ? this.limits.readsPerMinute
        : undefined;
    if (limit === undefined) return;
    const now = this.now();
    if (this.windows.size > SWEEP_AT) {
      for (const [key, w] of this.windows) if (now - w.start >= WINDOW_MS) this.windows.delete(key);
    }
    const key = `${path} ${address}`;
    let window = this.windows.get(key);
    if (!window || now - window.start >= WINDOW_MS) {
      window = { start: now, count: 0 };
      this.windows.set(key, window);
    }
    window.count++;
    if (window.count > limit) {
      throw new RateLimitedError(Math.max(1, Math.ceil((window.start + WINDOW_MS - now) / 1000)));
    }
  }
}
