import type { MethodRule } from '../methods/types.ts';
import type { Network } from '../network.ts';
import type { JsonRpcError } from '../rpc/jsonrpc.ts';
import { isRevertError, normaliseRevert } from '../upstream/revert.ts';

/** Stage 5: send the call upstream and shape the answer to the spec (reverts, pending fields). */
export async function forward(
  network: Network,
  rule: MethodRule,
  method: string,
  params: unknown[],
): Promise<{ ok: true; result: unknown } | { ok: false; error: JsonRpcError }> {
  const reply = await network.upstream.call(method, rule.prepare ? rule.prepare(params) : params);
  if (reply.ok) return rule.finish ? { ok: true, result: rule.finish(reply.result, params) } : reply;
  if (network.kind === 'evm' && isRevertError(reply.error))
    return { ok: false, error: normaliseRevert(reply.error) };
  return reply;
}
