// How a connection notices a reorg under its logs subscriptions, and what it sends for one:
// geth's order (core/blockchain.go reorg: the dropped blocks oldest first, then the new ones), the
// logs of the dropped blocks as `removed: true`, then the logs the new blocks of those heights hold.

import { EVM_SUBSCRIBE } from '../rpc/method-names.ts';
import type { DeliveredLogs, Log } from './delivered-logs.ts';
import { canonicalHashes, headOf, logsBetween, type Request } from './missed-notifications.ts';
import { headNumberOf } from './notification-position.ts';

/** Heads remembered to tell a head that extends the chain from one that replaces part of it. */
const HEADS_KEPT = 128;

/**
 * A connection's own `newHeads` subscription on the upstream its logs subscriptions are on, and
 * the hashes of the heads it pushed lately.
 */
export class UpstreamHeads {
  private readonly hashes = new Map<number, string>();
  /** The subscription's id on the upstream; '' while it is being made. */
  private id: string | undefined;

  constructor(private readonly request: Request) {}

  /** Subscribes on the current upstream unless it already has. */
  watch() {
    if (this.id !== undefined) return;
    this.id = '';
    this.request(EVM_SUBSCRIBE, ['newHeads']).then(
      (reply) => {
        const id = reply.ok ? reply.result.value : undefined;
        this.id = typeof id === 'string' ? id : undefined;
      },
      () => {
        this.id = undefined;
      },
    );
  }

  /** Whether a notification's subscription id is this one's. */
  owns(upstreamId: string) {
    return this.id !== undefined && this.id === upstreamId;
  }

  /** Takes a pushed head; true when it does not extend the heads seen (a reorg). */
  see(result: unknown): boolean {
    const number = headNumberOf(result);
    const { hash, parentHash } = (result ?? {}) as { hash?: unknown; parentHash?: unknown };
    if (number === undefined || typeof hash !== 'string' || typeof parentHash !== 'string') return false;
    const known = this.hashes.get(number);
    const parent = this.hashes.get(number - 1);
    const reorg =
      (known !== undefined && known !== hash.toLowerCase()) ||
      (parent !== undefined && parent !== parentHash.toLowerCase());
    if (reorg) for (const height of this.hashes.keys()) if (height >= number) this.hashes.delete(height);
    this.hashes.set(number, hash.toLowerCase());
    if (number > 0) this.hashes.set(number - 1, parentHash.toLowerCase());
    for (const height of this.hashes.keys()) if (height <= number - HEADS_KEPT) this.hashes.delete(height);
    return reorg;
  }

  /** The upstream connection was lost: what it said is forgotten. */
  reset() {
    this.id = undefined;
    this.hashes.clear();
  }
}

/**
 * What a logs subscription is sent after a reorg: the delivered logs whose block is no longer the
 * upstream's at that height, as `removed: true` (oldest block first), then the logs of its
 * filter from the lowest replaced height up to `head` (the caller drops those already sent).
 * Heights are checked from the newest delivered down, and the first one still in the chain ends
 * the check (the blocks under a block of the chain are the chain's too).
 */
export async function reorgedLogs(
  request: Request,
  delivered: DeliveredLogs,
  params: unknown[],
  head: number,
  hashAt: ReturnType<typeof canonicalHashes>,
): Promise<Log[]> {
  const gone: number[] = [];
  let kept: number | undefined;
  for (const height of delivered.heights()) {
    if ((await hashAt(height)) === delivered.hashAt(height)) {
      kept = height;
      break;
    }
    gone.push(height);
  }
  if (gone.length === 0) return [];
  const removed = delivered.takeBack(gone);
  const from = kept === undefined ? Math.min(...gone) : kept + 1;
  const replaced = (await logsBetween(request, params, from, head)) as Log[];
  return [...removed, ...replaced];
}

/**
 * Checks each logs subscription for delivered logs a reorg dropped and sends (`emit`) the removed
 * logs, then the new ones; then `release` passes on what waited. An upstream that goes away
 * meanwhile leaves the rest to the move.
 */
export async function takeBackReorged<S extends { delivered?: DeliveredLogs; params: unknown[] }>(
  request: Request,
  subscriptions: ReadonlyMap<string, S>,
  emit: (id: string, subscription: S, log: Log) => void,
  release: (id: string, subscription: S) => void,
) {
  const head = await headOf(request).catch(() => undefined);
  const hashAt = canonicalHashes(request);
  for (const [id, subscription] of subscriptions) {
    const { delivered, params } = subscription;
    if (!delivered) continue;
    const logs =
      head === undefined ? [] : await reorgedLogs(request, delivered, params, head, hashAt).catch(() => []);
    for (const log of logs) if (subscriptions.get(id) === subscription) emit(id, subscription, log);
    release(id, subscription);
  }
}
