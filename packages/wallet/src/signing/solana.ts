import {
  decompileTransactionMessage,
  getCompiledTransactionMessageDecoder,
  type Instruction,
  type ReadonlyUint8Array,
} from '@solana/kit';
import {
  identifySystemInstruction,
  parseTransferSolInstruction,
  SYSTEM_PROGRAM_ADDRESS,
  SystemInstruction,
} from '@solana-program/system';
import { formatUnits } from 'viem';
import type { SigningDetails, SigningField } from './types.ts';

/** Lamports as SOL, e.g. `1.5 SOL`. */
export const formatSol = (lamports: bigint) => `${formatUnits(lamports, 9)} SOL`;

/** A System Program transfer as `{ from, to, lamports }`; undefined for any other instruction. */
function transferOf(instruction: Instruction) {
  if (instruction.programAddress !== SYSTEM_PROGRAM_ADDRESS || !instruction.data) return undefined;
  try {
    if (identifySystemInstruction(instruction.data) !== SystemInstruction.TransferSol) return undefined;
    const parsed = parseTransferSolInstruction(
      instruction as Parameters<typeof parseTransferSolInstruction>[0],
    );
    return {
      from: parsed.accounts.source.address,
      to: parsed.accounts.destination.address,
      lamports: parsed.data.amount,
    };
  } catch {
    return undefined;
  }
}

/**
 * A Solana transaction message: its fee payer, each System Program transfer (recipient and amount
 * in SOL) and the program of every other instruction.
 */
export function describeSolanaTransaction(
  messageBytes: ReadonlyUint8Array,
  options: { sends: boolean },
): SigningDetails {
  const title = options.sends ? 'Transaction request' : 'Signature request';
  const verb = options.sends ? 'Send' : 'Sign';
  const compiled = getCompiledTransactionMessageDecoder().decode(messageBytes);
  const fields: SigningField[] = [];
  let instructions: readonly Instruction[];
  try {
    instructions = decompileTransactionMessage(compiled).instructions;
  } catch {
    // Addresses from lookup tables cannot be named without reading the tables.
    fields.push({ label: 'Fee payer', value: compiled.staticAccounts[0] ?? 'unknown', format: 'code' });
    fields.push({
      label: 'Instructions',
      value:
        'This transaction loads accounts from address lookup tables; its instructions are not decoded here.',
      format: 'text',
    });
    return { title, summary: `${verb} a transaction`, fields };
  }
  fields.push({ label: 'Fee payer', value: compiled.staticAccounts[0], format: 'code' });
  const transfers: NonNullable<ReturnType<typeof transferOf>>[] = [];
  instructions.forEach((instruction, index) => {
    const n = instructions.length > 1 ? ` (instruction ${index + 1})` : '';
    const transfer = transferOf(instruction);
    if (transfer) {
      transfers.push(transfer);
      fields.push({ label: `Recipient${n}`, value: transfer.to, format: 'code' });
      fields.push({ label: `Amount${n}`, value: formatSol(transfer.lamports), format: 'text' });
      fields.push({ label: `From${n}`, value: transfer.from, format: 'code' });
      return;
    }
    const bytes = instruction.data?.length ?? 0;
    fields.push({
      label: `Instruction ${index + 1}`,
      value: `program ${instruction.programAddress}, ${bytes} bytes of data, ${instruction.accounts?.length ?? 0} accounts`,
      format: 'text',
    });
  });
  const transfer = transfers.length === 1 && instructions.length === 1 ? transfers[0] : undefined;
  const summary = transfer
    ? `${options.sends ? 'Send' : 'Sign a transfer of'} ${formatSol(transfer.lamports)} to ${transfer.to}`
    : `${verb} a transaction with ${instructions.length} instruction${instructions.length === 1 ? '' : 's'}`;
  return { title, summary, fields };
}
