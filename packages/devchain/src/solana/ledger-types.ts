// The ledger's vocabulary: commitment levels and the cluster constants it models, and the shapes
// of what it answers (signatures, simulations, accounts, events).
import type { TransactionErrorJson } from './errors.ts';

export type Commitment = 'processed' | 'confirmed' | 'finalized';

/** Slots a blockhash stays usable, as on a cluster. */
export const MAX_PROCESSING_AGE = 150;
/** How far `confirmed` trails the newest (processed) slot. */
export const CONFIRMATION_DEPTH = 1;
/** How far `finalized` trails the newest slot (32 confirmations, the maximum lockout). */
export const FINALIZATION_DEPTH = 32;
/** LiteSVM's default fee: 5000 lamports per signature (priority fees are not modelled). */
export const LAMPORTS_PER_SIGNATURE = 5000n;
/** The faucet behind requestAirdrop starts with 500 million SOL. */
export const FAUCET_LAMPORTS = 500_000_000n * 1_000_000_000n;
/** rentEpoch of every account since rent collection ended (u64::MAX). */
export const RENT_EXEMPT_EPOCH = 18446744073709551615n;

export type SignatureEntry = {
  signature: string;
  slot: number;
  err: TransactionErrorJson | null;
  memo: string | null;
  blockTime: number | null;
  confirmationStatus: Commitment;
};

export type Simulation = {
  err: TransactionErrorJson | null;
  logs: string[];
  unitsConsumed: bigint;
  returnData: { programId: string; data: Uint8Array } | null;
  /** Accounts after the simulated execution (computed on demand). */
  postAccounts: () => Map<string, LedgerAccount>;
};

/** A simulation's return data as the Solana RPC answers it (`[base64, 'base64']`), or null. */
export function encodeReturnData(returnData: Simulation['returnData']) {
  return returnData
    ? { programId: returnData.programId, data: [Buffer.from(returnData.data).toString('base64'), 'base64'] }
    : null;
}

export type LedgerAccount = {
  lamports: bigint;
  data: Uint8Array;
  owner: string;
  executable: boolean;
  space: bigint;
};

/** What subscribers hear: a new slot was produced, or a transaction was executed. */
export type LedgerEvent = 'slot' | 'transaction';

export type LedgerOpenOptions = {
  /** Directory for `ledger.sqlite` and `accounts.snapshot`; without it nothing is kept. */
  dataDir?: string;
  onLog?: (line: string) => void;
};
