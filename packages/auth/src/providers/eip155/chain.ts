import { rpcErrors } from '@metamask/rpc-errors';
import { type Chain, defineChain } from 'viem';
import { normalizeChainId } from '../../chain-id.ts';
import type { ChainConfig } from '../../types.ts';

/** viem's description of a configured chain. */
export function viemChain(config: ChainConfig): Chain {
  return defineChain({
    id: Number.parseInt(config.chainId, 16),
    name: config.displayName ?? `eip155:${Number.parseInt(config.chainId, 16)}`,
    nativeCurrency: {
      name: config.tickerName ?? 'Ether',
      symbol: config.ticker ?? 'ETH',
      decimals: config.decimals ?? 18,
    },
    rpcUrls: { default: { http: [config.rpcTarget] } },
    ...(config.blockExplorerUrl
      ? { blockExplorers: { default: { name: 'Explorer', url: config.blockExplorerUrl } } }
      : {}),
  });
}

/** MetaMask's rule for a chain id in `wallet_*EthereumChain`: 0x-prefixed lowercase-or-upper hex, no leading zeros. */
export function requestedChainId(method: string, params: unknown): string {
  const first = Array.isArray(params) ? params[0] : undefined;
  const chainId = (first as { chainId?: unknown } | undefined)?.chainId;
  if (typeof chainId !== 'string' || !/^0x[1-9a-fA-F][0-9a-fA-F]*$/.test(chainId)) {
    throw rpcErrors.invalidParams(
      `${method}: chainId must be a 0x-prefixed hex string without leading zeros`,
    );
  }
  const id = normalizeChainId('eip155', chainId);
  if (!id) throw rpcErrors.invalidParams(`${method}: chainId ${chainId} is out of range`);
  return id;
}

/**
 * `wallet_addEthereumChain` [{chainId, chainName, rpcUrls, nativeCurrency, blockExplorerUrls, iconUrls}]
 * (EIP-3085) as a chain config: the first rpcUrl becomes the rpcTarget.
 */
export function addEthereumChainConfig(params: unknown): ChainConfig {
  const method = 'wallet_addEthereumChain';
  const chainId = requestedChainId(method, params);
  const p = (params as Record<string, unknown>[])[0];
  const rpcUrls = p.rpcUrls;
  if (!Array.isArray(rpcUrls) || typeof rpcUrls[0] !== 'string') {
    throw rpcErrors.invalidParams(`${method}: rpcUrls must list at least one http(s) URL`);
  }
  const config: ChainConfig = { chainNamespace: 'eip155', chainId, rpcTarget: rpcUrls[0] };
  if (typeof p.chainName === 'string' && p.chainName) config.displayName = p.chainName;
  const currency = p.nativeCurrency as { name?: unknown; symbol?: unknown; decimals?: unknown } | undefined;
  if (typeof currency?.symbol === 'string' && currency.symbol) config.ticker = currency.symbol;
  if (typeof currency?.name === 'string' && currency.name) config.tickerName = currency.name;
  if (typeof currency?.decimals === 'number') config.decimals = currency.decimals;
  const explorer = (p.blockExplorerUrls as unknown[] | undefined)?.[0];
  if (typeof explorer === 'string') config.blockExplorerUrl = explorer;
  const icon = (p.iconUrls as unknown[] | undefined)?.[0];
  if (typeof icon === 'string') config.logo = icon;
  return config;
}
