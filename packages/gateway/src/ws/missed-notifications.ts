// What a subscription missed while it moved to another upstream, and the logs a reorg replaced:
// both read from the upstream the subscription is on now.
import type { ForwardResult } from '../pipeline/forward.ts';
import { hexNumberOf } from '../rpc/hex-number.ts';
import { EVM_BLOCK_NUMBER, EVM_GET_BLOCK_BY_NUMBER, EVM_GET_LOGS } from '../rpc/method-names.ts';
import type { SubscriptionType } from '../types.ts';
import { LOGS_PER_BLOCK, positionOf } from './notification-position.ts';

/** The most blocks a move to another upstream fills in (heads, or the logs of the blocks). */
export const MAX_GAP_BLOCKS = 256;

export type Request = (method: string, params: unknown[]) => Promise<ForwardResult>;

export type Missed = { result: unknown; position: number };

const hex = (number: number) => `0x${number.toString(16)}`;

/** The upstream's head block number, undefined when it does not say. */
export async function headOf(request: Request): Promise<number | undefined> {
  const latest = await request(EVM_BLOCK_NUMBER, []);
  return latest.ok ? hexNumberOf(latest.result.value) : undefined;
}

/**
 * What a subscription at `last` (its `positionOf`) missed up to `head`, at most `MAX_GAP_BLOCKS`
 * blocks back: newHeads, the heads by number (until `wanted` says no more); logs, the logs after
 * the last one passed on, from an eth_getLogs with the subscription's filter.
 */
export async function missedSince(
  request: Request,
  subscription: { type: SubscriptionType; params: unknown[]; last: number },
  head: number,
  wanted: () => boolean,
): Promise<Missed[]> {
  const missed: Missed[] = [];
  if (subscription.type === 'newHeads') {
    for (let number = Math.max(subscription.last + 1, head - MAX_GAP_BLOCKS + 1); number <= head; number++) {
      const block = await request(EVM_GET_BLOCK_BY_NUMBER, [hex(number), false]);
      if (!block.ok || block.result.isNull || !wanted()) break;
      const { transactions: _t, uncles: _u, ...header } = block.result.value as Record<string, unknown>;
      missed.push({ result: header, position: number });
    }
    return missed;
  }
  const from = Math.max(Math.floor(subscription.last / LOGS_PER_BLOCK), head - MAX_GAP_BLOCKS + 1);
  for (const log of await logsBetween(request, subscription.params, from, head)) {
    const position = positionOf('logs', log);
    if (position !== undefined && position > subscription.last) missed.push({ result: log, position });
  }
  return missed;
}

/** The logs of a logs subscription's filter from block `from` to `to`; none when the node fails. */
export async function logsBetween(request: Request, params: unknown[], from: number, to: number) {
  if (from > to) return [];
  const filter = (params[1] ?? {}) as Record<string, unknown>;
  const reply = await request(EVM_GET_LOGS, [{ ...filter, fromBlock: hex(from), toBlock: hex(to) }]);
  const logs = reply.ok ? reply.result.value : undefined;
  return Array.isArray(logs) ? (logs as unknown[]) : [];
}

/** The hash of the upstream's block at each height asked (null: none there), asked once per height. */
export function canonicalHashes(request: Request) {
  const known = new Map<number, Promise<string | null>>();
  return (number: number) => {
    let hash = known.get(number);
    if (!hash) {
      hash = request(EVM_GET_BLOCK_BY_NUMBER, [hex(number), false]).then((block) => {
        const value = block.ok ? (block.result.value as { hash?: unknown } | null) : null;
        return typeof value?.hash === 'string' ? value.hash.toLowerCase() : null;
      });
      known.set(number, hash);
    }
    return hash;
  };
}
