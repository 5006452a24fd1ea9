import { providerErrors, rpcErrors } from '@metamask/rpc-errors';
import {
  type Address,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  type Transaction,
} from '@solana/kit';
import { toProviderError } from '../errors.ts';
import { KeyBackedProvider, type KeyBackedProviderOptions } from '../key-backed-provider.ts';
import { keypairFromEd25519PrivKey, type SolanaKeypair } from './keypair.ts';
import { createKitSigner, type SolanaKitSigner } from './signer.ts';
import {
  readTransaction,
  type SolanaTransactionInput,
  signInput,
  signTransactionWith,
} from './transaction.ts';

export interface SolanaProviderOptions extends Omit<KeyBackedProviderOptions, 'getKey'> {
  /** The user's ed25519 key, 128 hex `seed ‖ publicKey` (`auth.getEd25519PrivKey()`); `""` when logged out. */
  getEd25519PrivKey: () => string;
}

/** Key export methods of Web3Auth's Solana provider; the key stays with `auth.getEd25519PrivKey()`. */
const KEY_EXPORT = new Set(['solanaPrivateKey', 'private_key', 'solanaSecretKey']);

/**
 * Web3Auth's Solana provider surface: `request({ method, params })` with `getAccounts`,
 * `requestAccounts`, `signMessage`, `signTransaction`, `signAllTransactions`,
 * `signAndSendTransaction` (params `{ message }`), and every other method (Solana RPC reads,
 * `sendTransaction`) passed through to the current chain's `rpcTarget`. The same operations are
 * methods of the provider, and `getSigner()` gives a `@solana/kit` signer.
 */
export class SolanaProvider extends KeyBackedProvider<SolanaKeypair, Address> {
  constructor(options: SolanaProviderOptions) {
    super({ ...options, getKey: options.getEd25519PrivKey }, 'solana');
  }

  protected deriveAccount(key: string): SolanaKeypair {
    return keypairFromEd25519PrivKey(key);
  }

  protected addressOf(account: SolanaKeypair): Address {
    return account.address;
  }

  protected async handle(method: string, params: unknown): Promise<unknown> {
    const message = () =>
      Array.isArray(params) ? params[0] : (params as { message?: unknown } | undefined)?.message;
    switch (method) {
      case 'getAccounts':
        return this.addresses();
      case 'requestAccounts':
        return [this.account().address];
      case 'getPublicKey':
      case 'solanaPublicKey':
        return this.account().address;
      case 'signMessage':
        return this.signMessage(message() as Uint8Array | string);
      case 'signTransaction':
        return signInput(method, this.account(), message() as SolanaTransactionInput);
      case 'signAllTransactions': {
        const list = message();
        if (!Array.isArray(list) || list.length === 0) {
          throw rpcErrors.invalidParams('signAllTransactions expects { message: [transaction, …] }');
        }
        const keypair = this.account();
        return list.map((tx) => signInput(method, keypair, tx as SolanaTransactionInput));
      }
      case 'signAndSendTransaction':
        return this.sendSigned(method, message());
    }
    if (KEY_EXPORT.has(method)) {
      throw providerErrors.unsupportedMethod(`${method}: the key is not exported through the provider`);
    }
    return this.passThrough(method, params);
  }

  private async sendSigned(method: string, input: unknown): Promise<{ signature: string }> {
    const signed: Transaction = signTransactionWith(method, this.account(), readTransaction(method, input));
    await this.rpc('sendTransaction', [
      getBase64EncodedWireTransaction(signed),
      { encoding: 'base64', preflightCommitment: 'confirmed' },
    ]);
    return { signature: getSignatureFromTransaction(signed) };
  }

  /** The user's account address(es): `[]` when logged out. */
  async getAccounts(): Promise<string[]> {
    return this.request({ method: 'getAccounts' }) as Promise<string[]>;
  }

  async requestAccounts(): Promise<string[]> {
    return this.request({ method: 'requestAccounts' }) as Promise<string[]>;
  }

  /** An ed25519 signature (64 bytes) over the bytes, or over a string's UTF-8. */
  async signMessage(message: Uint8Array | string): Promise<Uint8Array> {
    if (!(message instanceof Uint8Array) && typeof message !== 'string') {
      throw rpcErrors.invalidParams('signMessage expects { message: Uint8Array }');
    }
    const bytes = typeof message === 'string' ? new TextEncoder().encode(message) : message;
    return this.account().sign(bytes);
  }

  async signTransaction<T extends SolanaTransactionInput>(transaction: T): Promise<T> {
    return this.request({ method: 'signTransaction', params: { message: transaction } }) as Promise<T>;
  }

  async signAllTransactions<T extends SolanaTransactionInput>(transactions: T[]): Promise<T[]> {
    return this.request({ method: 'signAllTransactions', params: { message: transactions } }) as Promise<T[]>;
  }

  /** Signs and broadcasts through rpcTarget (`sendTransaction`, preflight at `confirmed`); resolves with the signature. */
  async signAndSendTransaction(transaction: SolanaTransactionInput): Promise<{ signature: string }> {
    return this.request({ method: 'signAndSendTransaction', params: { message: transaction } }) as Promise<{
      signature: string;
    }>;
  }

  /** A `@solana/kit` signer (TransactionPartialSigner & MessagePartialSigner) of the logged-in user; 4900 when none. */
  getSigner(): SolanaKitSigner {
    try {
      return createKitSigner(this.account().address, () => this.account());
    } catch (error) {
      throw toProviderError(error);
    }
  }
}

/** A Solana provider on `chainConfig` (and `chains`), signing with `getEd25519PrivKey()`; connected when a key is there. */
export function createSolanaProvider(options: SolanaProviderOptions): SolanaProvider {
  const provider = new SolanaProvider(options);
  provider.connect();
  return provider;
}
