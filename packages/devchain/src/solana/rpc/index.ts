/** The method table of the ledger's JSON-RPC endpoint. */
import {
  getAccountInfo,
  getBalance,
  getMinimumBalanceForRentExemption,
  getMultipleAccounts,
  requestAirdrop,
} from './accounts.ts';
import {
  getBlockHeight,
  getEpochInfo,
  getFeeForMessage,
  getGenesisHash,
  getHealth,
  getLatestBlockhash,
  getSlot,
  getTransactionCount,
  getVersion,
  isBlockhashValid,
} from './cluster.ts';
import { getSignaturesForAddress } from './history.ts';
import {
  getSignatureStatuses,
  getTransaction,
  sendTransaction,
  simulateTransaction,
} from './transactions.ts';
import type { Handler } from './types.ts';

export type { Handler } from './types.ts';

export const METHODS: Readonly<Record<string, Handler>> = {
  getAccountInfo,
  getBalance,
  getBlockHeight,
  getEpochInfo,
  getGenesisHash,
  getHealth,
  getLatestBlockhash,
  getFeeForMessage,
  getMinimumBalanceForRentExemption,
  getMultipleAccounts,
  getSignaturesForAddress,
  getSignatureStatuses,
  getSlot,
  getTransaction,
  getTransactionCount,
  getVersion,
  isBlockhashValid,
  requestAirdrop,
  sendTransaction,
  simulateTransaction,
};
