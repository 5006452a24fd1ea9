// The EVM method specs' own rules, method by method: what each `check` refuses and the parameter
// its message names, the gas cap of calls, the pending block's and transaction's null fields, the
// receipts block rewritten for every node, the contracts a call names whatever its shape, and
// the per-method tables (block positions, always-cached methods, the head) exactly as specified.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { JsonResult } from '../../rpc/json-result.ts';
import type { ChainContext } from '../../types.ts';
import type { Fleet } from '../types.ts';
import {
  BLOCK_PARAMETER_INDEX,
  DEFAULT_LOGS_LIMITS,
  EVM_METHOD_SPECS,
  evmMethodSpecs,
  getLogsSpec,
} from './spec.ts';

const HASH = `0x${'ab'.repeat(32)}`;
const TO = '0x00000000000000000000000000000000000000aa';

/** A chain whose block gas limit is 30M (the cap is 300M) and whose head is block 2,000,000. */
function chainAt(head = 2_000_000): ChainContext & { gasLimitAsked: number } {
  const chain = {
    gasLimitAsked: 0,
    blockGasLimit: async () => {
      chain.gasLimitAsked++;
      return 30_000_000n;
    },
    headNumber: async () => head,
  };
  return chain;
}

/** The message of the refusal `check` throws (a test failure when it accepts). */
async function refusal(method: string, params: unknown[], chain: ChainContext = chainAt()): Promise<string> {
  try {
    await EVM_METHOD_SPECS[method]!.check!(params, chain);
  } catch (error) {
    assert.equal((error as { code?: unknown }).code, 'invalidParams', String(error));
    return (error as Error).message;
  }
  assert.fail(`${method} accepted ${JSON.stringify(params)}`);
}

const accepts = async (method: string, params: unknown[], chain: ChainContext = chainAt()) => {
  await EVM_METHOD_SPECS[method]!.check!(params, chain);
};

describe('the checks of the nine methods name the parameter they refuse', () => {
  it('eth_getBlockByHash: a hash and a flag', async () => {
    await accepts('eth_getBlockByHash', [HASH, false]);
    assert.match(await refusal('eth_getBlockByHash', []), /required parameter block hash \(position 0\)/);
    assert.match(
      await refusal('eth_getBlockByHash', [HASH]),
      /required parameter transaction-details flag \(position 1\)/,
    );
    assert.match(
      await refusal('eth_getBlockByHash', [HASH, true, 1]),
      /at most 2 \(block hash, transaction-details flag\), got 3/,
    );
    assert.match(
      await refusal('eth_getBlockByHash', ['0x12', true]),
      /^block hash must be a 32-byte hex string/,
    );
    assert.match(
      await refusal('eth_getBlockByHash', [HASH, 'true']),
      /^transaction-details flag must be a boolean/,
    );
  });

  it('eth_getBlockByNumber: a block parameter and a flag', async () => {
    await accepts('eth_getBlockByNumber', ['latest', true]);
    assert.match(
      await refusal('eth_getBlockByNumber', []),
      /required parameter block parameter \(position 0\)/,
    );
    assert.match(
      await refusal('eth_getBlockByNumber', ['latest', true, 1]),
      /at most 2 \(block parameter, transaction-details flag\), got 3/,
    );
    assert.match(await refusal('eth_getBlockByNumber', ['0x012', true]), /block/);
    assert.match(
      await refusal('eth_getBlockByNumber', ['latest', 1]),
      /^transaction-details flag must be a boolean/,
    );
  });

  it('eth_getUncleByBlockNumberAndIndex and eth_getTransactionByBlockNumberAndIndex: a block and a u64 index', async () => {
    for (const [method, index] of [
      ['eth_getUncleByBlockNumberAndIndex', 'uncle index'],
      ['eth_getTransactionByBlockNumberAndIndex', 'transaction index'],
    ] as const) {
      await accepts(method, ['0x10', `0x${'f'.repeat(16)}`]);
      assert.match(
        await refusal(method, ['0x10']),
        new RegExp(`required parameter ${index} \\(position 1\\)`),
      );
      assert.match(
        await refusal(method, ['0x10', '0x0', 1]),
        new RegExp(`at most 2 \\(block parameter, ${index}\\), got 3`),
      );
      assert.match(await refusal(method, ['0x012', '0x0']), /block/);
      assert.match(
        await refusal(method, ['0x10', `0x1${'0'.repeat(16)}`]),
        new RegExp(`^${index} must be a hex quantity of at most 64 bits`),
      );
    }
  });

  it('eth_getTransactionByHash and eth_getTransactionReceipt: one transaction hash', async () => {
    for (const method of ['eth_getTransactionByHash', 'eth_getTransactionReceipt']) {
      await accepts(method, [HASH]);
      assert.match(await refusal(method, []), /required parameter transaction hash \(position 0\)/);
      assert.match(await refusal(method, [HASH, HASH]), /at most 1 \(transaction hash\), got 2/);
      assert.match(await refusal(method, ['0x12']), /^transaction hash must be a 32-byte hex string/);
    }
  });

  it('eth_getBlockReceipts: one block', async () => {
    await accepts('eth_getBlockReceipts', [5]);
    assert.match(await refusal('eth_getBlockReceipts', []), /required parameter blockNumber \(position 0\)/);
    assert.match(await refusal('eth_getBlockReceipts', ['latest', 1]), /at most 1 \(blockNumber\), got 2/);
    assert.ok((await refusal('eth_getBlockReceipts', [-1])).length > 0);
  });

  it('eth_call: a call object, a block (required), and overrides checked member by member', async () => {
    await accepts('eth_call', [{ to: TO }, 'latest']);
    await accepts('eth_call', [{ to: TO }, 'latest', {}, {}]);
    assert.match(
      await refusal('eth_call', [{ to: TO }]),
      /required parameter block parameter \(position 1\)/,
    );
    assert.match(
      await refusal('eth_call', [{ to: TO }, 'latest', {}, {}, 1]),
      /at most 4 \(transaction call object, block parameter, state override, block override\), got 5/,
    );
    assert.ok((await refusal('eth_call', ['call', 'latest'])).length > 0);
    assert.ok((await refusal('eth_call', [{ to: TO }, 'soon'])).length > 0);
    assert.match(await refusal('eth_call', [{ to: TO }, 'latest', { [TO]: { balance: 'lots' } }]), /balance/);
    assert.match(await refusal('eth_call', [{ to: TO }, 'latest', {}, { number: 'soon' }]), /number/);
  });

  it('eth_estimateGas: a call object, an optional block and state override', async () => {
    await accepts('eth_estimateGas', [{ to: TO }]);
    await accepts('eth_estimateGas', [{ to: TO }, 'latest', {}]);
    assert.match(
      await refusal('eth_estimateGas', []),
      /required parameter transaction call object \(position 0\)/,
    );
    assert.match(
      await refusal('eth_estimateGas', [{ to: TO }, 'latest', {}, {}]),
      /at most 3 \(transaction call object, block parameter, state override\), got 4/,
    );
    assert.ok((await refusal('eth_estimateGas', ['call'])).length > 0);
    assert.ok((await refusal('eth_estimateGas', [{ to: TO }, 'soon'])).length > 0);
    assert.match(
      await refusal('eth_estimateGas', [{ to: TO }, 'latest', { [TO]: { balance: 'lots' } }]),
      /balance/,
    );
  });

  it('calls: gas above 10x the block gas limit is refused; without gas the limit is not even asked', async () => {
    for (const method of ['eth_call', 'eth_estimateGas']) {
      const chain = chainAt();
      await accepts(method, [{ to: TO }, 'latest'], chain);
      assert.equal(chain.gasLimitAsked, 0, `${method}: no gas, no question`);
      await accepts(method, [{ to: TO, gas: '0x11e1a300' }, 'latest'], chain); // exactly 300M
      assert.equal(chain.gasLimitAsked, 1);
      assert.equal(
        await refusal(method, [{ to: TO, gas: '0x11e1a301' }, 'latest'], chain),
        'transaction call object.gas 300000001 exceeds the cap of 10 x the current block gas limit (300000000)',
      );
    }
  });
});

describe('what the specs do to a call and its answer', () => {
  const block = {
    hash: HASH,
    number: '0x10',
    nonce: '0x0',
    logsBloom: '0x00',
    transactions: [{ blockHash: HASH }],
  };
  const tx = { hash: HASH, blockHash: HASH, blockNumber: '0x10', transactionIndex: '0x0' };

  it('the pending block and the pending transaction have no hash, number or position; others are as the node sent them', () => {
    const finishBlock = EVM_METHOD_SPECS.eth_getBlockByNumber!.finish!;
    const pending = finishBlock(JsonResult.ofValue(block), ['pending', true]).value as Record<
      string,
      unknown
    >;
    assert.equal(pending.hash, null);
    assert.equal(pending.number, null);
    const latest = JsonResult.ofValue(block);
    assert.equal(finishBlock(latest, ['latest', true]), latest);
    const finishTx = EVM_METHOD_SPECS.eth_getTransactionByBlockNumberAndIndex!.finish!;
    const pendingTx = finishTx(JsonResult.ofValue(tx), ['pending', '0x0']).value as Record<string, unknown>;
    assert.deepEqual(pendingTx, { hash: HASH, blockHash: null, blockNumber: null, transactionIndex: null });
    const minedTx = JsonResult.ofValue(tx);
    assert.equal(finishTx(minedTx, ['0x10', '0x0']), minedTx);
  });

  it('eth_getBlockReceipts: pending is asked as latest, a decimal block as hex, the rest as it is', () => {
    const prepare = EVM_METHOD_SPECS.eth_getBlockReceipts!.prepare!;
    assert.deepEqual(prepare(['pending']), ['latest']);
    assert.deepEqual(prepare([16]), ['0x10']);
    assert.deepEqual(prepare(['16']), ['0x10']);
    assert.deepEqual(prepare([HASH]), [HASH]);
    assert.deepEqual(prepare(['safe']), ['safe']);
  });

  it('the contracts a call names, whatever shape the parameters have', () => {
    const of = (method: string, params: unknown[]) => EVM_METHOD_SPECS[method]!.contracts!(params);
    for (const method of ['eth_call', 'eth_estimateGas', 'eth_createAccessList']) {
      assert.deepEqual(of(method, [{ to: TO }]), [TO], method);
      assert.deepEqual(of(method, [null]), [], method);
      assert.deepEqual(of(method, [{ to: 5 }]), [], method);
      assert.deepEqual(of(method, [{}]), [], method);
      assert.deepEqual(of(method, []), [], method);
    }
    for (const method of ['eth_getCode', 'eth_getStorageAt']) {
      assert.deepEqual(of(method, [TO, '0x0', 'latest']), [TO]);
      assert.deepEqual(of(method, [5]), []);
    }
    assert.deepEqual(of('eth_getLogs', [null]), []);
    assert.deepEqual(of('eth_getLogs', [{ address: 5 }]), []);
    assert.deepEqual(of('eth_getLogs', [{ address: [TO, 5] }]), [TO, '5']);
    assert.deepEqual(of('eth_getLogs', ['filter']), []);
  });

  it('a call with a state or block override is not cached (eth_call and eth_estimateGas alike)', () => {
    for (const method of ['eth_call', 'eth_estimateGas']) {
      const cache = EVM_METHOD_SPECS[method]!.cache as (params: unknown[]) => unknown;
      assert.deepEqual(cache([{}, '0x5']), { cacheable: true, block: 5 }, method);
      assert.deepEqual(cache([{}, '0x5', {}]), { cacheable: false }, method);
      assert.deepEqual(cache([{}]), { cacheable: false }, method);
    }
  });
});

describe('eth_getLogs as its spec serves it', () => {
  it('eth_getLogs: a fixed range is cached by its last block; a range wider than an upstream takes is served in parts', async () => {
    const logs = evmMethodSpecs({ maxBlockRange: 10, maxTotalRange: 100 }).eth_getLogs!;
    const cache = logs.cache as (params: unknown[]) => unknown;
    assert.deepEqual(cache([{ fromBlock: '0x1', toBlock: '0x2' }]), { cacheable: true, block: 2 });
    assert.deepEqual(cache([{ fromBlock: '0x1', toBlock: 'latest' }]), { cacheable: false });
    // One upstream in service that takes 10 blocks (the network's maxLogsBlockRange) at first.
    const member = { upstream: {} };
    const fleet = {
      upstreams: { inService: () => [member], bestHead: () => 1000, agreed: () => undefined },
      heads: { finalized: 900 },
    } as unknown as Fleet;
    assert.equal(
      logs.serve!([{ fromBlock: '0x0', toBlock: '0x9' }], fleet),
      undefined,
      '10 blocks: sent as it is',
    );
    let inParts: unknown;
    try {
      inParts = logs.serve!([{ fromBlock: '0x0', toBlock: '0xa' }], fleet);
    } catch (error) {
      inParts = error; // the stand-in fleet has no upstream to ask: trying is what is tested
    }
    if (inParts instanceof Promise) inParts.catch(() => {});
    assert.notEqual(inParts, undefined, '11 blocks: in parts');
  });
});

describe('the per-method tables', () => {
  it('the block parameter of each method is where the spec puts it', () => {
    assert.deepEqual(Object.fromEntries(BLOCK_PARAMETER_INDEX), {
      eth_getBlockByNumber: 0,
      eth_getUncleByBlockNumberAndIndex: 0,
      eth_getTransactionByBlockNumberAndIndex: 0,
      eth_getBlockReceipts: 0,
      eth_call: 1,
      eth_estimateGas: 1,
      eth_getBalance: 1,
      eth_getCode: 1,
      eth_getStorageAt: 2,
      eth_getTransactionCount: 1,
      eth_feeHistory: 1,
      eth_getBlockTransactionCountByNumber: 0,
      eth_getUncleCountByBlockNumber: 0,
      eth_getProof: 2,
      eth_createAccessList: 1,
    });
  });

  it('only the chain id and the network version are cached for good; only eth_blockNumber answers the head', () => {
    const always = Object.entries(EVM_METHOD_SPECS)
      .filter(([, spec]) => spec.cache === 'always')
      .map(([name]) => name);
    assert.deepEqual(always.sort(), ['eth_chainId', 'net_version']);
    const head = Object.entries(EVM_METHOD_SPECS)
      .filter(([, spec]) => spec.answersHead)
      .map(([name]) => name);
    assert.deepEqual(head, ['eth_blockNumber']);
    const byHash = Object.entries(EVM_METHOD_SPECS)
      .filter(([, spec]) => spec.cache === 'byHash')
      .map(([name]) => name);
    assert.deepEqual(byHash.sort(), [
      'eth_getBlockByHash',
      'eth_getTransactionByHash',
      'eth_getTransactionReceipt',
    ]);
  });

  it('a block no upstream has reached is null, without a call, for the four methods whose answer is "not found" (eth_call and eth_estimateGas are the node\'s to refuse)', () => {
    const nullBeyondHead = Object.entries(EVM_METHOD_SPECS)
      .filter(([, spec]) => spec.nullBeyondHead)
      .map(([name]) => name);
    assert.deepEqual(nullBeyondHead.sort(), [
      'eth_getBlockByNumber',
      'eth_getBlockReceipts',
      'eth_getTransactionByBlockNumberAndIndex',
      'eth_getUncleByBlockNumberAndIndex',
    ]);
  });

  it('eth_getLogs: at most maxLogsBlockRangeTotal blocks, the default a million', async () => {
    assert.deepEqual(DEFAULT_LOGS_LIMITS, { maxBlockRange: 10_000, maxTotalRange: 1_000_000 });
    const check = EVM_METHOD_SPECS.eth_getLogs!.check!;
    await check([{ fromBlock: '0x0', toBlock: `0x${(999_999).toString(16)}` }], chainAt());
    await assert.rejects(
      async () => check([{ fromBlock: '0x0', toBlock: `0x${(1_000_000).toString(16)}` }], chainAt()),
      /at most 1000000 per request/,
    );
    const narrow = evmMethodSpecs({ maxBlockRange: 10, maxTotalRange: 100 }).eth_getLogs!;
    await assert.rejects(
      async () => narrow.check!([{ fromBlock: '0x0', toBlock: '0x64' }], chainAt()),
      /at most 100 per/,
    );
    assert.equal(getLogsSpec(10, 100).cost, 'passthrough');
    assert.match(
      EVM_METHOD_SPECS.eth_getLogs!.accepts!,
      /^filter object; a range of at most `maxLogsBlockRangeTotal` blocks$/,
    );
  });
});
