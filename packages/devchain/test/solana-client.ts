import { signInstructionsBase64, transferInstruction } from '../src/solana/sign.ts';
/** Helpers for the Solana ledger tests: @solana/kit as the client, raw JSON-RPC for exact error shapes. */

import {
  type Address,
  type Blockhash,
  createSolanaRpc,
  devnet,
  type Instruction,
  type KeyPairSigner,
  lamports,
  type Signature,
} from '@solana/kit';
import { memoInstruction } from '../src/solana/seed.ts';

/** A kit RPC client for the ledger (typed as a test cluster: it serves requestAirdrop). */
export function connect(url: string) {
  return createSolanaRpc(devnet(url));
}
export type Rpc = ReturnType<typeof connect>;
export type Lifetime = { blockhash: Blockhash; lastValidBlockHeight: bigint };

/** Polls `probe` until it returns a value (not undefined); fails after `limitMs` (a bound, not an assertion on time). */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  limitMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export async function latest(rpc: Rpc): Promise<Lifetime> {
  return (await rpc.getLatestBlockhash({ commitment: 'processed' }).send()).value;
}

export async function signedTransfer(
  payer: KeyPairSigner,
  to: Address,
  amount: bigint,
  lifetime: Lifetime,
  memo?: string,
): Promise<string> {
  const instructions: Instruction[] = [transferInstruction(payer, to, amount)];
  if (memo !== undefined) instructions.push(memoInstruction(memo));
  return signedTransaction(payer, instructions, lifetime);
}

export const signedTransaction = signInstructionsBase64;

export async function send(rpc: Rpc, wire: string, skipPreflight = false): Promise<Signature> {
  return rpc
    .sendTransaction(wire as Parameters<Rpc['sendTransaction']>[0], { encoding: 'base64', skipPreflight })
    .send();
}

const RANK = { processed: 0, confirmed: 1, finalized: 2 } as const;

/** Waits until the signature's status reaches `level`; returns the status. */
export async function settled(rpc: Rpc, signature: Signature, level: keyof typeof RANK = 'confirmed') {
  return until(`${signature} to be ${level}`, async () => {
    const [status] = (await rpc.getSignatureStatuses([signature]).send()).value;
    if (status?.confirmationStatus && RANK[status.confirmationStatus] >= RANK[level]) return status;
    return undefined;
  });
}

export async function airdrop(rpc: Rpc, to: Address, amount: bigint, level: keyof typeof RANK = 'confirmed') {
  const signature = await rpc.requestAirdrop(to, lamports(amount)).send();
  await settled(rpc, signature, level);
  return signature;
}

/** A raw JSON-RPC call, for checking answers (and errors) field by field. */
export async function raw(
  url: string,
  method: string,
  params?: unknown,
): Promise<{ result?: unknown; error?: { code: number; message: string; data?: unknown } }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await response.json()) as {
    result?: unknown;
    error?: { code: number; message: string; data?: unknown };
  };
}
