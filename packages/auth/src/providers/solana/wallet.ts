import type { RequestArguments } from '../key-backed-provider.ts';
import type { SolanaTransactionInput } from './transaction.ts';

/**
 * Web3Auth's `SolanaWallet`: the same calls over any provider with Web3Auth's Solana `request`
 * methods (`new SolanaWallet(auth.provider)`), for code written against Web3Auth.
 */
export class SolanaWallet {
  constructor(readonly provider: { request(args: RequestArguments): Promise<unknown> }) {}

  async requestAccounts(): Promise<string[]> {
    return (await this.provider.request({ method: 'requestAccounts', params: {} })) as string[];
  }

  async getAccounts(): Promise<string[]> {
    return (await this.provider.request({ method: 'getAccounts', params: {} })) as string[];
  }

  async signMessage(data: Uint8Array): Promise<Uint8Array> {
    return (await this.provider.request({ method: 'signMessage', params: { message: data } })) as Uint8Array;
  }

  async signTransaction<T extends SolanaTransactionInput>(transaction: T): Promise<T> {
    return (await this.provider.request({
      method: 'signTransaction',
      params: { message: transaction },
    })) as T;
  }

  async signAllTransactions<T extends SolanaTransactionInput>(transactions: T[]): Promise<T[]> {
    return (await this.provider.request({
      method: 'signAllTransactions',
      params: { message: transactions },
    })) as T[];
  }

  async signAndSendTransaction(transaction: SolanaTransactionInput): Promise<{ signature: string }> {
    return (await this.provider.request({
      method: 'signAndSendTransaction',
      params: { message: transaction },
    })) as { signature: string };
  }

  /** Any other request, e.g. a Solana RPC read through the provider's rpcTarget. */
  async request<T>(args: RequestArguments): Promise<T> {
    return (await this.provider.request(args)) as T;
  }
}
