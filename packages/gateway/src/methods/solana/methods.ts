import { invalidParams } from '../../rpc/errors.ts';
import type { MethodRule, MethodTable } from '../types.ts';
import { getSignaturesForAddressParamError } from './getSignaturesForAddress.ts';
import { solanaHooks } from './hooks.ts';

/** getSignaturesForAddress: the seed's 160 credits, parameters checked before anything is charged. */
const getSignaturesForAddress: MethodRule = {
  cost: 160,
  check(params) {
    const problem = getSignaturesForAddressParamError(params);
    if (problem) throw invalidParams(problem);
  },
};

export const SOLANA_METHOD_RULES: Readonly<Record<string, MethodRule>> = {
  getSignaturesForAddress,
};

/**
 * The rest of the Solana HTTP JSON-RPC API (agave), forwarded as they are at the network's
 * pass-through cost, so a Solana client can use the gateway as its only RPC. Other names are
 * answered -32601 by the gateway without reaching the node.
 */
export const SOLANA_PASSTHROUGH_METHODS: ReadonlySet<string> = new Set([
  'getAccountInfo',
  'getBalance',
  'getBlock',
  'getBlockCommitment',
  'getBlockHeight',
  'getBlockProduction',
  'getBlocks',
  'getBlocksWithLimit',
  'getBlockTime',
  'getClusterNodes',
  'getEpochInfo',
  'getEpochSchedule',
  'getFeeForMessage',
  'getFirstAvailableBlock',
  'getGenesisHash',
  'getHealth',
  'getHighestSnapshotSlot',
  'getIdentity',
  'getInflationGovernor',
  'getInflationRate',
  'getInflationReward',
  'getLargestAccounts',
  'getLatestBlockhash',
  'getLeaderSchedule',
  'getMaxRetransmitSlot',
  'getMaxShredInsertSlot',
  'getMinimumBalanceForRentExemption',
  'getMultipleAccounts',
  'getProgramAccounts',
  'getRecentPerformanceSamples',
  'getRecentPrioritizationFees',
  'getSignatureStatuses',
  'getSlot',
  'getSlotLeader',
  'getSlotLeaders',
  'getStakeMinimumDelegation',
  'getSupply',
  'getTokenAccountBalance',
  'getTokenAccountsByDelegate',
  'getTokenAccountsByOwner',
  'getTokenLargestAccounts',
  'getTokenSupply',
  'getTransaction',
  'getTransactionCount',
  'getVersion',
  'getVoteAccounts',
  'isBlockhashValid',
  'minimumLedgerSlot',
  'requestAirdrop',
  'sendTransaction',
  'simulateTransaction',
]);

export function solanaMethodTable(passthroughCost = 80): MethodTable {
  return {
    kind: 'solana',
    rules: new Map(Object.entries(SOLANA_METHOD_RULES)),
    passthrough: { methods: SOLANA_PASSTHROUGH_METHODS, cost: passthroughCost },
    hooks: solanaHooks,
  };
}
