import { EVM_BLOCK_NUMBER, EVM_GET_BLOCK_BY_NUMBER, SOLANA_GET_SLOT } from '../rpc/method-names.ts';
import type { NetworkKind } from '../types.ts';
import type { UpstreamReply } from './http-upstream.ts';
import { PushedHeads } from './pushed-heads.ts';
import type { UpstreamMember, UpstreamPool } from './upstream-pool.ts';

type BlockHeader = { number?: string; hash?: string; parentHash?: string };

/** The number of a block an upstream returned for a tag; -1 when it has none (or failed). */
function numberOfBlock(reply: UpstreamReply): number {
  const block = reply.ok ? (reply.result.value as BlockHeader | null) : null;
  return block?.number ? Number(BigInt(block.number)) : -1;
}

export type ChainHead = { number: number; hash: string | null; parentHash: string | null };

export type HeadListener = (event: { head: ChainHead; finalized: number; reorg: boolean }) => void;

/**
 * Polls every upstream for its head (and the chain's finalized block): the poll is also the
 * health check — an upstream that answers is brought back from the breaker, one that fails is
 * counted against it. Upstreams with a WebSocket also push their new heads (`pushFrom`), which
 * move what the gateway knows at once; the polls stay for `safe`, `finalized`, health, and for
 * upstreams without one. Listeners hear of new heads, of the finalized height and of reorgs.
 */
export class HeadTracker {
  head: ChainHead | undefined;
  finalized = -1;
  private timer: NodeJS.Timeout | undefined;
  private readonly listeners: HeadListener[] = [];
  private polling: Promise<void> | undefined;
  /** The `newHeads` subscriptions, one per upstream with a WebSocket (each also its member's `headPush`). */
  private readonly pushers: PushedHeads[] = [];
  /** Hashes of the heads announced lately, by number: a poll that read an older head is no reorg. */
  private readonly announced = new Map<number, string | null>();
  /** Heads pushed so far: a poll that saw pushes while it ran may have read an older head. */
  private pushes = 0;
  /** Writes sent through the gateway whose upstreams' heads have not been read again since. */
  private writes = 0;

  constructor(
    private readonly pool: UpstreamPool,
    private readonly kind: NetworkKind,
    private readonly pollMs = 2000,
  ) {}

  /**
   * Learns heads also from a `newHeads` subscription on each upstream that has a WebSocket
   * address (`urls[i]`, tried in turn, for upstream i; none: polls only). EVM only; call before
   * `start`.
   */
  pushFrom(urls: readonly (readonly string[] | undefined)[], timeoutMs: number) {
    if (this.kind !== 'evm') return;
    for (const [i, member] of this.pool.members.entries()) {
      const addresses = urls[i];
      if (!addresses?.length) continue;
      const pusher = new PushedHeads({
        urls: addresses,
        timeoutMs,
        retryMs: Math.max(5 * this.pollMs, 5000),
        onHead: (head) => this.pushed(member, head),
      });
      this.pushers.push(pusher);
      member.headPush = pusher;
    }
  }

  start() {
    for (const pusher of this.pushers) pusher.start();
    void this.poll();
    this.timer = setInterval(() => void this.poll(), this.pollMs);
    this.timer.unref();
  }

  /**
   * Whether every upstream in service (not cordoned, breaker not open) has its `newHeads`
   * subscription open: then the heads the gateway knows trail the nodes only by the push itself.
   * Not while a write is under way (`whileWriting`).
   */
  pushLive(): boolean {
    if (this.writes > 0) return false;
    let inService = 0;
    for (const member of this.pool.members) {
      if (member.cordoned || member.breaker.state === 'open') continue;
      inService += 1;
      if (!member.headPush?.live) return false;
    }
    return inService > 0;
  }

  onHead(listener: HeadListener) {
    this.listeners.push(listener);
  }

  /** Polls all upstreams now (concurrent calls share one poll). */
  poll(): Promise<void> {
    const pushes = this.pushes;
    this.polling ??= Promise.all(this.pool.members.map((m) => this.pollMember(m, pushes)))
      .then(() => this.publish(pushes))
      .finally(() => {
        this.polling = undefined;
      });
    return this.polling;
  }

  /** `pushes`: the count of pushed heads when the poll began. */
  private async pollMember(member: UpstreamMember, pushes: number) {
    // A node that hangs must not hold up the other upstreams' polls: the poll gives up in time.
    const signal = AbortSignal.timeout(Math.max(this.pollMs, 1000));
    const call = (method: string, params: unknown[]) => member.upstream.call(method, params, signal);
    try {
      if (this.kind === 'evm') {
        const [latest, safe, finalized] = await Promise.all([
          call(EVM_GET_BLOCK_BY_NUMBER, ['latest', false]),
          call(EVM_GET_BLOCK_BY_NUMBER, ['safe', false]),
          call(EVM_GET_BLOCK_BY_NUMBER, ['finalized', false]),
        ]);
        const block = latest.ok ? (latest.result.value as BlockHeader | null) : null;
        if (!block?.number) throw new Error('no head');
        const polled = Number(BigInt(block.number));
        // A head pushed while the poll was under way is newer than the poll's answer.
        member.head = this.pushes !== pushes ? Math.max(member.head, polled) : polled;
        member.safe = numberOfBlock(safe);
        member.finalized = numberOfBlock(finalized);
        this.nextFinalized = Math.max(this.nextFinalized, member.finalized);
        this.polledHeads.set(member, {
          number: polled,
          hash: block.hash ?? null,
          parentHash: block.parentHash ?? null,
        });
      } else {
        const [slot, finalizedSlot] = await Promise.all([
          call(SOLANA_GET_SLOT, [{ commitment: 'processed' }]),
          call(SOLANA_GET_SLOT, [{ commitment: 'finalized' }]),
        ]);
        const head = slot.ok ? slot.result.value : undefined;
        if (typeof head !== 'number') throw new Error('no slot');
        member.head = head;
        const finalized = finalizedSlot.ok ? finalizedSlot.result.value : undefined;
        member.finalized = typeof finalized === 'number' ? finalized : -1;
        member.safe = member.finalized;
        this.nextFinalized = Math.max(this.nextFinalized, member.finalized);
        this.polledHeads.set(member, { number: member.head, hash: null, parentHash: null });
      }
      member.breaker.success();
    } catch {
      member.breaker.failure();
    }
  }

  /** The heads this poll's upstreams reported. */
  private readonly polledHeads = new Map<UpstreamMember, ChainHead>();
  private nextFinalized = -1;

  /**
   * The network's head after a poll: the block of an upstream at the head the upstreams in service
   * agree on (UpstreamPool.networkHead), not the highest one, so a node far ahead moves nothing.
   */
  private agreedHead(): ChainHead | undefined {
    const number = this.pool.networkHead();
    for (const head of this.polledHeads.values()) if (head.number === number) return head;
    return undefined;
  }

  /**
   * Runs a write (a transaction) with tags unpinned: a node that mines at once (anvil) answers
   * before it pushes the block, so from the write's start until each upstream's head has been read
   * again after its answer, `pushLive` says no and a read at `latest` goes to the node as it is.
   */
  async whileWriting<T>(write: () => Promise<T>): Promise<T> {
    this.writes += 1;
    try {
      return await write();
    } finally {
      void this.readHeads().finally(() => {
        this.writes -= 1;
      });
    }
  }

  /** Each upstream in service asked for its head once (eth_blockNumber), read as the pool reads one. */
  private async readHeads() {
    const inService = this.pool.members.filter((m) => !m.cordoned && m.breaker.state !== 'open');
    await Promise.all(
      inService.map(async (member) => {
        const signal = AbortSignal.timeout(Math.max(this.pollMs, 1000));
        const reply = await member.upstream.call(EVM_BLOCK_NUMBER, [], signal).catch(() => undefined);
        if (reply) this.pool.noteHead(member, EVM_BLOCK_NUMBER, reply);
      }),
    );
  }

  private publish(pushes: number) {
    const next = this.agreedHead();
    this.polledHeads.clear();
    // The finalized height is what the upstreams in service agree on now (the lowest among those
    // not lagging), so a node far ahead cannot make unfinalized data count as final in the cache;
    // it can go down (a dev chain reverted to a snapshot). Before any agreement, the highest reported.
    const agreedFinalized = this.pool.agreed()?.finalized ?? -1;
    if (agreedFinalized >= 0) this.finalized = agreedFinalized;
    else if (this.nextFinalized >= 0) this.finalized = this.nextFinalized;
    this.nextFinalized = -1;
    if (!next) return;
    const previous = this.head;
    // The poll read a head already announced while a push came with a newer one: nothing new,
    // no reorg. (Without a push in between, a lower head is the chain going back: a reorg.)
    if (
      previous &&
      this.pushes !== pushes &&
      next.number < previous.number &&
      this.announced.get(next.number) === next.hash
    )
      return;
    this.announce(next);
  }

  /** A head an upstream pushed: that upstream's head at once, and the network's when it is news. */
  private pushed(member: UpstreamMember, head: ChainHead) {
    this.pushes += 1;
    member.head = head.number;
    const previous = this.head;
    // Another upstream is ahead: the network's head stays (a shorter reorg shows in the polls).
    if (previous && head.number < previous.number) return;
    // Nor does one node alone move it past the head the upstreams in service agree on.
    if (head.number > this.pool.networkHead()) return;
    this.announce(head);
  }

  private announce(next: ChainHead) {
    const previous = this.head;
    if (previous && previous.number === next.number && previous.hash === next.hash) return;
    // A reorg: the new head does not extend the one we knew (same height or lower with another
    // hash, or the next block's parent is not our head).
    const reorg =
      !!previous &&
      next.hash !== null &&
      ((next.number <= previous.number && next.hash !== previous.hash) ||
        (next.number === previous.number + 1 && next.parentHash !== previous.hash));
    this.head = next;
    this.announced.set(next.number, next.hash);
    if (this.announced.size > 256) this.announced.delete(this.announced.keys().next().value as number);
    for (const listener of this.listeners) listener({ head: next, finalized: this.finalized, reorg });
  }

  stop() {
    if (this.timer) clearInterval(this.timer);
    for (const pusher of this.pushers) pusher.stop();
  }
}
