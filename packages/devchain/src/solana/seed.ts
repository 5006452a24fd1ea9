/**
 * Deterministic dev keypairs and the activity seeded into a fresh ledger: airdrops, transfers with
 * and without memos, a memo-only transaction and one failed transfer (InstructionError Custom 1),
 * spread over a few slots and then buried under 33 empty slots so all of it is finalized at once.
 */

import { createHash } from 'node:crypto';
import {
  address,
  createKeyPairSignerFromPrivateKeyBytes,
  getAddressEncoder,
  type Instruction,
  type KeyPairSigner,
  blockhash as toBlockhash,
} from '@solana/kit';
import { FINALIZATION_DEPTH, type Ledger } from './ledger.ts';
import { signInstructions, transferInstruction } from './sign.ts';
import { MEMO_PROGRAM_V3 } from './transaction.ts';

export type DevAccount = { name: string; address: string; secretKey: Uint8Array };

export const DEV_ACCOUNT_NAMES = ['alice', 'bob', 'carol', 'dave'] as const;
const SOL = 1_000_000_000n;

/**
 * A dev keypair: the private key is sha256("portico/solana-dev/<name>"); `secretKey` is the 64-byte
 * form (private key then public key) that `solana-keygen` files and kit's
 * `createKeyPairSignerFromBytes` use.
 */
export async function devKeypair(name: string): Promise<{ account: DevAccount; signer: KeyPairSigner }> {
  const privateKey = new Uint8Array(createHash('sha256').update(`portico/solana-dev/${name}`).digest());
  const signer = await createKeyPairSignerFromPrivateKeyBytes(privateKey);
  const secretKey = new Uint8Array(64);
  secretKey.set(privateKey, 0);
  secretKey.set(getAddressEncoder().encode(signer.address), 32);
  return { account: { name, address: signer.address, secretKey }, signer };
}

/** An SPL Memo (v3) instruction carrying `text`. */
export function memoInstruction(text: string): Instruction {
  return { programAddress: address(MEMO_PROGRAM_V3), data: new TextEncoder().encode(text) };
}

function signed(ledger: Ledger, payer: KeyPairSigner, instructions: Instruction[]): Promise<Uint8Array> {
  const { blockhash, lastValidBlockHeight } = ledger.latestBlockhash('processed');
  return signInstructions(payer, instructions, {
    blockhash: toBlockhash(blockhash),
    lastValidBlockHeight: BigInt(lastValidBlockHeight),
  });
}

const transfer = transferInstruction;

/** Seeds activity between the dev accounts; returns the signatures in order. */
export async function seedLedger(ledger: Ledger, signers: Record<string, KeyPairSigner>): Promise<string[]> {
  const { alice, bob, carol, dave } = signers;
  const signatures: string[] = [];
  for (const [signer, sol] of [
    [alice, 100n],
    [bob, 100n],
    [carol, 100n],
    [dave, 10n],
  ] as const) {
    signatures.push(await ledger.airdrop(signer.address, sol * SOL));
  }
  ledger.advanceSlot();
  signatures.push(ledger.submit(await signed(ledger, alice, [transfer(alice, bob.address, SOL)])));
  signatures.push(
    ledger.submit(
      await signed(ledger, bob, [
        transfer(bob, carol.address, SOL / 2n),
        memoInstruction('portico dev seed: bob pays carol'),
      ]),
    ),
  );
  ledger.advanceSlot();
  signatures.push(
    ledger.submit(
      await signed(ledger, carol, [transfer(carol, alice.address, SOL / 4n), memoInstruction('thanks!')]),
    ),
  );
  signatures.push(ledger.submit(await signed(ledger, alice, [memoInstruction('hello solana-local')])));
  // dave holds 10 SOL and tries to send 1000: lands with err {"InstructionError":[0,{"Custom":1}]}.
  signatures.push(
    ledger.submit(await signed(ledger, dave, [transfer(dave, alice.address, 1000n * SOL)]), {
      skipPreflight: true,
    }),
  );
  for (let i = 0; i <= FINALIZATION_DEPTH; i++) ledger.advanceSlot();
  return signatures;
}
