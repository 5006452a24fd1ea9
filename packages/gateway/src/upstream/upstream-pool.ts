import { GatewayError } from '../rpc/errors.ts';
import type { JsonResult } from '../rpc/json-result.ts';
import { CircuitBreaker } from './circuit-breaker.ts';
import type { HttpUpstream, UpstreamReply } from './http-upstream.ts';

const noUpstream = () => new GatewayError('upstreamUnavailable', 'No upstream node is available');

export type UpstreamMember = {
  upstream: HttpUpstream;
  breaker: CircuitBreaker;
  /** Latest block (or slot) number this upstream reported; -1 when unknown. */
  head: number;
  /** Its `safe` and `finalized` blocks (EVM) or finalized slot (Solana); -1 when unknown. */
  safe: number;
  finalized: number;
};

/** Block numbers every upstream in service has reached: what `latest`, `safe`, `finalized` mean. */
export type AgreedHeights = { latest: number; safe: number; finalized: number };

export type UpstreamPoolOptions = {
  /** Upstreams behind by more than this many blocks are used only when no other is available. */
  maxLag?: number;
  breakerThreshold?: number;
  breakerCooldownMs?: number;
  /** When set, an idempotent call still unanswered after this long is also sent to the next upstream. */
  hedgeAfterMs?: number;
  /** Methods that change something (the network's method specs): never sent twice, never hedged. */
  writes?: ReadonlySet<string>;
  /** Told each time a hedge is sent, and whether it won. */
  onHedge?: (outcome: 'sent' | 'won') => void;
  /** The head an upstream reported in an answer (see ChainHooks.headOfAnswer). */
  headOfAnswer?: (method: string, result: JsonResult) => number | undefined;
};

/**
 * Several upstreams of one network: requests go to the best available one (breaker closed, not
 * lagging, fewest failures), failed idempotent calls are retried on the next, slow ones may be
 * hedged, and an upstream the breaker has set aside is tried again after its cooldown.
 */
export class UpstreamPool {
  readonly members: UpstreamMember[];
  private readonly maxLag: number;
  private readonly hedgeAfterMs: number | undefined;
  private readonly onHedge: UpstreamPoolOptions['onHedge'];
  private readonly headOfAnswer: UpstreamPoolOptions['headOfAnswer'];
  private readonly writes: ReadonlySet<string>;
  private cursor = 0;

  constructor(upstreams: HttpUpstream[], options: UpstreamPoolOptions = {}) {
    this.members = upstreams.map((upstream) => ({
      upstream,
      breaker: new CircuitBreaker(options.breakerThreshold, options.breakerCooldownMs),
      head: -1,
      safe: -1,
      finalized: -1,
    }));
    this.maxLag = options.maxLag ?? 5;
    this.hedgeAfterMs = options.hedgeAfterMs;
    this.onHedge = options.onHedge;
    this.headOfAnswer = options.headOfAnswer;
    this.writes = options.writes ?? new Set();
  }

  /** The highest head among upstreams whose breaker is not open. */
  bestHead(): number {
    let best = -1;
    for (const m of this.members) if (m.breaker.state !== 'open' && m.head > best) best = m.head;
    return best;
  }

  /**
   * The heights every upstream in service (breaker not open, not lagging) has reached: the lowest
   * of their latest, safe and finalized blocks. Undefined until one has reported a head.
   */
  agreed(): AgreedHeights | undefined {
    const best = this.bestHead();
    if (best < 0) return undefined;
    let latest = best;
    let safe = Number.POSITIVE_INFINITY;
    let finalized = Number.POSITIVE_INFINITY;
    for (const m of this.members) {
      if (m.breaker.state === 'open' || m.head < 0 || best - m.head > this.maxLag) continue;
      latest = Math.min(latest, m.head);
      if (m.safe >= 0) safe = Math.min(safe, m.safe);
      if (m.finalized >= 0) finalized = Math.min(finalized, m.finalized);
    }
    return {
      latest,
      safe: Number.isFinite(safe) ? safe : -1,
      finalized: Number.isFinite(finalized) ? finalized : -1,
    };
  }

  /**
   * Calls the method on the best upstream, failing over (and hedging) for idempotent methods;
   * upstreams whose head is below `minHead` (the block the call names) are tried last.
   */
  call(method: string, params: unknown, minHead?: number): Promise<UpstreamReply> {
    const candidates = this.order(minHead);
    // One upstream (the common case) leaves nothing to fail over to or hedge with.
    if (candidates.length === 1 || this.writes.has(method)) return this.callOnce(candidates, method, params);
    return this.callWithFailover(candidates, method, params);
  }

  /**
   * Upstreams whose breaker is not open, in the order a call would try them (caught up to
   * `minHead` and not lagging first, round-robin among equals): for callers that pick the
   * upstream themselves (eth_getLogs in parts).
   */
  inService(minHead?: number): UpstreamMember[] {
    return this.order(minHead).filter((m) => m.breaker.state !== 'open');
  }

  /**
   * One call on the given upstream, counted by its breaker (and its head noted) like any call;
   * the caller has asked the breaker (`breaker.allow()`) already.
   */
  callMember(member: UpstreamMember, method: string, params: unknown): Promise<UpstreamReply> {
    return member.upstream.call(method, params).then(
      (reply) => {
        member.breaker.success();
        this.noteHead(member, method, reply);
        return reply;
      },
      (error: unknown) => {
        member.breaker.failure();
        throw error;
      },
    );
  }

  /** One attempt, on the first upstream that may take it (a write must never run twice). */
  private callOnce(candidates: UpstreamMember[], method: string, params: unknown): Promise<UpstreamReply> {
    const member = candidates.find((m) => m.breaker.allow());
    if (!member) return Promise.reject(noUpstream());
    return member.upstream.call(method, params).then(
      (reply) => {
        member.breaker.success();
        this.noteHead(member, method, reply);
        return reply;
      },
      (error: unknown) => {
        member.breaker.failure();
        throw error;
      },
    );
  }

  /**
   * Tries the candidates in order: the next one is called when the current one fails or, with
   * hedging on, when it has not answered within `hedgeAfterMs` (at most two calls run at once).
   * The first answer wins and the others are abandoned, which is not held against their upstream.
   */
  private callWithFailover(
    candidates: UpstreamMember[],
    method: string,
    params: unknown,
  ): Promise<UpstreamReply> {
    return new Promise((resolve, reject) => {
      let next = 0;
      let running = 0;
      let settled = false;
      let hedged = false;
      let hedgeTimer: NodeJS.Timeout | undefined;
      let lastError: unknown;
      const calls = new Set<AbortController>();

      const finish = () => {
        settled = true;
        clearTimeout(hedgeTimer);
        for (const controller of calls) controller.abort();
      };
      const launch = (asHedge: boolean): boolean => {
        while (next < candidates.length) {
          const member = candidates[next++];
          if (!member.breaker.allow()) continue;
          // Only hedged calls can be abandoned; without hedging no controller is needed.
          const controller = this.hedgeAfterMs === undefined ? undefined : new AbortController();
          if (controller) calls.add(controller);
          running += 1;
          if (asHedge) this.onHedge?.('sent');
          member.upstream.call(method, params, controller?.signal).then(
            (reply) => {
              if (controller) calls.delete(controller);
              member.breaker.success();
              this.noteHead(member, method, reply);
              if (settled) return;
              if (asHedge) this.onHedge?.('won');
              finish();
              resolve(reply);
            },
            (error: unknown) => {
              if (controller) calls.delete(controller);
              running -= 1;
              if (settled) return;
              member.breaker.failure();
              lastError = error;
              if (!launch(false) && running === 0) {
                finish();
                reject(lastError);
              }
            },
          );
          if (this.hedgeAfterMs !== undefined && !hedged && next < candidates.length) {
            clearTimeout(hedgeTimer);
            hedgeTimer = setTimeout(() => {
              if (settled) return;
              hedged = true;
              launch(true);
            }, this.hedgeAfterMs);
          }
          return true;
        }
        return false;
      };
      if (!launch(false)) reject(noUpstream());
    });
  }

  /** An answer that reports the upstream's head (eth_blockNumber) moves what the pool knows of it. */
  private noteHead(member: UpstreamMember, method: string, reply: UpstreamReply) {
    if (!this.headOfAnswer || !reply.ok) return;
    const head = this.headOfAnswer(method, reply.result);
    if (head !== undefined && head > member.head) member.head = head;
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
