import type { ProviderNamespace } from './params/values.ts';

/** MetaMask's upper bound for an EVM chain id (the largest safe integer it accepts). */
const MAX_EIP155_CHAIN_ID = 4_503_599_627_370_476;

/** Web3Auth's Solana chain ids and the CAIP-2 references of the clusters they name. */
const WEB3AUTH_SOLANA_IDS: Record<string, string> = {
  '0x1': '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
  '0x2': '4uhcVJyU9pJkvQyS88uRDiswHXSCkY3z',
  '0x3': 'EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
};

const CAIP2_REFERENCE = /^[-_a-zA-Z0-9]{1,32}$/;

/** What `normalizeChainId` accepts, for error messages. */
export const CHAIN_ID_RULES: Record<ProviderNamespace, string> = {
  eip155: 'a hex chain id from 0x1 to 0xfffffffffffec (e.g. 0x7a69 for 31337)',
  solana:
    'a CAIP-2 id solana:<reference>, the reference alone, or Web3Auth’s 0x1 (mainnet), 0x2 (testnet), 0x3 (devnet)',
};

/**
 * The one spelling of a chain id used for comparisons: lowercase hex without leading zeros on
 * eip155, `solana:<reference>` on solana. Undefined when `id` is not a chain id of the namespace.
 */
export function normalizeChainId(namespace: ProviderNamespace, id: unknown): string | undefined {
  if (typeof id !== 'string') return undefined;
  if (namespace === 'eip155') {
    if (!/^0x[0-9a-fA-F]{1,14}$/.test(id)) return undefined;
    const value = Number.parseInt(id.slice(2), 16);
    return value > 0 && value <= MAX_EIP155_CHAIN_ID ? `0x${value.toString(16)}` : undefined;
  }
  const web3auth = WEB3AUTH_SOLANA_IDS[id.toLowerCase()];
  if (web3auth) return `solana:${web3auth}`;
  const reference = id.startsWith('solana:') ? id.slice('solana:'.length) : id;
  return CAIP2_REFERENCE.test(reference) ? `solana:${reference}` : undefined;
}
