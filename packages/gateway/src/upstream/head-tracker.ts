import type { NetworkKind } from '../types.ts';
import type { UpstreamReply } from './http-upstream.ts';
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
 * counted against it. Listeners hear of new heads, of the finalized height and of reorgs.
 */
export class HeadTracker {
  head: ChainHead | undefined;
  finalized = -1;
  private timer: NodeJS.Timeout | undefined;
  private readonly listeners: HeadListener[] = [];
  private polling: Promise<void> | undefined;

  constructor(
    private readonly pool: UpstreamPool,
    private readonly kind: NetworkKind,
    private readonly pollMs = 2000,
  ) {}

  start() {
    void this.poll();
    this.timer = setInterval(() => void this.poll(), this.pollMs);
    this.timer.unref();
  }

  onHead(listener: HeadListener) {
    this.listeners.push(listener);
  }

  /** Polls all upstreams now (concurrent calls share one poll). */
  poll(): Promise<void> {
    this.polling ??= Promise.all(this.pool.members.map((m) => this.pollMember(m)))
      .then(() => this.publish())
      .finally(() => {
        this.polling = undefined;
      });
    return this.polling;
  }

  private async pollMember(member: UpstreamMember) {
    // A node that hangs must not hold up the other upstreams' polls: the poll gives up in time.
    const signal = AbortSignal.timeout(Math.max(this.pollMs, 1000));
    const call = (method: string, params: unknown[]) => member.upstream.call(method, params, signal);
    try {
      if (this.kind === 'evm') {
        const [latest, safe, finalized] = await Promise.all([
          call('eth_getBlockByNumber', ['latest', false]),
          call('eth_getBlockByNumber', ['safe', false]),
          call('eth_getBlockByNumber', ['finalized', false]),
        ]);
        const block = latest.ok ? (latest.result.value as BlockHeader | null) : null;
        if (!block?.number) throw new Error('no head');
        member.head = Number(BigInt(block.number));
        member.safe = numberOfBlock(safe);
        member.finalized = numberOfBlock(finalized);
        this.nextFinalized = Math.max(this.nextFinalized, member.finalized);
        this.polledHeads.set(member, {
          number: member.head,
          hash: block.hash ?? null,
          parentHash: block.parentHash ?? null,
        });
      } else {
        const [slot, finalizedSlot] = await Promise.all([
          call('getSlot', [{ commitment: 'processed' }]),
          call('getSlot', [{ commitment: 'finalized' }]),
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

  private publish() {
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
    if (previous && previous.number === next.number && previous.hash === next.hash) return;
    // A reorg: the new head does not extend the one we knew (same height or lower with another
    // hash, or the next block's parent is not our head).
    const reorg =
      !!previous &&
      next.hash !== null &&
      ((next.number <= previous.number && next.hash !== previous.hash) ||
        (next.number === previous.number + 1 && next.parentHash !== previous.hash));
    this.head = next;
    for (const listener of this.listeners) listener({ head: next, finalized: this.finalized, reorg });
  }

  stop() {
    if (this.timer) clearInterval(this.timer);
  }
}
