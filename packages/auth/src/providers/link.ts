import { AuthValidationError } from '../errors.ts';
import type { ChainConfig } from '../types.ts';
import { ChainRegistry } from './chains.ts';
import { type AuthProvider, loadProvider, type ProviderKeys } from './load.ts';

/**
 * `auth.provider` kept in line with the session's keys: loaded on the first key (with a
 * `chainConfig` only), connected while there is a key, disconnected when there is none.
 */
export class ProviderLink {
  /** The chains of `chainConfig` and `addChain`; shared with the provider. */
  private readonly chains?: ChainRegistry;
  /** Loaded on the first login/restore with a chainConfig; kept (disconnected) across logouts. */
  private provider?: AuthProvider;

  constructor(
    chainConfig: ChainConfig | undefined,
    private readonly keys: ProviderKeys,
    private readonly fetcher: typeof fetch | undefined,
    /** Told after each sync, when `current` may have changed. */
    private readonly onSync: () => void = () => {},
  ) {
    if (chainConfig) this.chains = new ChainRegistry(chainConfig);
  }

  /** The provider while there is a key to sign with, else null. */
  get current(): AuthProvider | null {
    return this.provider && this.key() ? this.provider : null;
  }

  /** The key the provider signs with: secp256k1 on eip155, ed25519 on solana; `""` without a session. */
  private key(): string {
    return this.chains?.namespace === 'solana' ? this.keys.getEd25519PrivKey() : this.keys.getPrivKey();
  }

  addChain(chainConfig: ChainConfig): void {
    this.requireChains('addChain').add(chainConfig);
  }

  switchChain(chainId: string): void {
    const chains = this.requireChains('switchChain');
    if (this.provider && chains.find(chainId)) this.provider.switchChain({ chainId });
    else chains.select(chainId);
  }

  private requireChains(method: string): ChainRegistry {
    if (!this.chains) throw new AuthValidationError('chainConfig', `set in Auth.create before ${method}`);
    return this.chains;
  }

  /**
   * Brings the provider in line with the keys: loaded and connected while there is a key,
   * disconnected (`accountsChanged([])`, `disconnect`) when there is none. Call after every change
   * of the state. Between calls the provider reads the key through the getters, so a session whose
   * keys are gone stops signing at once.
   */
  async sync(): Promise<void> {
    if (!this.chains) return;
    if (!this.key()) {
      this.provider?.disconnect();
    } else {
      this.provider ??= await loadProvider(this.chains, this.keys, this.fetcher);
      this.provider.connect();
    }
    this.onSync();
  }
}
