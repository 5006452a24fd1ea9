import type { CacheDecision, MethodRule } from '../methods/types.ts';
import type { Network } from '../network.ts';
import { GatewayError } from '../rpc/errors.ts';
import { stringifyJsonExact } from '../rpc/exact-json.ts';
import { JsonResult } from '../rpc/json-result.ts';
import type { JsonRpcError } from '../rpc/jsonrpc.ts';
import type { CacheStatus } from '../types.ts';
import type { UpstreamReply } from '../upstream/http-upstream.ts';

/** The answer of the forward stage: the node's reply (its result as the node wrote it) and where it came from. */
export type ForwardResult = ({ ok: true; result: JsonResult } | { ok: false; error: JsonRpcError }) & {
  cache: CacheStatus;
};

/**
 * Forward, the same for every chain: answer from the cache, or send the call upstream (sharing
 * identical calls in flight) through the pool. What differs by kind of network (block tags,
 * future blocks, what may be cached, error shapes) comes from the method table's hooks
 * (`methods/<kind>/hooks.ts`); the method's own `finish` shapes a result (e.g. pending fields).
 */
export function forward(
  network: Network,
  rule: MethodRule,
  method: string,
  params: unknown[],
): Promise<ForwardResult> {
  // Read-your-writes with pushed heads: reads at `latest` go to the node until the heads after a
  // write are known.
  if (network.blockTags === 'pushed' && network.methods.writes.has(method))
    return network.heads.whileWriting(() => forwardOnce(network, rule, method, params));
  return forwardOnce(network, rule, method, params);
}

async function forwardOnce(
  network: Network,
  rule: MethodRule,
  method: string,
  params: unknown[],
): Promise<ForwardResult> {
  const { hooks } = network.methods;
  let upstreamParams = rule.prepare ? rule.prepare(params) : params;
  const pinTags =
    network.blockTags === 'agreed' || (network.blockTags === 'pushed' && network.heads.pushLive());
  const agreed = pinTags && hooks.pinBlockTags ? network.upstreams.agreed() : undefined;
  if (agreed && hooks.pinBlockTags) {
    const pinned = hooks.pinBlockTags(method, upstreamParams, agreed);
    if ('answer' in pinned) return { ok: true, result: JsonResult.ofValue(pinned.answer), cache: 'BYPASS' };
    upstreamParams = pinned.params;
  }
  // A method that serves itself (a transaction to every node, a wide eth_getLogs in parts).
  const served = rule.serve?.(upstreamParams, network);
  if (served) return finished(network, rule, params, await served, 'BYPASS');
  const requested = hooks.requestedBlock?.(method, upstreamParams);
  if (requested?.nullBeyondHeads) {
    // Known at once for a block at or below the best head; a poll first for one above it.
    const beyond = beyondEveryHead(network, requested.block);
    if (beyond === true || (beyond !== false && (await beyond))) {
      return { ok: true, result: JsonResult.ofValue(null), cache: 'BYPASS' };
    }
  }
  const decision: CacheDecision =
    network.cache && hooks.cacheDecision ? hooks.cacheDecision(method, upstreamParams) : NOT_CACHEABLE;
  // The key of the cache and of merged calls; a call that is neither cached nor merged needs none.
  const merged = !network.methods.writes.has(method);
  const key = decision.cacheable || merged ? `${method}:${stringifyJsonExact(upstreamParams)}` : '';
  if (decision.cacheable && network.cache) {
    // A shared cache answers with a Promise; the in-memory one at once, without a turn of the loop.
    const found = network.cache.get(key);
    const hit = found instanceof Promise ? await found : found;
    if (hit) {
      // Answering in the same turn of the event loop as the request was read costs throughput
      // under load (measured again with the dispatch upstream: 67 against 44 µs of CPU per hit at
      // 8 clients); the answer waits one turn.
      if (!(found instanceof Promise)) await nextTurn();
      return finished(network, rule, params, hit.reply, 'HIT');
    }
  }
  const minHead = requested?.block;
  let reply: UpstreamReply;
  try {
    // Calls that change state (a second identical airdrop is a second airdrop) are never merged.
    reply = await (merged
      ? shared(network, key, method, upstreamParams, minHead)
      : network.upstreams.call(method, upstreamParams, minHead));
  } catch (error) {
    const stale =
      decision.cacheable && noUpstreamAnswered(error) ? await staleReply(network, key) : undefined;
    if (stale) return finished(network, rule, params, stale.reply, 'STALE');
    throw error;
  }
  if (
    decision.cacheable &&
    network.cache &&
    reply.ok &&
    !reply.result.isNull &&
    !beyondKnownHead(network, decision.block)
  ) {
    const block = decision.block ?? hooks.blockOfResult?.(reply.result.value);
    const final = decision.alwaysFinal === true || (block !== undefined && block <= network.heads.finalized);
    network.cache.set(key, { reply, block }, final);
  }
  return finished(network, rule, params, reply, decision.cacheable ? 'MISS' : 'BYPASS');
}

const NOT_CACHEABLE: CacheDecision = { cacheable: false };

/**
 * A block no upstream had reached at its last poll: what the node answered for it (logs of a
 * range up to it, say) may still grow, so it is not cached. Nothing is known before the first poll.
 */
function beyondKnownHead(network: Network, block: number | undefined): boolean {
  if (block === undefined) return false;
  const best = network.upstreams.bestHead();
  return best >= 0 && block > best;
}

/** The method's `finish` on a result, the kind's error shape on an error. */
function finished(
  network: Network,
  rule: MethodRule,
  params: unknown[],
  reply: UpstreamReply,
  cache: CacheStatus,
): ForwardResult {
  if (reply.ok)
    return { ok: true, result: rule.finish ? rule.finish(reply.result, params) : reply.result, cache };
  const { shapeError } = network.methods.hooks;
  return { ok: false, error: shapeError ? shapeError(reply.error) : reply.error, cache };
}

/** Every upstream failed, timed out or was set aside (not an upstream's JSON-RPC error answer). */
function noUpstreamAnswered(error: unknown): boolean {
  return (
    error instanceof GatewayError &&
    (error.kind === 'upstreamUnavailable' || error.kind === 'upstreamTimeout')
  );
}

/** What the cache holds as final for the request, kept for this: no upstream can answer. */
async function staleReply(network: Network, key: string) {
  if (!network.cache) return undefined;
  const found = network.cache.getStale(key, network.heads.finalized);
  return found instanceof Promise ? await found : found;
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Identical requests in flight share one upstream call. */
function shared(
  network: Network,
  key: string,
  method: string,
  params: unknown[],
  minHead: number | undefined,
): Promise<UpstreamReply> {
  const pending = network.inflight.get(key);
  if (pending) return pending;
  const promise = network.upstreams.call(method, params, minHead);
  network.inflight.set(key, promise);
  const forget = () => network.inflight.delete(key);
  promise.then(forget, forget);
  return promise;
}

/**
 * True when no upstream has reached the block: false at once when one has, else checked again
 * with a fresh poll before saying so.
 */
function beyondEveryHead(network: Network, block: number): boolean | Promise<boolean> {
  const best = network.upstreams.bestHead();
  if (best < 0 || block <= best) return false;
  return network.heads.poll().then(() => {
    const polled = network.upstreams.bestHead();
    return polled >= 0 && block > polled;
  });
}
