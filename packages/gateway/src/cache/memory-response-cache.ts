import type { CachedReply, ResponseCache } from './response-cache.ts';

/**
 * The response cache of one gateway instance, in its memory. Final data (at or below the finalized
 * block) stays until evicted by size (least recently used first); unfinalized data lives
 * `unfinalizedTtlMs` and is dropped on a reorg.
 */
export class MemoryResponseCache implements ResponseCache {
  private readonly entries = new Map<string, CachedReply & { expiresAt: number }>();
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
      if (entry) this.entries.delete(key);
      this.misses += 1;
      return undefined;
    }
    // Least recently used goes first: re-insert to move it to the end.
    this.entries.delete(key);
    this.entries.set(key, entry);
    this.hits += 1;
    return entry;
  }

  /** Stores a reply; `final` data never expires, the rest expires after the unfinalized TTL. */
  set(key: string, value: CachedReply, final: boolean, now = Date.now()) {
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(key, {
      ...value,
      expiresAt: final ? Number.POSITIVE_INFINITY : now + this.unfinalizedTtlMs,
    });
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
