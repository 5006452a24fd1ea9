import type { CachedReply, ResponseCache } from './response-cache.ts';

type Entry = CachedReply & {
  expiresAt: number /** Read since it was stored or last spared. */;
  used: boolean;
};

/** How many recently read entries an eviction spares before it evicts the oldest regardless. */
const SPARED_PER_EVICTION = 8;

/**
 * The response cache of one gateway instance, in its memory. Final data (at or below the finalized
 * block) stays until evicted by size (the oldest first, unless it was read lately: second chance);
 * unfinalized data is served for `unfinalizedTtlMs`, then kept (until evicted by size or a reorg)
 * only for `getStale`: once its block is finalized it can answer while no upstream can.
 */
export class MemoryResponseCache implements ResponseCache {
  private readonly entries = new Map<string, Entry>();
  readonly storeErrors = 0;
  hits = 0;
  misses = 0;

  constructor(
    private readonly maxEntries = 10_000,
    readonly unfinalizedTtlMs = 2000,
  ) {}

  get(key: string, now = Date.now()): CachedReply | undefined {
    const entry = this.entries.get(key);
    if (!entry || entry.expiresAt <= now) {
      // Kept for getStale only when its block is known (else it can never count as final).
      if (entry?.block === undefined) this.entries.delete(key);
      this.misses += 1;
      return undefined;
    }
    // A hit only marks the entry (a Map re-insert on every hit costs the hot path): eviction
    // gives marked entries a second chance.
    entry.used = true;
    this.hits += 1;
    return entry;
  }

  getStale(key: string, finalized: number): CachedReply | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    const final =
      entry.expiresAt === Number.POSITIVE_INFINITY || (entry.block !== undefined && entry.block <= finalized);
    return final ? entry : undefined;
  }

  /** Stores a reply; `final` data never expires, the rest expires after the unfinalized TTL. */
  set(key: string, value: CachedReply, final: boolean, now = Date.now()) {
    // A replaced entry (e.g. one kept after it expired) moves to the newest end.
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) this.evictOne();
    this.entries.set(key, {
      ...value,
      expiresAt: final ? Number.POSITIVE_INFINITY : now + this.unfinalizedTtlMs,
      used: false,
    });
  }

  /** Evicts the oldest entry not read since it was stored (or spared); a few read ones move to the end. */
  private evictOne() {
    for (let spared = 0; ; spared++) {
      const oldest = this.entries.entries().next().value;
      if (oldest === undefined) return;
      const [key, entry] = oldest;
      this.entries.delete(key);
      if (!entry.used || spared === SPARED_PER_EVICTION) return;
      entry.used = false;
      this.entries.set(key, entry);
    }
  }

  evictAfterReorg(finalized: number) {
    for (const [key, entry] of this.entries) {
      if (
        entry.expiresAt !== Number.POSITIVE_INFINITY ||
        (entry.block !== undefined && entry.block > finalized)
      ) {
        this.entries.delete(key);
      }
    }
  }

  get size() {
    return this.entries.size;
  }

  async close() {}
}
