import { GatewayError } from '../rpc/errors.ts';
import type { JsonResult } from '../rpc/json-result.ts';
import { CircuitBreaker } from './circuit-breaker.ts';
import type { HttpUpstream, UpstreamReply } from './http-upstream.ts';
import { isMethodRefusal, MethodRefusals, MethodRefused } from './method-refusals.ts';
import { isMissingState, MissingState } from './missing-state.ts';

const noUpstream = () =>
  new GatewayError(
    'upstreamUnavailable',
    'No upstream node is available (every one is down, cordoned or at its maxConcurrency); retry shortly',
  );

export type UpstreamMember = {
  upstream: HttpUpstream;
  /** How the admin API and /readyz name it: its configured name, else its index. */
  name: string;
  /** Taken out by an operator: no new calls (those in flight finish); still polled for its head. */
  cordoned: boolean;
  /** Calls in flight on it now (not counting head polls). */
  inFlight: number;
  /** Most calls in flight at once; Infinity without a cap. */
  maxConcurrency: number;
  breaker: CircuitBreaker;
  /** Latest block (or slot) number this upstream reported; -1 when unknown. */
  head: number;
  /** Its `safe` and `finalized` blocks (EVM) or finalized slot (Solana); -1 when unknown. */
  safe: number;
  finalized: number;
  /** Methods this upstream answered it does not serve (not sent there again for a while). */
  refused: MethodRefusals;
  /** The oldest block whose state it holds, learned from its "missing trie node" answers; 0 until then. */
  oldestState: number;
  /** Its `newHeads` subscription (HeadTracker.pushFrom), when heads are pushed; `live` while open. */
  headPush?: { readonly live: boolean };
};

/** Block numbers every upstream in service has reached: what `latest`, `safe`, `finalized` mean. */
export type AgreedHeights = { latest: number; safe: number; finalized: number };

export type UpstreamPoolOptions = {
  /** Per upstream, in the same order: its name and concurrency cap. */
  upstreamSettings?: readonly { name?: string; maxConcurrency?: number }[];
  /**
   * Upstreams behind the network head by more than this many blocks get no reads of blocks they
   * lack (`latest` among them) while another upstream is in service. Default 5.
   */
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
  /** The network's name, for the answer when no upstream serves a method. */
  network?: string;
  /** How long a method an upstream refused is not sent there again. Default 10 minutes. */
  refusedMethodTtlMs?: number;
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
  private readonly network: string;
  private cursor = 0;

  constructor(upstreams: HttpUpstream[], options: UpstreamPoolOptions = {}) {
    this.members = upstreams.map((upstream, index) => ({
      upstream,
      name: options.upstreamSettings?.[index]?.name ?? String(index),
      cordoned: false,
      inFlight: 0,
      maxConcurrency: options.upstreamSettings?.[index]?.maxConcurrency ?? Number.POSITIVE_INFINITY,
      breaker: new CircuitBreaker(options.breakerThreshold, options.breakerCooldownMs),
      head: -1,
      safe: -1,
      finalized: -1,
      refused: new MethodRefusals(options.refusedMethodTtlMs),
      oldestState: 0,
    }));
    this.network = options.network ?? 'this network';
    this.maxLag = options.maxLag ?? 5;
    this.hedgeAfterMs = options.hedgeAfterMs;
    this.onHedge = options.onHedge;
    this.headOfAnswer = options.headOfAnswer;
    this.writes = options.writes ?? new Set();
  }

  /**
   * The head the upstreams in service agree on: the median of their heads (the higher of the two
   * middle ones), so one node far ahead or far behind moves neither it nor what `latest` means.
   * -1 until one has reported a head.
   */
  networkHead(): number {
    const heads = this.members
      .filter((m) => !m.cordoned && m.breaker.state !== 'open' && m.head >= 0)
      .map((m) => m.head)
      .sort((a, b) => a - b);
    return heads.length === 0 ? -1 : heads[Math.floor(heads.length / 2)];
  }

  /** How far an upstream is behind the network head (0 when level or ahead; -1 when unknown). */
  lagOf(member: UpstreamMember, networkHead = this.networkHead()): number {
    if (member.head < 0 || networkHead < 0) return -1;
    return Math.max(0, networkHead - member.head);
  }

  /** Whether an upstream is behind the network head by more than `maxLag` blocks. */
  isLagging(member: UpstreamMember, networkHead = this.networkHead()): boolean {
    return this.lagOf(member, networkHead) > this.maxLag;
  }

  /** The highest head among upstreams whose breaker is not open. */
  bestHead(): number {
    let best = -1;
    for (const m of this.members) if (m.breaker.state !== 'open' && m.head > best) best = m.head;
    return best;
  }

  /**
   * The heights every upstream in service (breaker not open, not lagging behind the network head)
   * has reached: the lowest of their latest, safe and finalized blocks. Undefined until one has
   * reported a head.
   */
  agreed(): AgreedHeights | undefined {
    const head = this.networkHead();
    if (head < 0) return undefined;
    let latest = head;
    let safe = Number.POSITIVE_INFINITY;
    let finalized = Number.POSITIVE_INFINITY;
    for (const m of this.members) {
      if (m.cordoned || m.breaker.state === 'open' || m.head < 0 || this.isLagging(m, head)) continue;
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
   * Cordons (or uncordons) an upstream: no new calls go to it, those in flight finish (drained once
   * `inFlight` is 0). Its head is still polled, so it is back at once when uncordoned.
   */
  cordon(member: UpstreamMember, cordoned: boolean) {
    member.cordoned = cordoned;
  }

  /** Whether an upstream may take one more call now: not cordoned, under its cap. */
  private hasRoom(member: UpstreamMember): boolean {
    return !member.cordoned && member.inFlight < member.maxConcurrency;
  }

  /**
   * Calls the method on the best upstream, failing over (and hedging) for idempotent methods;
   * upstreams whose head is below `minHead` (the block the call names) are tried last.
   */
  call(method: string, params: unknown, minHead?: number): Promise<UpstreamReply> {
    const inService = this.order(minHead);
    if (inService.length === 0) return Promise.reject(noUpstream());
    // Most calls meet no refusal: the list is copied only when one is known.
    const candidates = inService.some((m) => m.refused.refuses(method))
      ? inService.filter((m) => !m.refused.refuses(method))
      : inService;
    if (candidates.length === 0) return Promise.reject(this.notServed(method));
    // One upstream (the common case) leaves nothing to fail over to or hedge with.
    if (candidates.length === 1 || this.writes.has(method))
      return this.callOnce(candidates, method, params, minHead);
    return this.callWithFailover(candidates, method, params, minHead);
  }

  /**
   * Upstreams in service (not cordoned, breaker not open), in the order a call would try them
   * (caught up to `minHead` and not lagging first, round-robin among equals): for callers that pick
   * the upstream themselves (eth_getLogs in parts).
   */
  inService(minHead?: number): UpstreamMember[] {
    return this.order(minHead).filter((m) => m.breaker.state !== 'open');
  }

  /**
   * One call on the given upstream, counted like any call (in flight, breaker, head, refusals);
   * the caller has asked the breaker (`breaker.allow()`) already.
   */
  callMember(member: UpstreamMember, method: string, params: unknown): Promise<UpstreamReply> {
    // Without a block named, no answer reads as missing state: only a refusal is not a failure.
    return this.ask(member, method, params).catch((error: unknown) => {
      if (!(error instanceof MethodRefused)) member.breaker.failure();
      throw error;
    });
  }

  /**
   * One attempt, on the first upstream that may take it (a write must never run twice); only an
   * upstream that refused the method (so ran nothing) passes it on to the next.
   */
  private callOnce(
    candidates: UpstreamMember[],
    method: string,
    params: unknown,
    block?: number,
  ): Promise<UpstreamReply> {
    const index = candidates.findIndex((m) => this.hasRoom(m) && m.breaker.allow());
    if (index < 0) return Promise.reject(noUpstream());
    const member = candidates[index];
    return this.ask(member, method, params, block).then(
      (reply) => reply,
      (error: unknown) => {
        if (!(error instanceof MethodRefused) && !(error instanceof MissingState)) {
          member.breaker.failure();
          throw error;
        }
        const rest = candidates.slice(index + 1).filter((m) => !m.refused.refuses(method));
        if (rest.length > 0) return this.callOnce(rest, method, params, block);
        if (error instanceof MissingState) return error.reply;
        throw this.notServed(method);
      },
    );
  }

  /**
   * Calls one upstream: its answer counts for its breaker and its head; an answer that it does not
   * serve the method is remembered and thrown as MethodRefused (the caller tries another).
   */
  private ask(member: UpstreamMember, method: string, params: unknown, block?: number, signal?: AbortSignal) {
    member.inFlight += 1;
    const done = () => {
      member.inFlight -= 1;
    };
    const call = member.upstream.call(method, params, signal);
    call.then(done, done);
    return call.then((reply) => {
      member.breaker.success();
      if (!reply.ok && isMethodRefusal(reply.error)) {
        member.refused.note(method);
        throw new MethodRefused(method);
      }
      // A block below its head whose state it no longer holds: a pruned node. Another may hold it.
      if (!reply.ok && block !== undefined && block < member.head && isMissingState(reply.error)) {
        member.oldestState = Math.max(member.oldestState, block + 1);
        throw new MissingState(reply);
      }
      this.noteHead(member, method, reply);
      return reply;
    });
  }

  /** No upstream serves the method: -32601 naming it and the network (the key is charged nothing). */
  private notServed(method: string) {
    return new GatewayError(
      'methodNotFound',
      `the method ${method} is not available on ${this.network}: none of its upstream nodes serves it`,
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
    block?: number,
  ): Promise<UpstreamReply> {
    return new Promise((resolve, reject) => {
      let next = 0;
      let running = 0;
      let settled = false;
      let hedged = false;
      let hedgeTimer: NodeJS.Timeout | undefined;
      let lastError: unknown;
      let missingState: MissingState | undefined;
      // Abandons the calls still running once one answered; only hedged calls can be running then,
      // so without hedging none is needed (aborting a call that has ended does nothing).
      const abandon = this.hedgeAfterMs === undefined ? undefined : new AbortController();

      const finish = () => {
        settled = true;
        clearTimeout(hedgeTimer);
        abandon?.abort();
      };
      const launch = (asHedge: boolean): boolean => {
        while (next < candidates.length) {
          const member = candidates[next++];
          if (member.refused.refuses(method) || !this.hasRoom(member) || !member.breaker.allow()) continue;
          running += 1;
          if (asHedge) this.onHedge?.('sent');
          this.ask(member, method, params, block, abandon?.signal).then(
            (reply) => {
              if (settled) return;
              if (asHedge) this.onHedge?.('won');
              finish();
              resolve(reply);
            },
            (error: unknown) => {
              running -= 1;
              if (settled) return;
              // A refusal is an answer: not held against the upstream, and the method may still be
              // served by the next one; when none does, the client hears that (not a node failure).
              if (error instanceof MissingState) missingState = error;
              else if (!(error instanceof MethodRefused)) {
                member.breaker.failure();
                lastError = error;
              }
              if (!launch(false) && running === 0) {
                finish();
                // No upstream holds the state: the node's own answer says so.
                if (!lastError && missingState) resolve(missingState.reply);
                else reject(lastError ?? this.notServed(method));
              }
            },
          );
          // Each call gets the whole wait (a failover restarts it); `finish` clears it. With no
          // candidate left the hedge finds none and sends nothing.
          if (this.hedgeAfterMs !== undefined && !hedged) {
            clearTimeout(hedgeTimer);
            hedgeTimer = setTimeout(() => {
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
  noteHead(member: UpstreamMember, method: string, reply: UpstreamReply) {
    if (!this.headOfAnswer || !reply.ok) return;
    const head = this.headOfAnswer(method, reply.result);
    if (head !== undefined && head > member.head) member.head = head;
  }

  /**
   * Upstreams in the order to try (round-robin among equals): healthy first, then those below the
   * block the call names or past their oldest state, then those that never reported a head, those
   * whose breaker is open last. An upstream lagging behind the network head is left out unless the
   * call names a block it holds (whatever its breaker: its head polls close that); the upstream at
   * the network head never lags, so one in service is always left.
   */
  private order(minHead?: number): UpstreamMember[] {
    if (this.members.length === 1) return this.members[0].cordoned ? [] : this.members;
    const head = this.networkHead();
    const start = this.cursor++ % this.members.length;
    const behind = (m: UpstreamMember) =>
      this.isLagging(m, head) && (minHead === undefined || m.head < minHead);
    const rank = (m: UpstreamMember) =>
      (m.breaker.state === 'open' ? 4 : 0) +
      (m.head < 0 ? 2 : 0) +
      (minHead !== undefined && (m.head < minHead || minHead < m.oldestState) ? 1 : 0);
    return [...this.members.slice(start), ...this.members.slice(0, start)]
      .filter((m) => !m.cordoned && !behind(m))
      .sort((a, b) => rank(a) - rank(b));
  }

  async close() {
    await Promise.all(this.members.map((m) => m.upstream.close()));
  }

  /** Closes every upstream at once, failing calls still running. */
  async destroy() {
    await Promise.all(this.members.map((m) => m.upstream.destroy()));
  }
}
