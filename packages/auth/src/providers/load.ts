import type { ChainRegistry } from './chains.ts';
import type { Eip155Provider } from './eip155/provider.ts';
import type { SolanaProvider } from './solana/provider.ts';

/** `auth.provider`: the EIP-1193 provider on eip155, Web3Auth's Solana provider on solana. */
export type AuthProvider = Eip155Provider | SolanaProvider;

export interface ProviderKeys {
  getPrivKey: () => string;
  getEd25519PrivKey: () => string;
}

/**
 * Loads the provider of the registry's namespace. The dynamic imports keep viem and @solana/kit out
 * of an app's first load, and an eip155 app never loads @solana/kit (nor a solana app viem).
 */
export async function loadProvider(
  chains: ChainRegistry,
  keys: ProviderKeys,
  fetcher: typeof fetch | undefined,
): Promise<AuthProvider> {
  if (chains.namespace === 'eip155') {
    const { Eip155Provider } = await import('./eip155/index.ts');
    return new Eip155Provider({ chainConfig: chains, getPrivKey: keys.getPrivKey, fetch: fetcher });
  }
  const { SolanaProvider } = await import('./solana/index.ts');
  return new SolanaProvider({
    chainConfig: chains,
    getEd25519PrivKey: keys.getEd25519PrivKey,
    fetch: fetcher,
  });
}
