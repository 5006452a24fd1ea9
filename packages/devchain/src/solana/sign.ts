import {
  type Address,
  appendTransactionMessageInstructions,
  type Blockhash,
  createTransactionMessage,
  getTransactionEncoder,
  type Instruction,
  type KeyPairSigner,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';

export type Lifetime = { blockhash: Blockhash; lastValidBlockHeight: bigint };

const encoder = getTransactionEncoder();

/** A System Program transfer of `amount` lamports. */
export function transferInstruction(from: KeyPairSigner, to: Address, amount: bigint): Instruction {
  return getTransferSolInstruction({ source: from, destination: to, amount: lamports(amount) });
}

/** Signs a transaction of `instructions` paid by `payer`; returns its wire bytes. */
export async function signInstructions(
  payer: KeyPairSigner,
  instructions: Instruction[],
  lifetime: Lifetime,
  version: 0 | 'legacy' = 0,
): Promise<Uint8Array> {
  const message = pipe(
    createTransactionMessage({ version }),
    (m) => setTransactionMessageFeePayerSigner(payer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  return encoder.encode(await signTransactionMessageWithSigners(message)) as Uint8Array;
}

/** The same, base64-encoded as `sendTransaction` takes it. */
export async function signInstructionsBase64(
  payer: KeyPairSigner,
  instructions: Instruction[],
  lifetime: Lifetime,
): Promise<string> {
  return Buffer.from(await signInstructions(payer, instructions, lifetime)).toString('base64');
}
