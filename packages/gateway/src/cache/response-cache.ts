import type { UpstreamReply } from '../upstream/http-upstream.ts';

export type CachedReply = {
  reply: UpstreamReply;
  /** Block the data belongs to, when known. */
  block?: number;
};

/**
 * Successful upstream replies by request, finality-aware: final data (at or below the finalized
 * block) is kept long, unfinalized data briefly, and a reorg drops what it may have changed.
 * Implemented in memory (`MemoryResponseCache`) and in Redis (`RedisResponseCache`, shared by
 * gateway instances). No method throws: a store that cannot be reached answers a miss.
 */
export interface ResponseCache {
  /**
   * The cached reply, or undefined. A store in this process answers at once; a shared one answers
   * with a Promise, so callers await only when they get one (the hot path stays synchronous).
   */
  get(key: string): CachedReply | undefined | Promise<CachedReply | undefined>;
  /**
   * Stale-if-error, for when no upstream can answer: the reply if the cache holds it as final data,
   * i.e. written as final or, though written while its block was above the finalized one (and
   * perhaps expired since), its block is now at or below `finalized` with no reorg seen since
   * (a reorg evicts every entry written as unfinalized). Never data that may still change.
   */
  getStale(key: string, finalized: number): CachedReply | undefined | Promise<CachedReply | undefined>;
  /** Stores a reply without making the caller wait; `final` data outlives the unfinalized TTL. */
  set(key: string, value: CachedReply, final: boolean): void;
  /** After a reorg: forget every unfinalized entry and every entry above the finalized block. */
  evictAfterReorg(finalized: number): void;
  /** Store operations that failed since start (a shared store that could not be reached). */
  readonly storeErrors: number;
  close(): Promise<void>;
}
