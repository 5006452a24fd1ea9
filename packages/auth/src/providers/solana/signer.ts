import { providerErrors } from '@metamask/rpc-errors';
import type {
  Address,
  MessagePartialSigner,
  SignatureDictionary,
  TransactionPartialSigner,
} from '@solana/kit';
import type { SolanaKeypair } from './keypair.ts';

/** A `@solana/kit` signer of the user's account, for apps that build transactions with kit. */
export type SolanaKitSigner = TransactionPartialSigner & MessagePartialSigner;

/**
 * A kit signer for `address` that asks `keypair()` at every signature: after logout it fails with
 * 4900, and after another user logs in with 4100, instead of signing with a key it captured.
 */
export function createKitSigner(address: Address, keypair: () => SolanaKeypair): SolanaKitSigner {
  const current = (): SolanaKeypair => {
    const pair = keypair();
    if (pair.address !== address) {
      throw providerErrors.unauthorized(
        `This signer is for ${address}; the logged-in account is ${pair.address}`,
      );
    }
    return pair;
  };
  const sign = (bytes: Uint8Array): SignatureDictionary => {
    const pair = current();
    return Object.freeze({ [address]: pair.sign(bytes) });
  };
  return Object.freeze({
    address,
    signTransactions: async (transactions) =>
      transactions.map((tx) => sign(tx.messageBytes as unknown as Uint8Array)),
    signMessages: async (messages) => messages.map((message) => sign(message.content)),
  });
}
