import { GatewayError } from '../../rpc/errors.ts';
import { stringifyJsonExact } from '../../rpc/exact-json.ts';
import { JsonResult } from '../../rpc/json-result.ts';
import type { JsonRpcError } from '../../rpc/jsonrpc.ts';
import { EVM_GET_LOGS } from '../../rpc/method-names.ts';
import type { HttpUpstream, UpstreamReply } from '../../upstream/http-upstream.ts';
import type { UpstreamMember } from '../../upstream/upstream-pool.ts';
import type { Fleet } from '../types.ts';

/** Parts of one eth_getLogs asked of the upstreams at once. */
export const LOGS_PARTS_AT_ONCE = 4;

/**
 * How nodes and providers word a refusal of a range for its width or its number of logs
 * (`query returned more than 10000 results`, `exceed maximum block range: 5000`, `block range is
 * too wide`, `eth_getLogs is limited to a 10,000 range`, `Log response size exceeded`, ...).
 */
const RANGE_REFUSED =
  /block range|range (is )?(too )?(large|wide|big)|limited to .*range|exceed(s|ed)? (the )?max(imum)? (block )?range|more than \d+ (results|logs|blocks)|too many (results|logs|blocks)|returned more than|exceeds max results|limit exceeded|response size/i;

/** Whether a node's error refuses an eth_getLogs for the width of its range or its number of logs. */
export function refusesRange(message: string): boolean {
  return RANGE_REFUSED.test(message);
}

type Range = { from: number; to: number };
type Filter = Record<string, unknown>;

/**
 * The widest range each upstream takes in one eth_getLogs: `maxLogsBlockRange` until the upstream
 * refuses a range, then half of what it refused, remembered for the life of the gateway.
 */
export class LogsRanges {
  private readonly learned = new WeakMap<HttpUpstream, number>();

  constructor(readonly initial: number) {}

  of(member: UpstreamMember): number {
    return this.learned.get(member.upstream) ?? this.initial;
  }

  /**
   * The upstream refused `refused` blocks: it is asked for at most half of that from now on (parts
   * refused at once, each of the same width, narrow it once, not once each).
   */
  narrow(member: UpstreamMember, refused: number) {
    this.learned.set(member.upstream, Math.max(1, Math.min(this.of(member), Math.floor(refused / 2))));
  }
}

/**
 * eth_getLogs over more blocks than an upstream takes at once: split into parts each upstream
 * accepts, fetched at most `LOGS_PARTS_AT_ONCE` at a time, joined in block order (each part is the
 * node's text, logs in the node's order; the parts do not overlap, so no log appears twice).
 * Undefined when one upstream can take the whole range (the usual path: cache, merged calls).
 */
export function serveLogsInParts(
  params: unknown[],
  fleet: Fleet,
  ranges: LogsRanges,
): Promise<UpstreamReply> | undefined {
  const filter = params[0] as Filter;
  if (filter.blockHash !== undefined) return undefined;
  const from = boundOf(filter.fromBlock, fleet);
  const to = boundOf(filter.toBlock, fleet);
  if (from === undefined || to === undefined) return undefined;
  // No upstream in service makes this Infinity, and a range that ends before it starts is narrower
  // than any: both go the usual way, which answers them.
  const narrowest = Math.min(...fleet.upstreams.inService().map((m) => ranges.of(m)));
  if (to - from + 1 <= narrowest) return undefined;
  return new LogsInParts(filter, fleet, ranges).fetch(from, to, narrowest);
}

/** A bound as a number: tags as the upstreams report them now; undefined while unknown. */
function boundOf(value: unknown, fleet: Fleet): number | undefined {
  if (typeof value === 'string' && value.startsWith('0x')) return Number(BigInt(value));
  if (value === 'earliest') return 0;
  const known = (n = -1) => (n < 0 ? undefined : n);
  if (value === 'safe') return known(fleet.upstreams.agreed()?.safe);
  if (value === 'finalized') return known(fleet.heads.finalized);
  return known(fleet.upstreams.bestHead());
}

/** The node's refusal of a part (not for its range): it is the answer to the whole request. */
class RefusedByNode {
  constructor(readonly error: JsonRpcError) {}
}

class LogsInParts {
  private readonly parts: (Range & { text: string })[] = [];
  private bytes = 0;
  private failures = 0;
  private stopped = false;
  private readonly maxFailures: number;

  constructor(
    private readonly filter: Filter,
    private readonly fleet: Fleet,
    private readonly ranges: LogsRanges,
  ) {
    this.maxFailures = 2 * fleet.upstreams.members.length + 2;
  }

  async fetch(from: number, to: number, size: number): Promise<UpstreamReply> {
    let cursor = from;
    // Parts end on multiples of their size, so that the same blocks make the same part (and the
    // same cache entry) whatever range a request starts at.
    const take = (): Range | undefined => {
      if (cursor > to || this.stopped) return undefined;
      const end = Math.min(to, (Math.floor(cursor / size) + 1) * size - 1);
      const range = { from: cursor, to: end };
      cursor = end + 1;
      return range;
    };
    const worker = async () => {
      try {
        for (let range = take(); range; range = take()) await this.fetchRange(range);
      } catch (error) {
        this.stopped = true;
        throw error;
      }
    };
    try {
      await Promise.all(Array.from({ length: LOGS_PARTS_AT_ONCE }, worker));
    } catch (error) {
      if (error instanceof RefusedByNode) return { ok: false, error: error.error };
      throw error;
    }
    this.parts.sort((a, b) => a.from - b.from);
    const items = this.parts.map((p) => p.text.slice(1, -1).trim()).filter((inner) => inner !== '');
    return { ok: true, result: JsonResult.ofItems(items) };
  }

  /** One range on the best upstream for it, split further when that upstream takes fewer blocks. */
  private async fetchRange(range: Range): Promise<void> {
    if (this.stopped) return;
    // The first with its breaker closed (a half-open one is in its trial call already).
    const member = this.fleet.upstreams.inService(range.to).find((m) => m.breaker.state === 'closed');
    if (!member) throw new GatewayError('upstreamUnavailable', 'No upstream node is available');
    const blocks = range.to - range.from + 1;
    const size = this.ranges.of(member);
    if (blocks > size) {
      for (let from = range.from; from <= range.to; from += size) {
        await this.fetchRange({ from, to: Math.min(range.to, from + size - 1) });
      }
      return;
    }
    const params = [{ ...this.filter, fromBlock: hex(range.from), toBlock: hex(range.to) }];
    const final = range.to <= this.fleet.heads.finalized;
    const key = `${EVM_GET_LOGS}:${stringifyJsonExact(params)}`;
    const { cache } = this.fleet;
    if (final && cache) {
      const found = cache.get(key);
      const hit = found instanceof Promise ? await found : found;
      if (hit?.reply.ok) return this.keep(range, hit.reply.result);
    }
    let reply: UpstreamReply;
    try {
      reply = await this.fleet.upstreams.callMember(member, EVM_GET_LOGS, params);
    } catch (error) {
      // Unreachable or timed out: its breaker counted it; the range goes to the next upstream.
      this.failures += 1;
      if (this.failures > this.maxFailures) throw error;
      return this.fetchRange(range);
    }
    if (!reply.ok) {
      if (blocks > 1 && refusesRange(reply.error.message)) {
        this.ranges.narrow(member, blocks);
        return this.fetchRange(range);
      }
      throw new RefusedByNode(reply.error);
    }
    this.keep(range, reply.result);
    if (final && cache) cache.set(key, { reply, block: range.to }, true);
  }

  private keep(range: Range, result: JsonResult) {
    // A node's result as it wrote it, from its first character to its last (no space around).
    const { text } = result;
    if (!text.startsWith('[')) {
      throw new GatewayError(
        'upstreamUnavailable',
        'Upstream node answered eth_getLogs without a list of logs',
      );
    }
    this.bytes += text.length;
    const cap = this.fleet.maxResponseBytes;
    if (this.bytes > cap) {
      throw new GatewayError(
        'answerTooLarge',
        `eth_getLogs answer larger than maxResponseBytes (${cap} bytes); narrow the block range or the filter`,
        { maxResponseBytes: cap },
      );
    }
    this.parts.push({ ...range, text });
  }
}

const hex = (n: number) => `0x${n.toString(16)}`;
