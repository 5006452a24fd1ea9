// When a live session ends. The service says how many seconds are left (by its own clock); the
// deadline is set on this device's clock from that, so two clocks that disagree neither shorten nor
// stretch the session. A timer drops the keys on time; the getters also check, because timers stop
// while a phone or laptop sleeps.

/** setTimeout's longest delay (about 24.8 days); longer sessions re-arm. */
const MAX_TIMER_MS = 2_147_483_647;

/** `exp` of a JWT (ms), read without verifying: only a fallback for services that do not say `expiresIn`. */
export function jwtExpiry(token: string | undefined): number | undefined {
  const part = token?.split('.')[1];
  if (!part) return undefined;
  try {
    const json = atob(part.replace(/-/g, '+').replace(/_/g, '/'));
    const exp = (JSON.parse(json) as { exp?: unknown }).exp;
    return typeof exp === 'number' ? exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}

export class SessionDeadline {
  private at?: number;
  private timer?: ReturnType<typeof setTimeout>;

  constructor(private readonly onDue: () => void) {}

  /** The deadline (ms since the epoch, this device's clock), or undefined when none is set. */
  get expiresAt(): number | undefined {
    return this.at;
  }

  /** Starts counting down to `at`; a previous deadline is replaced. */
  set(at: number | undefined): void {
    this.clear();
    this.at = at;
    this.arm();
  }

  clear(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.at = undefined;
  }

  /** True (and the deadline cleared) once the deadline has passed. */
  passed(): boolean {
    if (this.at === undefined || Date.now() < this.at) return false;
    this.clear();
    return true;
  }

  private arm(): void {
    if (this.at === undefined) return;
    const wait = Math.max(0, Math.min(this.at - Date.now(), MAX_TIMER_MS));
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.passed()) this.onDue();
      else this.arm();
    }, wait);
    // In Node, a pending session must not keep the process alive.
    (this.timer as { unref?: () => void }).unref?.();
  }
}

/**
 * A live session's time: when it ends, and (for a session the service can renew) when use of the
 * app renews it, once half its idle window is gone.
 */
export class SessionWindow {
  private readonly deadline: SessionDeadline;
  private renewAt?: number;
  /** The service can renew this session (it says the idle window; older services and sessions do not). */
  renewable = false;

  constructor(
    onDue: () => void,
    private readonly autoRenew: boolean,
  ) {
    this.deadline = new SessionDeadline(onDue);
  }

  /** The deadline (ms since the epoch, this device's clock), or undefined with no session. */
  get expiresAt(): number | undefined {
    return this.deadline.expiresAt;
  }

  /**
   * Starts the window of a session just read or renewed: `expiresIn` and `idleTime` as the service
   * says them (seconds), else the idToken's `exp`.
   */
  set(expiresIn: number | undefined, idleTime: number | undefined, idToken?: string): void {
    const now = Date.now();
    this.deadline.set(expiresIn !== undefined ? now + expiresIn * 1000 : jwtExpiry(idToken));
    this.renewable = idleTime !== undefined;
    this.renewAt =
      expiresIn !== undefined && idleTime !== undefined && this.autoRenew
        ? now + Math.max(0, expiresIn - idleTime / 2) * 1000
        : undefined;
  }

  clear(): void {
    this.deadline.clear();
    this.renewAt = undefined;
  }

  /** True (and the window cleared) once the deadline has passed. */
  passed(): boolean {
    if (!this.deadline.passed()) return false;
    this.renewAt = undefined;
    return true;
  }

  /** Use of the app should renew the session now. */
  get renewDue(): boolean {
    return this.renewAt !== undefined && Date.now() >= this.renewAt;
  }
}
