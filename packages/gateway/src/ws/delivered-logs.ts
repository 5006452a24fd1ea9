// The logs a logs subscription was sent for its recent blocks, kept so that a reorg can take them
// back (`removed: true`) and so that no log is sent twice when the node pushes the new chain's.
import { hexNumberOf } from '../rpc/hex-number.ts';

/** Blocks back from the newest one delivered whose logs are kept for a reorg. */
export const REORG_WINDOW_BLOCKS = 64;
/**
 * Bytes of kept logs (as JSON) per client connection, all its logs subscriptions together, past
 * which a subscription that keeps more lets go of its oldest blocks.
 */
export const REORG_WINDOW_BYTES = 2 * 1024 * 1024;

/** What a connection's subscriptions keep together, in bytes of JSON. */
export type KeptBytes = { used: number };

export type Log = { blockNumber?: unknown; blockHash?: unknown; logIndex?: unknown; removed?: unknown };

type Block = { hash: string; logs: Log[]; bytes: number };

/** The identity of a log in one block: its block hash and index. */
function keyOf(log: Log): string | undefined {
  return typeof log.blockHash === 'string' && typeof log.logIndex === 'string'
    ? `${log.blockHash.toLowerCase()}:${log.logIndex}`
    : undefined;
}

/**
 * One subscription's delivered logs by block number, for the last `REORG_WINDOW_BLOCKS` blocks,
 * while its connection keeps at most `REORG_WINDOW_BYTES` (`kept`, shared by the connection's
 * subscriptions); a reorg deeper than what is kept sends no removed logs for what was let go.
 */
export class DeliveredLogs {
  private readonly blocks = new Map<number, Block>();
  private readonly keys = new Set<string>();
  /** Logs taken back: one the node then sends as removed too is not sent again. */
  private readonly taken = new Set<string>();
  private bytes = 0;

  constructor(private readonly kept: KeptBytes = { used: 0 }) {}

  /**
   * Whether a log from the node is to be passed on: not one already sent (same block hash and
   * index), nor a removal already sent. Records what is passed on.
   */
  admit(log: Log): boolean {
    const key = keyOf(log);
    if (key === undefined) return true;
    if (log.removed === true) {
      if (this.taken.has(key)) return false;
      this.taken.add(key);
      this.trimTaken();
      this.drop(log);
      return true;
    }
    if (this.keys.has(key)) return false;
    this.record(log, key);
    return true;
  }

  /** A log not sent yet at a height delivered with another hash, or below the newest delivered: a reorg. */
  conflicts(log: Log): boolean {
    const number = hexNumberOf(log.blockNumber);
    const key = keyOf(log);
    if (number === undefined || key === undefined || log.removed === true || this.keys.has(key)) return false;
    if (typeof log.blockHash !== 'string') return false;
    const known = this.blocks.get(number);
    if (known && known.hash !== log.blockHash.toLowerCase()) return true;
    return this.newest() > number;
  }

  /** Heights with delivered logs, newest first. */
  heights(): number[] {
    return [...this.blocks.keys()].sort((a, b) => b - a);
  }

  hashAt(number: number): string | undefined {
    return this.blocks.get(number)?.hash;
  }

  /**
   * Takes back the logs of the blocks at `heights`: returns them as `removed: true`, in chain
   * order (the oldest dropped block first, as geth's reorg sends them), to be passed to `admit`.
   */
  takeBack(heights: number[]): Log[] {
    const removed: Log[] = [];
    for (const number of [...heights].sort((a, b) => a - b)) {
      const block = this.blocks.get(number);
      if (!block) continue;
      for (const log of block.logs) removed.push({ ...log, removed: true });
      this.forgetBlock(number, block);
    }
    return removed;
  }

  clear() {
    this.blocks.clear();
    this.keys.clear();
    this.taken.clear();
    this.kept.used -= this.bytes;
    this.bytes = 0;
  }

  private newest() {
    let newest = -1;
    for (const number of this.blocks.keys()) newest = Math.max(newest, number);
    return newest;
  }

  private record(log: Log, key: string) {
    const number = hexNumberOf(log.blockNumber);
    if (number === undefined || typeof log.blockHash !== 'string') return;
    const hash = log.blockHash.toLowerCase();
    let block = this.blocks.get(number);
    // Another hash at a height already kept: that block is no longer the chain's.
    if (block && block.hash !== hash) {
      this.forgetBlock(number, block);
      block = undefined;
    }
    if (!block) {
      block = { hash, logs: [], bytes: 0 };
      this.blocks.set(number, block);
    }
    const bytes = JSON.stringify(log).length;
    block.logs.push(log);
    block.bytes += bytes;
    this.bytes += bytes;
    this.kept.used += bytes;
    this.keys.add(key);
    this.taken.delete(key);
    this.trim(number);
  }

  private drop(log: Log) {
    const number = hexNumberOf(log.blockNumber);
    const block = number === undefined ? undefined : this.blocks.get(number);
    if (number !== undefined && block && block.hash === String(log.blockHash).toLowerCase())
      this.forgetBlock(number, block);
  }

  private trim(newest: number) {
    for (const number of this.heights().reverse()) {
      if (number > newest - REORG_WINDOW_BLOCKS && this.kept.used <= REORG_WINDOW_BYTES) break;
      const block = this.blocks.get(number);
      if (block) this.forgetBlock(number, block);
    }
  }

  private trimTaken() {
    for (const key of this.taken) {
      if (this.taken.size <= 4096) break;
      this.taken.delete(key);
    }
  }

  private forgetBlock(number: number, block: Block) {
    this.blocks.delete(number);
    this.bytes -= block.bytes;
    this.kept.used -= block.bytes;
    for (const log of block.logs) {
      const key = keyOf(log);
      if (key) this.keys.delete(key);
    }
  }
}
