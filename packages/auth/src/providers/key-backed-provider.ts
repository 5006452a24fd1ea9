import { providerErrors, rpcErrors } from '@metamask/rpc-errors';
import { AuthValidationError } from '../errors.ts';
import type { ChainConfig, ProviderNamespace } from '../types.ts';
import { ChainRegistry } from './chains.ts';
import { type ProviderError, toProviderError } from './errors.ts';
import { ProviderEvents } from './events.ts';
import { createRpcClient, type RpcCall } from './rpc-client.ts';

/** The `disconnect` event's error: 4900, with the `details` viem's `ProviderRpcError` type has. */
export type DisconnectError = ProviderError & { details: string };

/**
 * EIP-1193's events, also emitted by the Solana provider. Method signatures, as in viem's
 * `EIP1193EventMap`, so the provider type fits where viem and wagmi expect an EIP-1193 provider.
 */
export type ProviderEventMap<AccountId extends string = string> = {
  connect(info: { chainId: string }): void;
  disconnect(error: DisconnectError): void;
  accountsChanged(accounts: AccountId[]): void;
  chainChanged(chainId: string): void;
  /** Subscription messages: never emitted (no `eth_subscribe`). */
  message(message: { type: string; data: unknown }): void;
};

/** EIP-1193's request argument. */
export interface RequestArguments {
  readonly method: string;
  /** `readonly unknown[] | object` by EIP-1193; typed wider so viem's and wagmi's request types fit. */
  readonly params?: unknown;
}

export interface KeyBackedProviderOptions {
  /**
   * The user's key, read on every signing call; `""` (or a throw) when there is none — logged out,
   * session expired — and the provider then answers 4900 and announces the disconnect.
   */
  getKey: () => string;
  /** The chain to start on, or a registry shared with its owner (`Auth` shares its own). */
  chainConfig: ChainConfig | ChainRegistry;
  /** More chains to switch among (same namespace). */
  chains?: readonly ChainConfig[];
  /** Used for every call to `rpcTarget` (default: the global fetch). */
  fetch?: typeof fetch;
}

/** Duck-typed: a registry from another bundle of this package is another class. */
function isRegistry(value: ChainConfig | ChainRegistry): value is ChainRegistry {
  return typeof (value as ChainRegistry).select === 'function';
}

/**
 * What both namespaces' providers share: a key read through a getter (so a provider is unit-testable
 * without the auth service, and never outlives the session that gave the key), the chains it may
 * switch among, the JSON-RPC client to the current chain's `rpcTarget`, and the EIP-1193 events.
 */
export abstract class KeyBackedProvider<Account, AccountId extends string = string> extends ProviderEvents<
  ProviderEventMap<AccountId>
> {
  protected readonly chains: ChainRegistry;
  protected readonly rpc: RpcCall;
  private readonly getKey: () => string;
  /** The key's account, derived once per key and dropped on disconnect. */
  private cached?: { key: string; account: Account };
  /** The address last announced; undefined while disconnected. */
  private announced?: AccountId;

  constructor(options: KeyBackedProviderOptions, namespace: ProviderNamespace) {
    super();
    this.getKey = options.getKey;
    this.chains = isRegistry(options.chainConfig)
      ? options.chainConfig
      : new ChainRegistry(options.chainConfig);
    if (this.chains.namespace !== namespace) {
      throw new AuthValidationError(
        'chainConfig.chainNamespace',
        `${namespace} for this provider`,
        this.chains.namespace,
      );
    }
    for (const [i, config] of (options.chains ?? []).entries()) this.chains.add(config, `chains[${i}]`);
    this.rpc = createRpcClient(() => this.chains.current.rpcTarget, options.fetch);
  }

  protected abstract deriveAccount(key: string): Account;
  protected abstract addressOf(account: Account): AccountId;
  /** Answers one request; what it does not answer itself goes to `passThrough`. */
  protected abstract handle(method: string, params: unknown): Promise<unknown>;

  /**
   * EIP-1193 `request`; errors are `@metamask/rpc-errors` errors with EIP-1193/JSON-RPC codes. `T`
   * only types the answer for the caller (as MetaMask's and Web3Auth's providers do).
   */
  async request<T = unknown>(args: RequestArguments): Promise<T> {
    if (typeof args !== 'object' || args === null || typeof args.method !== 'string') {
      throw rpcErrors.invalidRequest('request expects { method, params? }');
    }
    try {
      return (await this.handle(args.method, args.params)) as T;
    } catch (error) {
      throw toProviderError(error);
    }
  }

  /** A read or broadcast for the chain's rpcTarget; like every call, only while a user is logged in (else 4900). */
  protected passThrough(method: string, params: unknown): Promise<unknown> {
    this.account();
    return this.rpc(method, params);
  }

  /** The current chain's id as this namespace's clients expect it. */
  get chainId(): string {
    return this.chains.current.chainId;
  }

  /** The current chain's config (`rpcTarget` included). */
  get chainConfig(): ChainConfig {
    return { ...this.chains.current };
  }

  /** Whether a key is loaded and announced (EIP-1193's connected state). */
  isConnected(): boolean {
    return this.announced !== undefined;
  }

  /** The user's address, or none without a key (never throws). */
  protected addresses(): AccountId[] {
    try {
      return [this.addressOf(this.account())];
    } catch {
      return [];
    }
  }

  /**
   * Re-reads the key. A key after none announces `connect` and `accountsChanged`; another key
   * (another user) `accountsChanged`; no key `accountsChanged([])` and `disconnect`.
   */
  connect(): void {
    const key = this.readKey();
    if (!key) {
      this.disconnect();
      return;
    }
    const address = this.addressOf(this.accountFor(key));
    if (this.announced === address) return;
    const wasConnected = this.announced !== undefined;
    this.announced = address;
    if (!wasConnected) this.emit('connect', { chainId: this.chainId });
    this.emit('accountsChanged', [address]);
  }

  /** Forgets the key's account and, when connected, announces `accountsChanged([])` and `disconnect` (4900). */
  disconnect(): void {
    this.cached = undefined;
    if (this.announced === undefined) return;
    this.announced = undefined;
    this.emit('accountsChanged', []);
    const details = 'The user logged out or the session ended: no key to sign with.';
    this.emit('disconnect', Object.assign(providerErrors.disconnected({ message: details }), { details }));
  }

  /** The signing account; 4900 (and the disconnect announced) when the key is gone. */
  protected account(): Account {
    const key = this.readKey();
    if (!key) {
      this.disconnect();
      throw providerErrors.disconnected({ message: 'No user is logged in: log in to use the provider.' });
    }
    const account = this.accountFor(key);
    if (this.announced !== this.addressOf(account)) this.connect();
    return account;
  }

  /** Adds a chain to switch to (validated like `chainConfig`); does not switch. */
  addChain(config: ChainConfig): void {
    this.chains.add(config);
  }

  /** Switches to a configured chain and announces `chainChanged`; 4902 for a chain never added. */
  switchChain({ chainId }: { chainId: string }): void {
    if (!this.chains.find(chainId)) {
      throw providerErrors.custom({
        code: 4902,
        message: `Unrecognized chain ID "${String(chainId)}". Add it first (addChain / wallet_addEthereumChain).`,
      });
    }
    if (this.chains.select(chainId)) this.emit('chainChanged', this.chainId);
  }

  private readKey(): string {
    try {
      return this.getKey();
    } catch {
      return '';
    }
  }

  private accountFor(key: string): Account {
    if (this.cached?.key !== key) this.cached = { key, account: this.deriveAccount(key) };
    return this.cached.account;
  }
}
