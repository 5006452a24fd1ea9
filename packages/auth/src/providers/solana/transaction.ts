import { rpcErrors } from '@metamask/rpc-errors';
import { getTransactionDecoder, getTransactionEncoder, type Transaction } from '@solana/kit';
import type { SolanaKeypair } from './keypair.ts';

/**
 * What the provider signs: a `@solana/kit` `Transaction` (`{ messageBytes, signatures }`), or its
 * wire bytes (what `@solana/web3.js`'s `serialize({ requireAllSignatures: false })` gives). The
 * signed result comes back in the same form.
 */
export type SolanaTransactionInput = Transaction | Uint8Array;

function isKitTransaction(value: unknown): value is Transaction {
  const tx = value as Partial<Transaction> | null;
  return (
    typeof tx === 'object' &&
    tx !== null &&
    tx.messageBytes instanceof Uint8Array &&
    typeof tx.signatures === 'object' &&
    tx.signatures !== null
  );
}

/** The kit transaction of an input; -32602 for anything else. */
export function readTransaction(method: string, input: unknown): Transaction {
  if (isKitTransaction(input)) return input;
  if (input instanceof Uint8Array) {
    try {
      return getTransactionDecoder().decode(input);
    } catch {
      throw rpcErrors.invalidParams(`${method}: the bytes are not a Solana wire transaction`);
    }
  }
  throw rpcErrors.invalidParams(`${method} expects a @solana/kit Transaction or its wire bytes (Uint8Array)`);
}

/**
 * Adds the keypair's signature over the message, where the transaction asks for it; -32602 when the
 * user is not among its signers (nothing would be signed otherwise).
 */
export function signTransactionWith(method: string, keypair: SolanaKeypair, tx: Transaction): Transaction {
  if (!Object.hasOwn(tx.signatures, keypair.address)) {
    throw rpcErrors.invalidParams(`${method}: ${keypair.address} is not a signer of this transaction`);
  }
  const signature = keypair.sign(tx.messageBytes as unknown as Uint8Array);
  return Object.freeze({
    ...tx,
    signatures: Object.freeze({ ...tx.signatures, [keypair.address]: signature }),
  });
}

/** Signs an input and returns it in its own form (kit transaction or wire bytes). */
export function signInput<T extends SolanaTransactionInput>(
  method: string,
  keypair: SolanaKeypair,
  input: T,
): T {
  const signed = signTransactionWith(method, keypair, readTransaction(method, input));
  return (input instanceof Uint8Array ? new Uint8Array(getTransactionEncoder().encode(signed)) : signed) as T;
}
