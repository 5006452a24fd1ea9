export type BreakerState = 'closed' | 'open' | 'half-open';

/**
 * Sets an upstream aside after `failureThreshold` failures in a row, for `cooldownMs`; then lets one
 * trial request through (half-open) and closes again on its success.
 */
export class CircuitBreaker {
  private failures = 0;
  private openedAt = 0;
  private trialInFlight = false;
  state: BreakerState = 'closed';

  constructor(
    private readonly failureThreshold = 3,
    private readonly cooldownMs = 5000,
  ) {}

  /** Whether a request may go to this upstream now (claims the half-open trial if it is due). */
  allow(now = Date.now()): boolean {
    if (this.state === 'closed') return true;
    if (this.state === 'open' && now - this.openedAt >= this.cooldownMs) {
      this.state = 'half-open';
      this.trialInFlight = false;
    }
    if (this.state === 'half-open' && !this.trialInFlight) {
      this.trialInFlight = true;
      return true;
    }
    return false;
  }

  success() {
    this.failures = 0;
    this.state = 'closed';
    this.trialInFlight = false;
  }

  failure(now = Date.now()) {
    this.failures += 1;
    if (this.state === 'half-open' || this.failures >= this.failureThreshold) {
      this.state = 'open';
      this.openedAt = now;
      this.trialInFlight = false;
    }
  }
}
