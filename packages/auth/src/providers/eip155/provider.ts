import { providerErrors, rpcErrors } from '@metamask/rpc-errors';
import {
  type Address,
  type Client,
  createClient,
  custom,
  type Hex,
  isAddressEqual,
  type PrivateKeyAccount,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { AuthValidationError } from '../../errors.ts';
import type { ChainConfig } from '../../types.ts';
import { KeyBackedProvider, type KeyBackedProviderOptions } from '../key-backed-provider.ts';
import { addEthereumChainConfig, requestedChainId, viemChain } from './chain.ts';
import { personalSign, signTypedDataV4 } from './signing.ts';
import { fillTransaction, parseTransaction } from './transaction.ts';

export interface Eip155ProviderOptions extends Omit<KeyBackedProviderOptions, 'getKey'> {
  /** The user's secp256k1 key, 64 hex (`auth.getPrivKey()`); `""` when logged out. */
  getPrivKey: () => string;
}

/**
 * Wallet methods the provider does not offer (4200) rather than letting them reach the node:
 * a node that holds keys of its own (anvil does) would sign with those.
 */
const UNSUPPORTED =
  /^(eth_sign|eth_signTypedData|eth_signTypedData_v1|eth_signTypedData_v3|eth_decrypt|eth_getEncryptionPublicKey|eth_subscribe|eth_unsubscribe|eth_private_key|personal_.*|wallet_.*)$/;

const HINTS: Record<string, string> = {
  eth_subscribe: ' over HTTP: viem and ethers poll instead',
  eth_private_key: ': the key is not exported through the provider (use auth.getPrivKey())',
};

/**
 * An EIP-1193 provider for `eip155` chains: it signs with the user's key (read through
 * `getPrivKey`, never stored elsewhere) and sends every read and broadcast to the current chain's
 * `rpcTarget`. Works with viem `custom(provider)`, ethers `BrowserProvider` and wagmi's `injected`.
 */
export class Eip155Provider extends KeyBackedProvider<PrivateKeyAccount, Address> {
  constructor(options: Eip155ProviderOptions) {
    super({ ...options, getKey: options.getPrivKey }, 'eip155');
  }

  protected deriveAccount(key: string): PrivateKeyAccount {
    if (!/^[0-9a-fA-F]{64}$/.test(key))
      throw providerErrors.disconnected({ message: 'The key is not a secp256k1 key' });
    return privateKeyToAccount(`0x${key}`);
  }

  protected addressOf(account: PrivateKeyAccount): Address {
    return account.address;
  }

  private client(): Client {
    return createClient({
      chain: viemChain(this.chains.current),
      transport: custom({ request: ({ method, params }) => this.rpc(method, params) }, { retryCount: 0 }),
    });
  }

  protected async handle(method: string, params: unknown): Promise<unknown> {
    switch (method) {
      case 'eth_accounts':
        return this.addresses();
      case 'eth_requestAccounts':
        return [this.account().address];
      case 'eth_coinbase':
        return this.addresses()[0] ?? null;
      case 'eth_chainId':
        return this.chainId;
      case 'personal_sign':
        return personalSign(this.account(), params);
      case 'eth_signTypedData_v4':
        return signTypedDataV4(this.account(), params, Number.parseInt(this.chainId, 16));
      case 'eth_signTransaction':
        return this.signTransaction(method, params);
      case 'eth_sendTransaction':
        return this.rpc('eth_sendRawTransaction', [await this.signTransaction(method, params)]);
      case 'wallet_switchEthereumChain':
        this.switchChain({ chainId: requestedChainId(method, params) });
        return null;
      case 'wallet_addEthereumChain':
        return this.addEthereumChain(params);
      case 'wallet_requestPermissions':
      case 'wallet_getPermissions':
        return this.permissions(method === 'wallet_requestPermissions');
    }
    if (UNSUPPORTED.test(method)) {
      throw providerErrors.unsupportedMethod(
        `${method} is not supported by this provider${HINTS[method] ?? ''}`,
      );
    }
    return this.passThrough(method, params);
  }

  /** Fills (through rpcTarget) and signs a transaction from the user's account; returns it serialized. */
  private async signTransaction(method: string, params: unknown): Promise<Hex> {
    const account = this.account();
    const draft = parseTransaction(method, params);
    if (draft.from && !isAddressEqual(draft.from, account.address)) {
      throw providerErrors.unauthorized(`${method}: from ${draft.from} is not the logged-in user's account`);
    }
    const chain = viemChain(this.chains.current);
    if (draft.chainId !== undefined && draft.chainId !== chain.id) {
      throw rpcErrors.invalidParams(
        `${method}: chainId ${draft.chainId} is not the current chain (${chain.id})`,
      );
    }
    const tx = await fillTransaction(this.client(), chain, account.address as Address, draft);
    return account.signTransaction(tx);
  }

  /**
   * EIP-3085 as MetaMask does it: adds the chain and switches to it (wagmi's switchChain relies on
   * that). A chain already configured keeps its config, so a dapp cannot point a configured gateway
   * chain at another RPC; it is only switched to.
   */
  private addEthereumChain(params: unknown): null {
    const config: ChainConfig = addEthereumChainConfig(params);
    if (!this.chains.find(config.chainId)) {
      try {
        this.addChain(config);
      } catch (error) {
        if (error instanceof AuthValidationError) {
          throw rpcErrors.invalidParams(`wallet_addEthereumChain: ${error.message}`);
        }
        throw error;
      }
    }
    this.switchChain({ chainId: config.chainId });
    return null;
  }

  /** EIP-2255: the login is the permission; it covers exactly the user's account. */
  private permissions(request: boolean): unknown[] {
    const accounts = request ? [this.account().address] : this.addresses();
    if (accounts.length === 0) return [];
    return [
      {
        parentCapability: 'eth_accounts',
        caveats: [{ type: 'restrictReturnedAccounts', value: accounts }],
      },
    ];
  }
}

/** An EIP-1193 provider on `chainConfig` (and `chains`), signing with `getPrivKey()`; connected when a key is there. */
export function createEip155Provider(options: Eip155ProviderOptions): Eip155Provider {
  const provider = new Eip155Provider(options);
  provider.connect();
  return provider;
}
