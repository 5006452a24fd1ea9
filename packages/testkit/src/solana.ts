import {
  type Address,
  address,
  appendTransactionMessageInstructions,
  compileTransaction,
  createNoopSigner,
  createSolanaRpc,
  createTransactionMessage,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Transaction,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';

/**
 * A System transfer of `lamports` from `from` (the fee payer) to `to` with a fresh blockhash from
 * `rpcUrl`, compiled and not signed: what a wallet or provider is asked to sign and send.
 */
export async function unsignedTransfer(
  rpcUrl: string,
  transfer: { from: string; to: string; lamports: bigint },
): Promise<Transaction> {
  const { value: lifetime } = await createSolanaRpc(rpcUrl).getLatestBlockhash().send();
  const payer = address(transfer.from);
  return compileTransaction(
    pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayer(payer, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
      (m) =>
        appendTransactionMessageInstructions(
          [
            getTransferSolInstruction({
              source: createNoopSigner(payer),
              destination: address(transfer.to),
              amount: transfer.lamports,
            }),
          ],
          m,
        ),
    ),
  );
}

/**
 * Polls `getSignaturesForAddress` (at `confirmed`) until `who`'s history holds the signature;
 * false after `limitMs` (a bound for a failing test, not a timing assertion).
 */
export async function waitForSignature(
  rpc: { getSignaturesForAddress: ReturnType<typeof createSolanaRpc>['getSignaturesForAddress'] },
  signature: string,
  who: Address | string,
  limitMs = 10_000,
): Promise<boolean> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const list = await rpc.getSignaturesForAddress(address(who), { commitment: 'confirmed' }).send();
    if (list.some((entry) => entry.signature === signature)) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
