import type { SubscriptionType } from '../types.ts';

/** Upper bounds (seconds) of the request duration histogram. */
export const DURATION_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
];

/**
 * The counts of one network and method. The request path only adds to plain numbers here; the
 * Prometheus metrics read them when scraped, so no label set is hashed or validated per request.
 */
export class MethodTally {
  requests = 0;
  durationSum = 0;
  /** Answers per duration bucket, not cumulative; the last slot is beyond every bound. */
  readonly durations: number[] = new Array(DURATION_BUCKETS.length + 1).fill(0);
  /** Answers by JSON-RPC error code. */
  readonly errors = new Map<number, number>();

  add(seconds: number, errorCode: number | undefined) {
    this.requests += 1;
    this.durationSum += seconds;
    let bucket = 0;
    while (bucket < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[bucket]) bucket++;
    this.durations[bucket] += 1;
    if (errorCode !== undefined) this.errors.set(errorCode, (this.errors.get(errorCode) ?? 0) + 1);
  }
}

/** The counts of one network. */
export class NetworkTally {
  readonly methods = new Map<string, MethodTally>();
  cacheHits = 0;
  cacheMisses = 0;
  cacheStale = 0;
  /** Credits charged by key id. */
  readonly credits = new Map<string, number>();
  readonly notifications = new Map<SubscriptionType, number>();

  method(name: string): MethodTally {
    let tally = this.methods.get(name);
    if (!tally) {
      tally = new MethodTally();
      this.methods.set(name, tally);
    }
    return tally;
  }

  charge(keyId: string, credits: number) {
    this.credits.set(keyId, (this.credits.get(keyId) ?? 0) + credits);
  }
}
