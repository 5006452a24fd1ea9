import { GatewayError } from '../rpc/errors.ts';
import { EVM_BLOCK_NUMBER, EVM_GET_BLOCK_BY_NUMBER } from '../rpc/method-names.ts';
import type { ChainContext } from '../types.ts';
import type { UpstreamPool } from './upstream-pool.ts';

/** Answers the parameter rules' questions about the chain, with a short cache. */
export function createChainContext(upstreams: UpstreamPool, cacheMs = 2000): ChainContext {
  let gasLimit: { value: bigint; at: number } | undefined;
  let inflight: Promise<bigint> | undefined;
  return {
    async blockGasLimit() {
      if (gasLimit && Date.now() - gasLimit.at < cacheMs) return gasLimit.value;
      inflight ??= upstreams
        .call(EVM_GET_BLOCK_BY_NUMBER, ['latest', false])
        .then((reply) => {
          const block = reply.ok ? (reply.result.value as { gasLimit?: string } | null) : null;
          if (!block?.gasLimit)
            throw new GatewayError('upstreamUnavailable', 'Upstream node has no latest block');
          gasLimit = { value: BigInt(block.gasLimit), at: Date.now() };
          return gasLimit.value;
        })
        .finally(() => {
          inflight = undefined;
        });
      return inflight;
    },
    async headNumber() {
      const best = upstreams.bestHead();
      if (best >= 0) return best;
      const reply = await upstreams.call(EVM_BLOCK_NUMBER, []);
      const head = reply.ok ? reply.result.value : undefined;
      if (typeof head !== 'string') {
        throw new GatewayError('upstreamUnavailable', 'Upstream node has no latest block');
      }
      return Number(BigInt(head));
    },
  };
}
