import { normalizeChainId } from '../chain-id.ts';
import { AuthValidationError } from '../errors.ts';
import type { ChainConfig, ProviderNamespace } from '../types.ts';
import { validateChainConfig } from '../validate.ts';

/**
 * The chains one namespace's provider may use and the one it is on. Shared by `Auth` and its
 * provider, so `auth.addChain`/`auth.switchChain` and the provider's own switch methods agree.
 * Chain ids are kept in their one spelling (`normalizeChainId`).
 */
export class ChainRegistry {
  readonly namespace: ProviderNamespace;
  private readonly chains = new Map<string, ChainConfig>();
  private currentId: string;

  /** Starts on `initial` (validated here, like every chain added later). */
  constructor(initial: ChainConfig) {
    const config = validateChainConfig(initial);
    this.namespace = config.chainNamespace;
    this.currentId = config.chainId;
    this.chains.set(config.chainId, config);
  }

  get current(): ChainConfig {
    return this.chains.get(this.currentId) as ChainConfig;
  }

  list(): ChainConfig[] {
    return [...this.chains.values()];
  }

  /** The configured chain with this id (in any accepted spelling), if any. */
  find(chainId: unknown): ChainConfig | undefined {
    const id = normalizeChainId(this.namespace, chainId);
    return id === undefined ? undefined : this.chains.get(id);
  }

  /**
   * Adds a chain of this namespace (validated like `chainConfig`; errors name the field), or
   * replaces the config of one with the same id. Never switches.
   */
  add(input: ChainConfig, field = 'chainConfig'): ChainConfig {
    const config = validateChainConfig(input, field);
    if (config.chainNamespace !== this.namespace) {
      throw new AuthValidationError(`${field}.chainNamespace`, this.namespace, config.chainNamespace);
    }
    this.chains.set(config.chainId, config);
    return config;
  }

  /** Makes a configured chain current; returns whether it changed. */
  select(chainId: unknown): boolean {
    const config = this.find(chainId);
    if (!config) {
      throw new AuthValidationError(
        'chainId',
        `a chain added before: ${[...this.chains.keys()].join(', ')}`,
        chainId,
      );
    }
    const changed = config.chainId !== this.currentId;
    this.currentId = config.chainId;
    return changed;
  }
}
