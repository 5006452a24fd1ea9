import { JsonResult } from '../../rpc/json-result.ts';
import type { MethodRule, MethodTable } from '../types.ts';
import { getLogsRule } from './get-logs.ts';
import { evmHooks } from './hooks.ts';
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

const getBlockByHash: MethodRule = {
  cost: 80,
  check(params) {
    expectArity(params, 2, 2, ['block hash', 'transaction-details flag']);
    expectHash(params[0], 'block hash');
    expectBoolean(params[1], 'transaction-details flag');
  },
};

const getBlockByNumber: MethodRule = {
  cost: 80,
  check(params) {
    expectArity(params, 2, 2, ['block parameter', 'transaction-details flag']);
    expectBlockParameter(params[0]);
    expectBoolean(params[1], 'transaction-details flag');
  },
  finish: (result, params) =>
    params[0] === 'pending' ? JsonResult.ofValue(markPendingBlock(result.value)) : result,
};

const getUncleByBlockNumberAndIndex: MethodRule = {
  cost: 150,
  check(params) {
    expectArity(params, 2, 2, ['block parameter', 'uncle index']);
    expectBlockParameter(params[0]);
    expectQuantity(params[1], 'uncle index', 64);
  },
};

const getTransactionByBlockNumberAndIndex: MethodRule = {
  cost: 150,
  check(params) {
    expectArity(params, 2, 2, ['block parameter', 'transaction index']);
    expectBlockParameter(params[0]);
    expectQuantity(params[1], 'transaction index', 64);
  },
  finish: (result, params) =>
    params[0] === 'pending' ? JsonResult.ofValue(markPendingTransaction(result.value)) : result,
};

const transactionHashRule = (cost: number): MethodRule => ({
  cost,
  check(params) {
    expectArity(params, 1, 1, ['transaction hash']);
    expectHash(params[0], 'transaction hash');
  },
});

const getBlockReceipts: MethodRule = {
  cost: 1000,
  check(params) {
    expectArity(params, 1, 1, ['blockNumber']);
    expectReceiptsBlock(params[0]);
  },
  // The seed: `pending` returns the same data as `latest`; decimal numbers are sent as hex.
  prepare: (params) => [params[0] === 'pending' ? 'latest' : toHexBlockNumber(params[0])],
};

const call: MethodRule = {
  cost: 80,
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
};

const estimateGas: MethodRule = {
  cost: 300,
  async check(params, chain) {
    expectArity(params, 1, 3, ['transaction call object', 'block parameter', 'state override']);
    expectCallObject(params[0]);
    if (params.length > 1) expectBlockOrEip1898(params[1]);
    expectStateOverride(params[2]);
    await checkGasCap(params[0], chain.blockGasLimit, 'transaction call object');
  },
};

async function checkGasCap(value: unknown, blockGasLimit: () => Promise<bigint>, name: string) {
  const call = value as Record<string, unknown>;
  if (call.gas !== undefined) expectGasWithinCap(call, await blockGasLimit(), name);
}

/** The nine EVM methods of the seed, with its credit table. */
export const EVM_METHOD_RULES: Readonly<Record<string, MethodRule>> = {
  eth_getBlockByHash: getBlockByHash,
  eth_getBlockByNumber: getBlockByNumber,
  eth_getUncleByBlockNumberAndIndex: getUncleByBlockNumberAndIndex,
  eth_getTransactionByBlockNumberAndIndex: getTransactionByBlockNumberAndIndex,
  eth_getTransactionByHash: transactionHashRule(80),
  eth_getTransactionReceipt: transactionHashRule(80),
  eth_getBlockReceipts: getBlockReceipts,
  eth_call: call,
  eth_estimateGas: estimateGas,
};

/** Common methods a wallet or dapp needs beside the nine; forwarded as they are. */
export const EVM_PASSTHROUGH_METHODS = new Set([
  'eth_chainId',
  'eth_blockNumber',
  'eth_getBalance',
  'eth_getCode',
  'eth_getStorageAt',
  'eth_getTransactionCount',
  'eth_sendRawTransaction',
  'eth_getLogs',
  'eth_gasPrice',
  'eth_maxPriorityFeePerGas',
  'eth_feeHistory',
  'eth_blobBaseFee',
  'eth_syncing',
  'eth_getBlockTransactionCountByHash',
  'eth_getBlockTransactionCountByNumber',
  'eth_getUncleCountByBlockHash',
  'eth_getUncleCountByBlockNumber',
  'eth_getTransactionByBlockHashAndIndex',
  'eth_getUncleByBlockHashAndIndex',
  'eth_getProof',
  'eth_createAccessList',
  'eth_simulateV1',
  'eth_newFilter',
  'eth_newBlockFilter',
  'eth_newPendingTransactionFilter',
  'eth_getFilterChanges',
  'eth_getFilterLogs',
  'eth_uninstallFilter',

  'net_version',
  'net_listening',
  'web3_clientVersion',
  'web3_sha3',
]);

export function evmMethodTable(passthroughCost = 80, maxLogsBlockRange = 10_000): MethodTable {
  return {
    kind: 'evm',
    rules: new Map([
      ...Object.entries(EVM_METHOD_RULES),
      ['eth_getLogs', getLogsRule(passthroughCost, maxLogsBlockRange)],
    ]),

    passthrough: { methods: EVM_PASSTHROUGH_METHODS, cost: passthroughCost },
    hooks: evmHooks,
  };
}
