import { JsonResult } from '../../rpc/json-result.ts';
import type { CacheDecision, MethodSpec, MethodSpecs } from '../types.ts';
import { byBlockParameter, byLogsRange, NOT_CACHEABLE } from './cache-policy.ts';
import { checkLogsFilter, priceOfLogs } from './get-logs.ts';
import { LogsRanges, serveLogsInParts } from './logs-in-parts.ts';
import { expectBlockOverride, expectStateOverride } from './overrides.ts';
import {
  expectArity,
  expectBlockOrEip1898,
  expectBlockParameter,
  expectBoolean,
  expectCallObject,
  expectGasWithinCap,
  expectHash,
  expectQuantity,
  expectReceiptsBlock,
  toHexBlockNumber,
} from './params.ts';
import { markPendingBlock, markPendingTransaction } from './pending.ts';
import { sendRawTransactionSpec } from './send-raw-transaction.ts';
import { pinLogsFilter } from './tags.ts';

async function checkGasCap(value: unknown, blockGasLimit: () => Promise<bigint>, name: string) {
  const call = value as Record<string, unknown>;
  if (call.gas !== undefined) expectGasWithinCap(call, await blockGasLimit(), name);
}

const byTransactionHash = (cost: number): MethodSpec => ({
  cost,
  accepts: '32-byte hash',
  check(params) {
    expectArity(params, 1, 1, ['transaction hash']);
    expectHash(params[0], 'transaction hash');
  },
  cache: 'byHash',
  answersMinedBlock: true,
});

/** The contract a call object names in `to` (for a key's allowedContracts). */
const contractOfCall = (params: unknown[]): string[] => {
  const call = params[0] as Record<string, unknown> | undefined;
  return typeof call === 'object' && call !== null && typeof call.to === 'string' ? [call.to] : [];
};

/** The account a method names first (eth_getCode, eth_getStorageAt). */
const firstAddress = (params: unknown[]): string[] => (typeof params[0] === 'string' ? [params[0]] : []);

/** The addresses an eth_getLogs filter names. */
const addressesOfFilter = (params: unknown[]): string[] => {
  const filter = params[0] as Record<string, unknown> | undefined;
  const address = typeof filter === 'object' && filter !== null ? filter.address : undefined;
  return Array.isArray(address) ? address.map(String) : typeof address === 'string' ? [address] : [];
};

/** A call at a block: cached by its block, but not with overrides (they change the answer). */
const callCache = (params: unknown[]): CacheDecision =>
  params.length === 2 ? byBlockParameter(params[1]) : NOT_CACHEABLE;

/** The nine EVM methods of the gateway spec (`000_…txt`), with its credit table and parameter rules. */
const SPEC_METHODS: MethodSpecs = {
  eth_getBlockByHash: {
    cost: 80,
    accepts: '32-byte hash, boolean transaction-details flag',
    check(params) {
      expectArity(params, 2, 2, ['block hash', 'transaction-details flag']);
      expectHash(params[0], 'block hash');
      expectBoolean(params[1], 'transaction-details flag');
    },
    cache: 'byHash',
  },
  eth_getBlockByNumber: {
    cost: 80,
    accepts: 'block parameter, boolean flag',
    check(params) {
      expectArity(params, 2, 2, ['block parameter', 'transaction-details flag']);
      expectBlockParameter(params[0]);
      expectBoolean(params[1], 'transaction-details flag');
    },
    finish: (result, params) =>
      params[0] === 'pending' ? JsonResult.ofValue(markPendingBlock(result.value)) : result,
    blockParam: 0,
    nullBeyondHead: true,
    cache: 'byBlock',
  },
  eth_getUncleByBlockNumberAndIndex: {
    cost: 150,
    accepts: 'block parameter, hex index (at most 2^64-1)',
    check(params) {
      expectArity(params, 2, 2, ['block parameter', 'uncle index']);
      expectBlockParameter(params[0]);
      expectQuantity(params[1], 'uncle index', 64);
    },
    blockParam: 0,
    nullBeyondHead: true,
    cache: 'byBlock',
  },
  eth_getTransactionByBlockNumberAndIndex: {
    cost: 150,
    accepts: 'block parameter, hex index (at most 2^64-1)',
    check(params) {
      expectArity(params, 2, 2, ['block parameter', 'transaction index']);
      expectBlockParameter(params[0]);
      expectQuantity(params[1], 'transaction index', 64);
    },
    finish: (result, params) =>
      params[0] === 'pending' ? JsonResult.ofValue(markPendingTransaction(result.value)) : result,
    blockParam: 0,
    nullBeyondHead: true,
    cache: 'byBlock',
  },
  eth_getTransactionByHash: byTransactionHash(80),
  eth_getTransactionReceipt: byTransactionHash(80),
  eth_getBlockReceipts: {
    cost: 1000,
    accepts: 'hex, decimal or JSON-number block number (at most 2^64-1), 32-byte block hash, or a tag',
    check(params) {
      expectArity(params, 1, 1, ['blockNumber']);
      expectReceiptsBlock(params[0]);
    },
    // The spec: `pending` returns the same data as `latest`; decimal numbers are sent as hex.
    prepare: (params) => [params[0] === 'pending' ? 'latest' : toHexBlockNumber(params[0])],
    blockParam: 0,
    nullBeyondHead: true,
    cache: 'byBlock',
  },
  eth_call: {
    cost: 80,
    accepts:
      'call object, block parameter (required), optional state and block overrides (checked member by member)',
    async check(params, chain) {
      expectArity(params, 2, 4, [
        'transaction call object',
        'block parameter',
        'state override',
        'block override',
      ]);
      expectCallObject(params[0]);
      expectBlockOrEip1898(params[1]);
      expectStateOverride(params[2]);
      expectBlockOverride(params[3]);
      await checkGasCap(params[0], chain.blockGasLimit, 'transaction call object');
    },
    blockParam: 1,
    cache: callCache,
    contracts: contractOfCall,
  },
  eth_estimateGas: {
    cost: 300,
    accepts: 'call object, optional block parameter, optional state override',
    async check(params, chain) {
      expectArity(params, 1, 3, ['transaction call object', 'block parameter', 'state override']);
      expectCallObject(params[0]);
      if (params.length > 1) expectBlockOrEip1898(params[1]);
      expectStateOverride(params[2]);
      await checkGasCap(params[0], chain.blockGasLimit, 'transaction call object');
    },
    blockParam: 1,
    cache: callCache,
    contracts: contractOfCall,
  },
};

const passthrough = (extra: Omit<MethodSpec, 'cost'> = {}): MethodSpec => ({ cost: 'passthrough', ...extra });

/**
 * Common methods a wallet or dapp needs beside the nine, forwarded as they are at the network's
 * `passthroughCost`; their block parameters are still pinned and their answers cached by the
 * same rules.
 */
const COMMON_METHODS: MethodSpecs = {
  eth_chainId: passthrough({ cache: 'always' }),
  eth_blockNumber: passthrough({ answersHead: true }),
  eth_getBalance: passthrough({ blockParam: 1 }),
  eth_getCode: passthrough({ blockParam: 1, contracts: firstAddress }),
  eth_getStorageAt: passthrough({ blockParam: 2, contracts: firstAddress }),
  eth_getTransactionCount: passthrough({ blockParam: 1 }),
  eth_sendRawTransaction: sendRawTransactionSpec,
  eth_gasPrice: passthrough(),
  eth_maxPriorityFeePerGas: passthrough(),
  eth_feeHistory: passthrough({ blockParam: 1 }),
  eth_blobBaseFee: passthrough(),
  eth_syncing: passthrough(),
  eth_getBlockTransactionCountByHash: passthrough(),
  eth_getBlockTransactionCountByNumber: passthrough({ blockParam: 0 }),
  eth_getUncleCountByBlockHash: passthrough(),
  eth_getUncleCountByBlockNumber: passthrough({ blockParam: 0 }),
  eth_getTransactionByBlockHashAndIndex: passthrough(),
  eth_getUncleByBlockHashAndIndex: passthrough(),
  eth_getProof: passthrough({ blockParam: 2 }),
  eth_createAccessList: passthrough({ blockParam: 1, contracts: contractOfCall }),
  eth_simulateV1: passthrough(),
  // Filters live on the node that made them: creating one is a change of state there.
  eth_newFilter: passthrough({ write: true }),
  eth_newBlockFilter: passthrough({ write: true }),
  eth_newPendingTransactionFilter: passthrough({ write: true }),
  eth_getFilterChanges: passthrough({ write: true }),
  eth_getFilterLogs: passthrough(),
  eth_uninstallFilter: passthrough({ write: true }),
  net_version: passthrough({ cache: 'always' }),
  net_listening: passthrough(),
  web3_clientVersion: passthrough(),
  web3_sha3: passthrough(),
};

/**
 * eth_getLogs: a range up to `maxLogsBlockRangeTotal` blocks, sent as it is when one upstream
 * takes it (at most `maxLogsBlockRange` blocks, or what the upstream has shown it takes) and in
 * parts otherwise; priced at `passthroughCost` per started 1,000 blocks.
 */
export const getLogsSpec = (maxBlockRange: number, maxTotalRange: number): MethodSpec => {
  const ranges = new LogsRanges(maxBlockRange);
  return {
    cost: 'passthrough',
    accepts: 'filter object; a range of at most `maxLogsBlockRangeTotal` blocks',
    check: (params, chain) => checkLogsFilter(params, chain, maxTotalRange),
    price: priceOfLogs,
    serve: (params, fleet) => serveLogsInParts(params, fleet, ranges),
    cache: (params) => byLogsRange(params[0]),
    pinTags: pinLogsFilter,
    contracts: addressesOfFilter,
  };
};

/** A network's eth_getLogs limits (its config's `maxLogsBlockRange` and `maxLogsBlockRangeTotal`). */
export type LogsLimits = { maxBlockRange: number; maxTotalRange: number };

export const DEFAULT_LOGS_LIMITS: LogsLimits = { maxBlockRange: 10_000, maxTotalRange: 1_000_000 };

/** Every EVM method a network serves, its eth_getLogs under the network's limits. */
export const evmMethodSpecs = (logs: LogsLimits): MethodSpecs => ({
  ...SPEC_METHODS,
  ...COMMON_METHODS,
  eth_getLogs: getLogsSpec(logs.maxBlockRange, logs.maxTotalRange),
});

/** Every EVM method the gateway serves, with the default eth_getLogs limits. */
export const EVM_METHOD_SPECS: MethodSpecs = evmMethodSpecs(DEFAULT_LOGS_LIMITS);

/** The spec's nine methods (the ones with a price and a parameter rule of their own). */
export const EVM_SPEC_METHOD_NAMES: readonly string[] = Object.keys(SPEC_METHODS);

/** The position of each method's block parameter, for the stages that read it by method name. */
export const BLOCK_PARAMETER_INDEX: ReadonlyMap<string, number> = new Map(
  Object.entries(EVM_METHOD_SPECS).flatMap(([name, spec]) =>
    spec.blockParam === undefined ? [] : [[name, spec.blockParam] as const],
  ),
);
