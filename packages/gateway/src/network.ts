import type { ChainContext, MethodTable } from './methods/types.ts';
import type { NetworkKind } from './rpc/errors.ts';
import type { HttpUpstream } from './upstream/http-upstream.ts';

/** One network the gateway serves: its base address, its methods and the node behind it. */
export type Network = {
  name: string;
  kind: NetworkKind;
  /** CAIP-2 chain id, e.g. eip155:31337. */
  chainId: string;
  /** Path prefix of the base address, e.g. `/local` (empty when served by host name). */
  basePath: string;
  /** Host name that selects this network regardless of path, e.g. `eth.example.com`. */
  host?: string;
  methods: MethodTable;
  upstream: HttpUpstream;
  chain: ChainContext;
};
