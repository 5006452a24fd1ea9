import { invalidParams } from '../../rpc/errors.ts';
import { methodTable } from '../table.ts';
import type { MethodSpec, MethodSpecs, MethodTable } from '../types.ts';
import { getSignaturesForAddressParamError } from './getSignaturesForAddress.ts';
import { solanaHooks } from './hooks.ts';

/** getSignaturesForAddress: the spec's 160 credits, parameters checked before anything is charged. */
const getSignaturesForAddress: MethodSpec = {
  cost: 160,
  accepts: 'base58 address; optional config (limit 1-1000, before, until, commitment, minContextSlot)',
  check(params) {
    const problem = getSignaturesForAddressParamError(params);
    if (problem) throw invalidParams(problem);
  },
};

/** Methods that change state: sent once, to one node. */
const SOLANA_WRITES = new Set(['sendTransaction', 'requestAirdrop']);

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

/** Every Solana method the gateway serves. */
export const SOLANA_METHOD_SPECS: MethodSpecs = {
  getSignaturesForAddress,
  ...Object.fromEntries(
    [...SOLANA_PASSTHROUGH_METHODS].map((name): [string, MethodSpec] => [
      name,
      { cost: 'passthrough', write: SOLANA_WRITES.has(name) },
    ]),
  ),
};

export function solanaMethodTable(
  passthroughCost = 80,
  methodCosts?: Readonly<Record<string, number>>,
): MethodTable {
  return methodTable('solana', SOLANA_METHOD_SPECS, solanaHooks, passthroughCost, methodCosts);
}
