import { GatewayError } from '../rpc/errors.ts';
import { JsonResult } from '../rpc/json-result.ts';
import type { JsonRpcError } from '../rpc/jsonrpc.ts';
import { EVM_GET_TRANSACTION_BY_HASH, EVM_SEND_RAW_TRANSACTION } from '../rpc/method-names.ts';
import type { CircuitBreaker } from './circuit-breaker.ts';
import type { HttpUpstream, UpstreamReply } from './http-upstream.ts';
import type { UpstreamPool } from './upstream-pool.ts';

/**
 * A node saying it already holds this very transaction (geth `already known`, Nethermind
 * `AlreadyKnown`, Erigon/Besu `known transaction`, anvil `transaction already imported`): the
 * transaction is where it should be, which is what the caller asked for.
 */
const ALREADY_KNOWN = /already known|alreadyknown|known transaction|already imported/i;
/** Said both for this transaction once mined and for another one with its nonce: asked by hash. */
const NONCE_TOO_LOW = /nonce too low/i;

type Target = { upstream: HttpUpstream; breaker?: CircuitBreaker };
type Outcome = { accepted: true } | { accepted: false; error?: JsonRpcError; relay: boolean };

/**
 * Sends a signed transaction to every upstream in service and every relay at once, and answers
 * with its hash (computed by the caller from the raw bytes) as soon as one of them has it. The
 * others keep going in the background: the transaction should reach every node, not just the
 * fastest. When none accepts, the first node's refusal is the answer (a relay's only when no node
 * answered); when none answered at all, the error of an unreachable upstream.
 */
export function broadcastTransaction(
  pool: UpstreamPool,
  relays: readonly HttpUpstream[],
  raw: string,
  hash: string,
): Promise<UpstreamReply> {
  const targets: Target[] = [
    ...pool.members.filter((m) => !m.cordoned && m.breaker.allow()),
    ...relays.map((upstream) => ({ upstream })),
  ];
  if (targets.length === 0) {
    return Promise.reject(new GatewayError('upstreamUnavailable', 'No upstream node is available'));
  }
  return new Promise((resolve, reject) => {
    let pending = targets.length;
    let nodeError: JsonRpcError | undefined;
    let relayError: JsonRpcError | undefined;
    for (const target of targets) {
      void sendTo(target, raw, hash).then((outcome) => {
        pending -= 1;
        if (outcome.accepted) {
          resolve({ ok: true, result: JsonResult.ofValue(hash) });
        } else if (outcome.error) {
          if (outcome.relay) relayError ??= outcome.error;
          else nodeError ??= outcome.error;
        }
        if (pending > 0) return;
        // Settled already when one accepted; otherwise the best refusal there is.
        const error = nodeError ?? relayError;
        if (error) resolve({ ok: false, error });
        else reject(new GatewayError('upstreamUnavailable', 'No upstream node took the transaction'));
      });
    }
  });
}

async function sendTo(target: Target, raw: string, hash: string): Promise<Outcome> {
  const relay = target.breaker === undefined;
  try {
    const reply = await target.upstream.call(EVM_SEND_RAW_TRANSACTION, [raw]);
    target.breaker?.success();
    if (reply.ok) {
      const answered = reply.result.value;
      // A node that names another hash for these bytes is not trusted with them.
      return typeof answered === 'string' && answered.toLowerCase() === hash
        ? { accepted: true }
        : { accepted: false, relay };
    }
    if (ALREADY_KNOWN.test(reply.error.message)) return { accepted: true };
    if (NONCE_TOO_LOW.test(reply.error.message) && (await holds(target.upstream, hash))) {
      return { accepted: true };
    }
    return { accepted: false, error: reply.error, relay };
  } catch {
    target.breaker?.failure();
    return { accepted: false, relay };
  }
}

/** Whether the node knows the transaction by its hash (pending or mined). */
async function holds(upstream: HttpUpstream, hash: string): Promise<boolean> {
  try {
    const reply = await upstream.call(EVM_GET_TRANSACTION_BY_HASH, [hash]);
    return reply.ok && !reply.result.isNull;
  } catch {
    return false;
  }
}
