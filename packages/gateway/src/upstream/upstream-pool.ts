import { GatewayError } from '../rpc/errors.ts';
import { CircuitBreaker } from './circuit-breaker.ts';
import type { HttpUpstream, UpstreamReply } from './http-upstream.ts';

/** Methods that change nothing: safe to send again to another upstream after a failure. */
export const NOT_IDEMPOTENT = new Set([
  'eth_sendRawTransaction',
  'eth_sendTransaction',
  'sendTransaction',
  'requestAirdrop',
]);

export type UpstreamMember = {
  upstream: HttpUpstream;
  breaker: CircuitBreaker;
  /** Latest block (or slot) number this upstream reported; -1 when unknown. */
  head: number;
};

export type UpstreamPoolOptions = {
  /** Upstreams behind by more than this many blocks are used only when no other is available. */
  maxLag?: number;
  breakerThreshold?: number;
  breakerCooldownMs?: number;
};

/**
 * Several upstreams of one network: requests go to the best available one (breaker closed, not
 * lagging, fewest failures), failed idempotent calls are retried on the next, and an upstream the
 * breaker has set aside is tried again after its cooldown.
 */
export class UpstreamPool {
  readonly members: UpstreamMember[];
  private readonly maxLag: number;
  private cursor = 0;

  constructor(upstreams: HttpUpstream[], options: UpstreamPoolOptions = {}) {
    this.members = upstreams.map((upstream) => ({
      upstream,
      breaker: new CircuitBreaker(options.breakerThreshold, options.breakerCooldownMs),
      head: -1,
    }));
    this.maxLag = options.maxLag ?? 5;
  }

  /** The highest head among upstreams whose breaker is not open. */
  bestHead(): number {
    let best = -1;
    for (const m of this.members) if (m.breaker.state !== 'open' && m.head > best) best = m.head;
    return best;
  }

  /** Calls the method on the best upstream, failing over to the others for idempotent methods. */
  async call(method: string, params: unknown, options: { minHead?: number } = {}): Promise<UpstreamReply> {
    const candidates = this.order(options.minHead);
    const retry = !NOT_IDEMPOTENT.has(method);
    let lastError: unknown = new GatewayError('upstreamUnavailable', 'No upstream node is available');
    for (const member of candidates) {
      if (!member.breaker.allow()) continue;
      try {
        const reply = await member.upstream.call(method, params);
        member.breaker.success();
        return reply;
      } catch (error) {
        member.breaker.failure();
        lastError = error;
        if (!retry) break;
      }
    }
    throw lastError;
  }

  /** Upstreams in the order to try: healthy and caught up first (round-robin among equals). */
  private order(minHead?: number): UpstreamMember[] {
    if (this.members.length === 1) return this.members;
    const best = this.bestHead();
    const start = this.cursor++ % this.members.length;
    const rotated = [...this.members.slice(start), ...this.members.slice(0, start)];
    const rank = (m: UpstreamMember) =>
      (m.breaker.state === 'open' ? 4 : 0) +
      (minHead !== undefined && m.head >= 0 && m.head < minHead ? 2 : 0) +
      (best >= 0 && m.head >= 0 && best - m.head > this.maxLag ? 1 : 0);
    return rotated.sort((a, b) => rank(a) - rank(b));
  }

  async close() {
    await Promise.all(this.members.map((m) => m.upstream.close()));
  }

  /** Closes every upstream at once, failing calls still running. */
  async destroy() {
    await Promise.all(this.members.map((m) => m.upstream.destroy()));
  }
}
