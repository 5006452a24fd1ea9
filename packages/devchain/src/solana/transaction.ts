/**
 * Reading a wire transaction: signatures, message, account keys, lifetime blockhash and memos.
 * Decoding uses @solana/kit's codecs; only legacy and v0 messages are accepted (as on mainnet).
 */
import {
  type Address,
  getBase58Decoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  type ReadonlyUint8Array,
  type Transaction,
} from '@solana/kit';
import { invalidParams } from './errors.ts';

/** SPL Memo program ids the Solana RPC reads memos from (v1 and v3), both loaded in LiteSVM. */
export const MEMO_PROGRAM_V1 = 'Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo';
export const MEMO_PROGRAM_V3 = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr';

export type DecodedInstruction = { programIdIndex: number; accounts: number[]; data: Uint8Array };

export type DecodedTransaction = {
  transaction: Transaction;
  /** The first signature, base-58: the transaction's id. */
  signature: string;
  signatures: string[];
  version: 'legacy' | 0;
  header: {
    numRequiredSignatures: number;
    numReadonlySignedAccounts: number;
    numReadonlyUnsignedAccounts: number;
  };
  accountKeys: Address[];
  recentBlockhash: string;
  instructions: DecodedInstruction[];
  addressTableLookups: { accountKey: string; writableIndexes: number[]; readonlyIndexes: number[] }[];
  memo: string | null;
};

const transactionDecoder = getTransactionDecoder();
const messageDecoder = getCompiledTransactionMessageDecoder();
const base58 = getBase58Decoder();
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Decodes a wire transaction or throws -32602 with the reason. */
export function decodeTransaction(wire: Uint8Array): DecodedTransaction {
  let transaction: Transaction;
  let message: ReturnType<typeof messageDecoder.decode>;
  try {
    transaction = transactionDecoder.decode(wire);
    message = messageDecoder.decode(transaction.messageBytes);
  } catch (error) {
    throw invalidParams(
      `failed to deserialize solana_transaction::versioned::VersionedTransaction: ${(error as Error).message}`,
    );
  }
  if (message.version !== 'legacy' && message.version !== 0) {
    throw invalidParams(`invalid transaction: unsupported transaction version ${String(message.version)}`);
  }
  // The signature slots, in fee-payer-first order, zero-filled where unsigned.
  const signatures = message.staticAccounts.slice(0, message.header.numSignerAccounts).map((signer) => {
    const bytes = transaction.signatures[signer];
    return base58.decode(bytes ?? new Uint8Array(64));
  });
  if (signatures.length === 0) throw invalidParams('invalid transaction: transaction has no signatures');
  const instructions = message.instructions.map((ix) => ({
    programIdIndex: ix.programAddressIndex,
    accounts: [...(ix.accountIndices ?? [])],
    data: new Uint8Array(ix.data ?? new Uint8Array(0)),
  }));
  for (const ix of instructions) {
    if (ix.programIdIndex >= message.staticAccounts.length) {
      throw invalidParams('invalid transaction: Transaction failed to sanitize accounts offsets correctly');
    }
  }
  const lookups = message.version === 0 ? (message.addressTableLookups ?? []) : [];
  return {
    transaction,
    signature: signatures[0],
    signatures,
    version: message.version,
    header: {
      numRequiredSignatures: message.header.numSignerAccounts,
      numReadonlySignedAccounts: message.header.numReadonlySignerAccounts,
      numReadonlyUnsignedAccounts: message.header.numReadonlyNonSignerAccounts,
    },
    accountKeys: [...message.staticAccounts],
    recentBlockhash: message.lifetimeToken,
    instructions,
    addressTableLookups: lookups.map((l) => ({
      accountKey: l.lookupTableAddress,
      writableIndexes: [...l.writableIndexes],
      readonlyIndexes: [...l.readonlyIndexes],
    })),
    memo: extractMemo(message.staticAccounts, instructions),
  };
}

/**
 * The memo field as the Solana RPC builds it: each top-level SPL Memo instruction becomes
 * `[<byte length>] <utf-8 text>` (`(unparseable)` when not utf-8), joined with `; `; null if none.
 */
export function extractMemo(
  accountKeys: readonly string[],
  instructions: DecodedInstruction[],
): string | null {
  const memos: string[] = [];
  for (const ix of instructions) {
    const program = accountKeys[ix.programIdIndex];
    if (program !== MEMO_PROGRAM_V1 && program !== MEMO_PROGRAM_V3) continue;
    let text: string;
    try {
      text = utf8.decode(ix.data);
    } catch {
      text = '(unparseable)';
    }
    memos.push(`[${ix.data.length}] ${text}`);
  }
  return memos.length === 0 ? null : memos.join('; ');
}

/**
 * The static account keys of a (validated) message as raw 32-byte slices, read straight from the
 * message bytes: optional version prefix, 3 header bytes, compact-u16 count, then the keys.
 */
export function accountKeyBytes(messageBytes: ReadonlyUint8Array): Uint8Array[] {
  let offset = messageBytes[0] & 0x80 ? 1 : 0;
  offset += 3;
  let count = 0;
  for (let shift = 0; shift < 21; shift += 7) {
    const byte = messageBytes[offset++];
    count |= (byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) break;
  }
  const keys: Uint8Array[] = [];
  for (let i = 0; i < count; i++)
    keys.push(new Uint8Array(messageBytes.subarray(offset + 32 * i, offset + 32 * (i + 1))));
  return keys;
}

/** The fee-relevant parts of a bare message (getFeeForMessage): signer count and blockhash. */
export function decodeMessage(messageBytes: Uint8Array): {
  numRequiredSignatures: number;
  recentBlockhash: string;
} {
  try {
    const message = messageDecoder.decode(messageBytes);
    return {
      numRequiredSignatures: message.header.numSignerAccounts,
      recentBlockhash: message.lifetimeToken,
    };
  } catch (error) {
    throw invalidParams(`invalid message: ${(error as Error).message}`);
  }
}
