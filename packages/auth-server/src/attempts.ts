// Attempt limits on every factor a person types (password, backup phrase, social-backup login):
// counted in the service's store per user and per client address, so instances sharing
// PostgreSQL count together. The rules follow Keycloak's brute-force detection (failure factor,
// wait increment, maximum wait, quick-failure check, failure reset time) with one change: past the
// failure factor each further failure doubles the wait (Keycloak adds one increment per
// `failureFactor` failures), so a script reaches the maximum wait after five more guesses.
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
export class TooManyAttemptsError extends Error {
  override name = 'TooManyAttemptsError';
  constructor(
    readonly notBefore: number,
    readonly retryAfterSeconds: number,
  ) {
    super(
      `Too many failed attempts: try again after ${new Date(notBefore).toISOString()} (in ${retryAfterSeconds} s)`,
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

export class AttemptLimiter {
  constructor(
    private readonly store: AuthStore,
    readonly limits: AttemptLimits,
    private readonly now: () => number,
  ) {}

  /** Throws `TooManyAttemptsError` while the user or the address must wait. */
  async check({ userId, address }: AttemptSubjects): Promise<void> {
    const now = this.now();
    let notBefore = 0;
    for (const subject of [userSubject(userId), addressSubject(address)]) {
      const row = await this.store.getAttempts(subject);
      if (row && row.notBefore > notBefore) notBefore = row.notBefore;
    }
    if (notBefore > now) throw new TooManyAttemptsError(notBefore, Math.ceil((notBefore - now) / 1000));
  }

  /** Counts a wrong guess; the wait it starts (ms timestamp), or 0. */
  async failed({ userId, address }: AttemptSubjects): Promise<number> {
    const now = this.now();
    const reset = this.limits.resetAfterSeconds * 1000;
    let notBefore = 0;
    // The quick-failure check is per user: many users behind one address fail close together.
    for (const [subject, quickCheck] of [
      [userSubject(userId), true],
      [addressSubject(address), false],
    ] as const) {
      const { failures, previousFailure } = await this.store.recordFailure(subject, now, reset);
      const quick = quickCheck && previousFailure > 0 && now - previousFailure < this.limits.quickFailureMs;
      const wait = waitAfter(this.limits, failures, quick);
      if (wait > 0) {
        await this.store.lockUntil(subject, now + wait * 1000);
        notBefore = Math.max(notBefore, now + wait * 1000);
      }
    }
    return notBefore;
  }

  /** A right guess: the user's count starts again; the address's stays (one right guess must not clear its failures against other users). */
  async succeeded({ userId }: AttemptSubjects): Promise<void> {
    await this.store.clearAttempts(userSubject(userId));
  }
}
