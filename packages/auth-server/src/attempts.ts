// Attempt limits on every factor a person types (password, backup phrase, social-backup login):
// counted in the service's store per user and per client address, so instances sharing
// PostgreSQL count together. The rules follow Keycloak's brute-force detection (failure factor,
// wait increment, maximum wait, quick-failure check, failure reset time) with one change: past the
// failure factor each further failure doubles the wait (Keycloak adds one increment per
// `failureFactor` failures), so a script reaches the maximum wait after five more guesses.
import { BaseError } from './base-error.ts';
import type { AuthStore } from './store.ts';

export interface AttemptLimits {
  /** Failures (per user, and per client address) before the first wait. Keycloak's `failureFactor`: 30. */
  failureFactor: number;
  /** The first wait, doubled by each further failure. Keycloak's `waitIncrementSeconds`: 60. */
  waitIncrementSeconds: number;
  /** The longest wait: the lockout. Keycloak's `maxFailureWaitSeconds`: 900 (15 min). */
  maxWaitSeconds: number;
  /** A user's failure this soon after the previous one is a script's. Keycloak's `quickLoginCheckMilliSeconds`: 1000. */
  quickFailureMs: number;
  /** The wait after a quick failure. Keycloak's `minimumQuickLoginWaitSeconds`: 60. */
  quickFailureWaitSeconds: number;
  /** Failures older than this are forgotten. Keycloak's `maxDeltaTimeSeconds`: 43200 (12 h). */
  resetAfterSeconds: number;
}

export const DEFAULT_ATTEMPT_LIMITS: AttemptLimits = {
  failureFactor: 30,
  waitIncrementSeconds: 60,
  maxWaitSeconds: 900,
  quickFailureMs: 1000,
  quickFailureWaitSeconds: 60,
  resetAfterSeconds: 43_200,
};

/** Who an attempt counts against. */
export interface AttemptSubjects {
  userId: string;
  address: string;
}

/** An attempt refused because the user or the address must wait (a right guess too). */
export class TooManyAttemptsError extends BaseError {
  override readonly name: string = 'TooManyAttemptsError';
  constructor(
    readonly notBefore: number,
    readonly retryAfterSeconds: number,
  ) {
    super(
      'TOO_MANY_ATTEMPTS',
      `Too many failed attempts: try again after ${new Date(notBefore).toISOString()} (in ${retryAfterSeconds} s)`,
      { status: 429, details: { retryAfter: retryAfterSeconds } },
    );
  }
}

export const userSubject = (userId: string) => `user:${userId}`;
export const addressSubject = (address: string) => `address:${address}`;

export function checkAttemptLimits(limits: Partial<AttemptLimits> | undefined): AttemptLimits {
  const out = { ...DEFAULT_ATTEMPT_LIMITS, ...limits };
  for (const [name, value] of Object.entries(out)) {
    if (!Number.isSafeInteger(value) || value < (name === 'quickFailureMs' ? 0 : 1)) {
      throw new Error(`auth: attemptLimits.${name} must be a whole number, 1 or more`);
    }
  }
  if (out.maxWaitSeconds < out.waitIncrementSeconds) {
    throw new Error('auth: attemptLimits.maxWaitSeconds must be at least waitIncrementSeconds');
  }
  return out;
}

/** The wait (s) after the `failures`-th failure; `quick` when it came right after the previous one. */
export function waitAfter(limits: AttemptLimits, failures: number, quick: boolean): number {
  if (failures >= limits.failureFactor) {
    const doublings = Math.min(failures - limits.failureFactor, 30);
    return Math.min(limits.maxWaitSeconds, limits.waitIncrementSeconds * 2 ** doublings);
  }
  return quick ? Math.min(limits.maxWaitSeconds, limits.quickFailureWaitSeconds) : 0;
}

/**
 * `waitAfter` as SQL (milliseconds), so the store computes the wait in the statement that counts
 * the failure. Only validated whole numbers are written into it.
 */
export function waitSql(limits: AttemptLimits, failures: string, quick: string): string {
  const cases: string[] = [];
  for (let extra = 0; ; extra++) {
    const wait = waitAfter(limits, limits.failureFactor + extra, false);
    if (wait >= limits.maxWaitSeconds || extra >= 30) {
      cases.push(`WHEN ${failures} >= ${limits.failureFactor + extra} THEN ${wait * 1000}`);
      break;
    }
    cases.push(`WHEN ${failures} = ${limits.failureFactor + extra} THEN ${wait * 1000}`);
  }
  const quickWait = Math.min(limits.maxWaitSeconds, limits.quickFailureWaitSeconds) * 1000;
  return `(CASE ${cases.join(' ')} WHEN ${quick} = 1 THEN ${quickWait} ELSE 0 END)`;
}

/** The answer of `AttemptLimiter.begin`: go ahead (the attempt is counted), or wait. */
export type AttemptGate =
  | {
      allowed: true;
      notBefore: number;
      /** What this attempt, if wrong, makes wait: `user`, `address` or both (`user, address`). */
      locks: string;
    }
  | { allowed: false; error: TooManyAttemptsError };

export class AttemptLimiter {
  constructor(
    private readonly store: AuthStore,
    readonly limits: AttemptLimits,
    private readonly now: () => number,
  ) {}

  /**
   * Counts an attempt against the user and the address before the factor is checked (parallel
   * guesses cannot slip past a wait), or refuses it while either waits. `notBefore` is the wait
   * this attempt starts if it turns out wrong.
   */
  async begin({ userId, address }: AttemptSubjects): Promise<AttemptGate> {
    const now = this.now();
    const rule = (quick: boolean) => ({
      resetAfterMs: this.limits.resetAfterSeconds * 1000,
      quickFailureMs: quick ? this.limits.quickFailureMs : 0,
      waitSql: (failures: string, isQuick: string) => waitSql(this.limits, failures, isQuick),
    });
    // The quick-failure check is per user: many users behind one address fail close together.
    const user = await this.store.beginAttempt(userSubject(userId), now, rule(true));
    const addr = await this.store.beginAttempt(addressSubject(address), now, rule(false));
    if (user.counted && addr.counted) {
      const locks = [user.notBefore > now && 'user', addr.notBefore > now && 'address'].filter(Boolean);
      // The store keeps 0 for "no wait"; the gate says `now`.
      return {
        allowed: true,
        notBefore: Math.max(now, user.notBefore, addr.notBefore),
        locks: locks.join(', '),
      };
    }
    // Refused before its factor was checked, the attempt never happened: neither its count nor a
    // wait it started stays (an address must not wait for a guess the user's wait refused).
    if (user.counted) await this.store.uncountAttempt(userSubject(userId), user.notBefore);
    if (addr.counted) await this.store.uncountAttempt(addressSubject(address), addr.notBefore);
    const notBefore = Math.max(user.counted ? 0 : user.notBefore, addr.counted ? 0 : addr.notBefore);
    return {
      allowed: false,
      error: new TooManyAttemptsError(notBefore, Math.max(1, Math.ceil((notBefore - now) / 1000))),
    };
  }

  /**
   * A right guess: the user's count starts again; the address gets this attempt back (its other
   * failures stay: one right guess must not clear an address's failures against other users).
   */
  async succeeded({ userId, address }: AttemptSubjects): Promise<void> {
    await this.store.clearAttempts(userSubject(userId));
    await this.store.uncountAttempt(addressSubject(address));
  }
}
