import type { NetworkKind } from '../rpc/errors.ts';
import type { UpstreamMember, UpstreamPool } from './upstream-pool.ts';

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
    try {
      if (this.kind === 'evm') {
        const [latest, finalized] = await Promise.all([
          member.upstream.call('eth_getBlockByNumber', ['latest', false]),
          member.upstream.call('eth_getBlockByNumber', ['finalized', false]),
        ]);
        const block = latest.ok
          ? (latest.result as { number?: string; hash?: string; parentHash?: string } | null)
          : null;
        if (!block?.number) throw new Error('no head');
        member.head = Number(BigInt(block.number));
        const fin = finalized.ok ? (finalized.result as { number?: string } | null) : null;
        if (fin?.number) this.nextFinalized = Math.max(this.nextFinalized, Number(BigInt(fin.number)));
        if (!this.nextHead || member.head > this.nextHead.number) {
          this.nextHead = {
            number: member.head,
            hash: block.hash ?? null,
            parentHash: block.parentHash ?? null,
          };
        }
      } else {
        const [slot, finalizedSlot] = await Promise.all([
          member.upstream.call('getSlot', [{ commitment: 'processed' }]),
          member.upstream.call('getSlot', [{ commitment: 'finalized' }]),
        ]);
        if (!slot.ok || typeof slot.result !== 'number') throw new Error('no slot');
        member.head = slot.result;
        if (finalizedSlot.ok && typeof finalizedSlot.result === 'number') {
          this.nextFinalized = Math.max(this.nextFinalized, finalizedSlot.result);
        }
        if (!this.nextHead || member.head > this.nextHead.number) {
          this.nextHead = { number: member.head, hash: null, parentHash: null };
        }
      }
      member.breaker.success();
    } catch {
      member.breaker.failure();
    }
  }

  private nextHead: ChainHead | undefined;
  private nextFinalized = -1;

  private publish() {
    const next = this.nextHead;
    // The finalized height is what the upstreams report now (the highest of them): on a dev chain
    // reverted to a snapshot it can go down, and cached data above it must not count as final.
    if (this.nextFinalized >= 0) this.finalized = this.nextFinalized;
    this.nextHead = undefined;
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
