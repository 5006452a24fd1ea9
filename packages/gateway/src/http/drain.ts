/** Counts work in flight (HTTP requests, WebSocket messages) so a shutdown can wait for it. */
export class InFlight {
  private count = 0;
  private waiters: (() => void)[] = [];

  /** Marks one piece of work started; call the returned function once when it is done. */
  begin(): () => void {
    this.start();
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.end();
    };
  }

  /** `begin` without a function to call: the caller calls `end` exactly once (one per HTTP response). */
  start() {
    this.count += 1;
  }

  end() {
    this.count -= 1;
    if (this.count === 0) for (const wake of this.waiters.splice(0)) wake();
  }

  get size() {
    return this.count;
  }

  /** Resolves true once nothing is in flight, or false when `timeoutMs` passes first. */
  idle(timeoutMs: number): Promise<boolean> {
    if (this.count === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== wake);
        resolve(false);
      }, timeoutMs);
      this.waiters.push(wake);
    });
  }
}
