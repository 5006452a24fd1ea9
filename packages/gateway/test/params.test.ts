// Parameter rules of the nine EVM methods: every bad parameter is a -32602 whose message names the
// parameter, is answered before any upstream call, and costs nothing.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type EvmSeed, PorticoDemo } from '@portico/devchain';
import type { ApiKeyRecord } from '@portico/gateway';
import { encodeFunctionData, type Hex } from 'viem';
import { post, remaining, rpc, type Stack, startStack } from './harness.ts';

let stack: Stack;
let seed: EvmSeed;
let url: string;
let record: ApiKeyRecord;
let blockGasLimit: bigint;

const HASH = `0x${'11'.repeat(32)}`;
const valueCall = encodeFunctionData({ abi: PorticoDemo.abi, functionName: 'value' });

before(async () => {
  stack = await startStack({ dailyCredits: 1_000_000 });
  seed = stack.seed!;
  url = stack.url(stack.key);
  record = (await stack.gateway.keys.authenticate(stack.key))!;
  const latest = await rpc(stack.anvil.url, 'eth_getBlockByNumber', ['latest', false]);
  blockGasLimit = BigInt((latest.body.result as { gasLimit: Hex }).gasLimit);
});
after(async () => {
  await stack?.close();
});

type BadCase = { name: string; method: string; params: () => unknown[]; message: RegExp };

const call = (extra: Record<string, unknown> = {}) => ({ to: seed.demoContract, data: valueCall, ...extra });
const overCap = () => `0x${(blockGasLimit * 10n + 1n).toString(16)}`;

const BAD: BadCase[] = [
  // 32-byte hashes
  {
    name: 'short block hash',
    method: 'eth_getBlockByHash',
    params: () => ['0x1234', false],
    message: /block hash/,
  },
  {
    name: 'block hash without 0x',
    method: 'eth_getBlockByHash',
    params: () => ['11'.repeat(32), false],
    message: /block hash/,
  },
  {
    name: 'short transaction hash',
    method: 'eth_getTransactionByHash',
    params: () => ['0xabc'],
    message: /transaction hash/,
  },
  {
    name: 'receipt of a non-hex hash',
    method: 'eth_getTransactionReceipt',
    params: () => [`0x${'zz'.repeat(32)}`],
    message: /transaction hash/,
  },
  // boolean flags
  {
    name: 'string flag',
    method: 'eth_getBlockByNumber',
    params: () => ['latest', 'true'],
    message: /transaction-details flag/,
  },
  {
    name: 'numeric flag',
    method: 'eth_getBlockByHash',
    params: () => [HASH, 1],
    message: /transaction-details flag/,
  },
  {
    name: 'missing flag (by number)',
    method: 'eth_getBlockByNumber',
    params: () => ['latest'],
    message: /transaction-details flag/,
  },
  {
    name: 'missing flag (by hash)',
    method: 'eth_getBlockByHash',
    params: () => [HASH],
    message: /transaction-details flag/,
  },
  // block parameter
  {
    name: 'unknown tag',
    method: 'eth_getBlockByNumber',
    params: () => ['newest', false],
    message: /block parameter/,
  },
  {
    name: 'tag in capitals',
    method: 'eth_getBlockByNumber',
    params: () => ['LATEST', false],
    message: /block parameter/,
  },
  {
    name: 'leading-zero block number',
    method: 'eth_getBlockByNumber',
    params: () => ['0x01', false],
    message: /block parameter/,
  },
  {
    name: 'decimal block number where hex is required',
    method: 'eth_getBlockByNumber',
    params: () => ['12', false],
    message: /block parameter/,
  },
  {
    name: 'numeric block number',
    method: 'eth_getBlockByNumber',
    params: () => [1, false],
    message: /block parameter/,
  },
  {
    name: 'bad tag for an uncle',
    method: 'eth_getUncleByBlockNumberAndIndex',
    params: () => ['tip', '0x0'],
    message: /block parameter/,
  },
  {
    name: 'missing block parameter of eth_call',
    method: 'eth_call',
    params: () => [call()],
    message: /block parameter/,
  },
  {
    name: 'bad block of eth_call',
    method: 'eth_call',
    params: () => [call(), 'pending2'],
    message: /block parameter/,
  },
  {
    name: 'bad block of eth_estimateGas',
    method: 'eth_estimateGas',
    params: () => [call(), '0x00'],
    message: /block parameter/,
  },
  // eth_getBlockReceipts' own block rule
  {
    name: 'receipts of an unknown tag',
    method: 'eth_getBlockReceipts',
    params: () => ['newest'],
    message: /blockNumber/,
  },
  {
    name: 'receipts of a leading-zero hex',
    method: 'eth_getBlockReceipts',
    params: () => ['0x01'],
    message: /blockNumber/,
  },
  {
    name: 'receipts of a negative number',
    method: 'eth_getBlockReceipts',
    params: () => ['-1'],
    message: /blockNumber/,
  },
  {
    name: 'receipts without a block',
    method: 'eth_getBlockReceipts',
    params: () => [],
    message: /blockNumber/,
  },
  // hex index positions
  {
    name: 'leading-zero uncle index',
    method: 'eth_getUncleByBlockNumberAndIndex',
    params: () => ['latest', '0x00'],
    message: /uncle index/,
  },
  {
    name: 'numeric uncle index',
    method: 'eth_getUncleByBlockNumberAndIndex',
    params: () => ['latest', 0],
    message: /uncle index/,
  },
  {
    name: 'decimal transaction index',
    method: 'eth_getTransactionByBlockNumberAndIndex',
    params: () => ['latest', '1'],
    message: /transaction index/,
  },
  {
    name: 'empty hex transaction index',
    method: 'eth_getTransactionByBlockNumberAndIndex',
    params: () => ['latest', '0x'],
    message: /transaction index/,
  },
  {
    name: 'missing transaction index',
    method: 'eth_getTransactionByBlockNumberAndIndex',
    params: () => ['latest'],
    message: /transaction index/,
  },
  // the transaction call object
  {
    name: 'unknown call-object key',
    method: 'eth_call',
    params: () => [call({ foo: 1 }), 'latest'],
    message: /transaction call object.*unknown member "foo"/,
  },
  {
    name: 'unknown call-object key (estimate)',
    method: 'eth_estimateGas',
    params: () => [call({ gasLimit: '0x1' })],
    message: /transaction call object.*"gasLimit"/,
  },
  {
    name: 'data and input differ',
    method: 'eth_call',
    params: () => [call({ data: '0x01', input: '0x02' }), 'latest'],
    message: /"data" and "input"/,
  },
  {
    name: 'data and input differ (estimate)',
    method: 'eth_estimateGas',
    params: () => [call({ data: '0x01', input: '0x02' })],
    message: /"data" and "input"/,
  },
  {
    name: 'short to address',
    method: 'eth_call',
    params: () => [call({ to: '0x1234' }), 'latest'],
    message: /transaction call object\.to/,
  },
  {
    name: 'odd-length data',
    method: 'eth_call',
    params: () => [call({ data: '0x123' }), 'latest'],
    message: /transaction call object\.data/,
  },
  {
    name: 'leading-zero gas',
    method: 'eth_call',
    params: () => [call({ gas: '0x0100' }), 'latest'],
    message: /transaction call object\.gas/,
  },
  {
    name: 'call object not an object',
    method: 'eth_call',
    params: () => ['0x00', 'latest'],
    message: /transaction call object/,
  },
  { name: 'no call object', method: 'eth_estimateGas', params: () => [], message: /transaction call object/ },
  // too many parameters
  {
    name: 'too many for eth_getTransactionByHash',
    method: 'eth_getTransactionByHash',
    params: () => [HASH, true],
    message: /too many parameters.*transaction hash/,
  },
  {
    name: 'too many for eth_getBlockByNumber',
    method: 'eth_getBlockByNumber',
    params: () => ['latest', false, 1],
    message: /too many parameters/,
  },
  {
    name: 'too many for eth_getBlockReceipts',
    method: 'eth_getBlockReceipts',
    params: () => ['latest', 'latest'],
    message: /too many parameters.*blockNumber/,
  },
  {
    name: 'too many for eth_call',
    method: 'eth_call',
    params: () => [call(), 'latest', {}, {}, {}],
    message: /too many parameters/,
  },
  {
    name: 'too many for eth_estimateGas',
    method: 'eth_estimateGas',
    params: () => [call(), 'latest', {}, {}],
    message: /too many parameters/,
  },
  // the gas cap: 10 x the current block gas limit
  {
    name: 'eth_call gas above 10x the block gas limit',
    method: 'eth_call',
    params: () => [call({ gas: overCap() }), 'latest'],
    message: /transaction call object\.gas .*exceeds the cap of 10 x the current block gas limit/,
  },
  {
    name: 'eth_estimateGas gas above 10x the block gas limit',
    method: 'eth_estimateGas',
    params: () => [call({ gas: overCap() })],
    message: /transaction call object\.gas .*exceeds the cap/,
  },
  // widths: what nodes decode into (block numbers and indices u64, fees u128, values u256)
  {
    name: 'block number of 40 hex digits (beyond 2^64-1)',
    method: 'eth_getBlockByNumber',
    params: () => [`0x${'f'.repeat(40)}`, false],
    message: /block parameter must be a hex block number of at most 64 bits/,
  },
  {
    name: 'block number of 2^64',
    method: 'eth_getTransactionByBlockNumberAndIndex',
    params: () => [`0x1${'0'.repeat(16)}`, '0x0'],
    message: /block parameter/,
  },
  {
    name: 'EIP-1898 block number beyond 2^64-1',
    method: 'eth_call',
    params: () => [call(), { blockNumber: `0x1${'0'.repeat(16)}` }],
    message: /block parameter\.blockNumber/,
  },
  {
    name: 'receipts of a 65-digit decimal number',
    method: 'eth_getBlockReceipts',
    params: () => ['9'.repeat(65)],
    message: /blockNumber must be a hex or decimal block number of at most 2\^64-1/,
  },
  {
    name: 'receipts of 2^64 in decimal',
    method: 'eth_getBlockReceipts',
    params: () => ['18446744073709551616'],
    message: /blockNumber/,
  },
  {
    name: 'receipts of 2^64 in hex',
    method: 'eth_getBlockReceipts',
    params: () => [`0x1${'0'.repeat(16)}`],
    message: /blockNumber/,
  },
  {
    name: 'transaction index beyond 2^64-1',
    method: 'eth_getTransactionByBlockNumberAndIndex',
    params: () => ['latest', `0x${'f'.repeat(17)}`],
    message: /transaction index must be a hex quantity of at most 64 bits/,
  },
  {
    name: 'uncle index beyond 2^64-1',
    method: 'eth_getUncleByBlockNumberAndIndex',
    params: () => ['latest', `0x1${'0'.repeat(16)}`],
    message: /uncle index/,
  },
  {
    name: 'gasPrice of 40 hex digits (beyond 2^128-1)',
    method: 'eth_estimateGas',
    params: () => [call({ gasPrice: `0x${'f'.repeat(40)}` })],
    message: /transaction call object\.gasPrice must be a hex quantity of at most 128 bits/,
  },
  {
    name: 'maxFeePerGas of 2^128',
    method: 'eth_call',
    params: () => [call({ maxFeePerGas: `0x1${'0'.repeat(32)}` }), 'latest'],
    message: /maxFeePerGas/,
  },
  {
    name: 'maxPriorityFeePerGas above maxFeePerGas',
    method: 'eth_call',
    params: () => [call({ maxFeePerGas: '0x1', maxPriorityFeePerGas: '0x2' }), 'latest'],
    message: /maxPriorityFeePerGas is greater than its maxFeePerGas/,
  },
  {
    name: 'value of 2^256',
    method: 'eth_call',
    params: () => [call({ value: `0x1${'0'.repeat(64)}` }), 'latest'],
    message: /transaction call object\.value must be a hex quantity of at most 256 bits/,
  },
  {
    name: 'gas of 2^64',
    method: 'eth_estimateGas',
    params: () => [call({ gas: `0x1${'0'.repeat(16)}` })],
    message: /transaction call object\.gas must be a hex quantity of at most 64 bits/,
  },
  {
    name: 'nonce of 2^64',
    method: 'eth_call',
    params: () => [call({ nonce: `0x1${'0'.repeat(16)}` }), 'latest'],
    message: /\.nonce/,
  },
  {
    name: 'type beyond a byte',
    method: 'eth_call',
    params: () => [call({ type: '0x100' }), 'latest'],
    message: /\.type must be a hex quantity of at most 8 bits/,
  },
  {
    name: 'chainId of 2^64',
    method: 'eth_call',
    params: () => [call({ chainId: `0x1${'0'.repeat(16)}` }), 'latest'],
    message: /\.chainId/,
  },
  {
    name: 'authorization nonce of 2^64',
    method: 'eth_call',
    params: () => [
      call({
        authorizationList: [
          { address: seed.demoContract, chainId: '0x1', nonce: `0x1${'0'.repeat(16)}`, r: '0x1', s: '0x1' },
        ],
      }),
      'latest',
    ],
    message: /authorizationList\[0\]\.nonce/,
  },
  {
    name: 'eth_getLogs fromBlock beyond 2^64-1',
    method: 'eth_getLogs',
    params: () => [{ fromBlock: `0x1${'0'.repeat(16)}`, toBlock: 'latest' }],
    message: /filter\.fromBlock/,
  },
  // state overrides of eth_call / eth_estimateGas, member by member
  {
    name: 'state override that is not an object',
    method: 'eth_call',
    params: () => [call(), 'latest', '0x1'],
    message: /state override must be an object of addresses/,
  },
  {
    name: 'state override keyed by a short address',
    method: 'eth_call',
    params: () => [call(), 'latest', { '0x12': { balance: '0x1' } }],
    message: /state override has a key "0x12" that is not a 20-byte hex address/,
  },
  {
    name: 'state override balance of 2^256',
    method: 'eth_call',
    params: () => [call(), 'latest', { [seed.demoContract]: { balance: `0x1${'0'.repeat(64)}` } }],
    message: /state override\.0x[0-9a-fA-F]{40}\.balance/,
  },
  {
    name: 'state override nonce of 2^64 (estimate)',
    method: 'eth_estimateGas',
    params: () => [call(), 'latest', { [seed.demoContract]: { nonce: `0x1${'0'.repeat(16)}` } }],
    message: /\.nonce must be a hex quantity of at most 64 bits/,
  },
  {
    name: 'state override code with an odd number of digits',
    method: 'eth_call',
    params: () => [call(), 'latest', { [seed.demoContract]: { code: '0x123' } }],
    message: /\.code must be a 0x-prefixed hex string of whole bytes/,
  },
  {
    name: 'state override slot shorter than 32 bytes',
    method: 'eth_call',
    params: () => [call(), 'latest', { [seed.demoContract]: { stateDiff: { '0x01': HASH } } }],
    message: /stateDiff has a slot "0x01" that is not 32 bytes of hex/,
  },
  {
    name: 'state override value shorter than 32 bytes',
    method: 'eth_call',
    params: () => [call(), 'latest', { [seed.demoContract]: { state: { [HASH]: '0x01' } } }],
    message: /\.state\[0x1{64}\] must be a 32-byte hex string/,
  },
  {
    name: 'state override with both state and stateDiff',
    method: 'eth_call',
    params: () => [call(), 'latest', { [seed.demoContract]: { state: {}, stateDiff: {} } }],
    message: /sets both state and stateDiff/,
  },
  {
    name: 'state override with an unknown account member',
    method: 'eth_call',
    params: () => [call(), 'latest', { [seed.demoContract]: { storage: {} } }],
    message: /unknown member "storage"/,
  },
  // block overrides of eth_call
  {
    name: 'block override prevRandao with an odd number of digits',
    method: 'eth_call',
    params: () => [call(), 'latest', {}, { prevRandao: '0x123' }],
    message: /block override\.prevRandao must be a 32-byte hex string/,
  },
  {
    name: 'block override feeRecipient with an odd number of digits',
    method: 'eth_call',
    params: () => [call(), 'latest', {}, { feeRecipient: '0x123' }],
    message: /block override\.feeRecipient must be a 20-byte hex address/,
  },
  {
    name: 'block override number of 2^64',
    method: 'eth_call',
    params: () => [call(), 'latest', {}, { number: `0x1${'0'.repeat(16)}` }],
    message: /block override\.number/,
  },
  {
    name: 'block override time of 2^64',
    method: 'eth_call',
    params: () => [call(), 'latest', {}, { time: `0x1${'0'.repeat(16)}` }],
    message: /block override\.time/,
  },
  {
    name: 'block override with an unknown member',
    method: 'eth_call',
    params: () => [call(), 'latest', {}, { coinbase: seed.demoContract }],
    message: /block override has an unknown member "coinbase"/,
  },
  {
    name: 'block override with more than 16 withdrawals',
    method: 'eth_call',
    params: () => [
      call(),
      'latest',
      {},
      {
        withdrawals: Array.from({ length: 17 }, () => ({
          index: '0x0',
          validatorIndex: '0x0',
          address: seed.demoContract,
          amount: '0x1',
        })),
      },
    ],
    message: /withdrawals may hold at most 16 entries/,
  },
  {
    name: 'block override withdrawal without an amount',
    method: 'eth_call',
    params: () => [
      call(),
      'latest',
      {},
      { withdrawals: [{ index: '0x0', validatorIndex: '0x0', address: seed.demoContract }] },
    ],
    message: /withdrawals\[0\]\.amount is required/,
  },
  // params not positional
  {
    name: 'params as an object',
    method: 'eth_getBlockByNumber',
    params: () => ({ block: 'latest' }) as unknown as unknown[],
    message: /params of eth_getBlockByNumber must be an array/,
  },
];

describe('every bad parameter is -32602 naming the parameter, and free', () => {
  for (const c of BAD) {
    test(`${c.method}: ${c.name}`, async () => {
      const reply = await rpc(url, c.method, c.params());
      assert.equal(reply.status, 200, reply.text);
      assert.ok(reply.body.error, `expected an error, got ${reply.text}`);
      assert.equal(reply.body.error.code, -32602, reply.text);
      assert.match(reply.body.error.message, c.message);
      assert.equal(reply.body.result, undefined);
      const shown = remaining(reply);
      assert.ok(shown === undefined || shown === 1_000_000, `a balance shown is the full one, got ${shown}`);
      assert.equal(await stack.gateway.ledger.spent(record.id), 0, 'a rejected request costs nothing');
    });
  }

  test('a batch of only bad parameters costs nothing either', async () => {
    const batch = BAD.slice(0, 10).map((c, i) => ({
      jsonrpc: '2.0',
      id: i,
      method: c.method,
      params: c.params(),
    }));
    const reply = await post(url, batch);
    assert.equal(reply.status, 200);
    const body = reply.body as { error?: { code: number } }[];
    assert.equal(body.length, 10);
    for (const item of body) assert.equal(item.error?.code, -32602);
    assert.equal(await stack.gateway.ledger.spent(record.id), 0);
  });
});

describe('values at the edge of the rules are accepted', () => {
  test('the edges pass validation and reach the chain', async () => {
    const busy = `0x${seed.busyBlock.toString(16)}`;
    const accepted: [string, unknown[]][] = [
      ['eth_getTransactionByBlockNumberAndIndex', [busy, '0x0']],
      ['eth_getUncleByBlockNumberAndIndex', ['0x0', '0x0']],
      ['eth_getBlockByHash', [HASH.toUpperCase().replace('0X', '0x'), false]],
      ['eth_getBlockReceipts', ['0']],
      ['eth_getBlockReceipts', [Number(seed.busyBlock)]],
      ['eth_call', [call({ gas: `0x${blockGasLimit.toString(16)}` }), 'latest']],
      [
        'eth_call',
        [call({ to: seed.demoContract, from: seed.accounts[0], value: '0x0' }), { blockNumber: '0x1' }],
      ],
      ['eth_call', [call(), 'latest', {}]],
      ['eth_call', [call(), 'latest', null, null]],
      ['eth_estimateGas', [call({ gas: `0x${blockGasLimit.toString(16)}` }), 'latest']],
      // The widest values each rule lets through are ones the node takes too.
      ['eth_getBlockByNumber', [`0x${'f'.repeat(16)}`, false]],
      ['eth_getTransactionByBlockNumberAndIndex', [busy, `0x${'f'.repeat(16)}`]],
      ['eth_getUncleByBlockNumberAndIndex', ['0x0', `0x${'f'.repeat(16)}`]],
      ['eth_getBlockReceipts', ['18446744073709551615']],
      ['eth_getBlockReceipts', [`0x${'f'.repeat(16)}`]],
      ['eth_call', [call({ type: '0xff', chainId: '0x7a69' }), 'latest']],
      [
        'eth_call',
        [
          call(),
          'latest',
          {
            [seed.demoContract]: {
              balance: `0x${'f'.repeat(64)}`,
              nonce: '0x1',
              stateDiff: { [HASH]: HASH },
            },
            [seed.accounts[0]]: { code: '0x', state: {} },
          },
          {
            number: `0x${'f'.repeat(16)}`,
            time: `0x${'f'.repeat(16)}`,
            gasLimit: `0x${blockGasLimit.toString(16)}`,
            feeRecipient: seed.demoContract,
            prevRandao: HASH,
            baseFeePerGas: '0x0',
            blobBaseFee: '0x1',
            difficulty: `0x${'f'.repeat(64)}`,
            beaconRoot: HASH,
            withdrawals: [{ index: '0x0', validatorIndex: '0x1', address: seed.demoContract, amount: '0x1' }],
          },
        ],
      ],
    ];
    const spentBefore = await stack.gateway.ledger.spent(record.id);
    for (const [method, params] of accepted) {
      const reply = await rpc(url, method, params);
      assert.equal(reply.status, 200, reply.text);
      assert.equal(reply.body.error, undefined, `${method} ${JSON.stringify(params)}: ${reply.text}`);
      assert.ok('result' in reply.body);
      assert.equal(typeof remaining(reply), 'number', 'a served request reports the balance');
    }
    assert.ok((await stack.gateway.ledger.spent(record.id)) > spentBefore, 'valid requests are charged');
  });

  test('the widest fees and value reach the node, which answers without a parameter error', async () => {
    const widest: [string, unknown[]][] = [
      ['eth_estimateGas', [call({ gasPrice: `0x${'f'.repeat(32)}` })]],
      ['eth_call', [call({ maxFeePerGas: `0x${'f'.repeat(32)}`, maxPriorityFeePerGas: '0x1' }), 'latest']],
      ['eth_call', [call({ value: `0x${'f'.repeat(64)}` }), 'latest']],
    ];
    for (const [method, params] of widest) {
      const reply = await rpc(url, method, params);
      assert.equal(reply.status, 200, reply.text);
      assert.notEqual(reply.body.error?.code, -32602, reply.text);
      assert.ok(
        reply.body.error === undefined || !/parse|invalid value|too large/i.test(reply.body.error.message),
      );
    }
  });
});
