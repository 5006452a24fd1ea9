// The nine EVM methods of the seed through the gateway, against a seeded anvil, with viem as the
// client where viem has the call and raw JSON-RPC where it does not.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { EvmSeed } from '@portico/devchain';
import { PorticoDemo } from '@portico/devchain';
import {
  createPublicClient,
  decodeFunctionResult,
  encodeFunctionData,
  type Hex,
  http,
  type PublicClient,
} from 'viem';
import { type RpcReply, rpc, type Stack, startStack } from './harness.ts';

type Block = Record<string, unknown> & { hash: Hex | null; number: Hex | null; transactions: unknown[] };
type Receipt = Record<string, unknown> & { transactionHash: Hex; status: Hex; contractAddress: Hex | null };

let stack: Stack;
let seed: EvmSeed;
let url: string;
let client: PublicClient;

const result = <T>(reply: RpcReply): T => {
  assert.equal(reply.status, 200, reply.text);
  assert.equal(reply.body.error, undefined, reply.text);
  return reply.body.result as T;
};
const hex = (n: bigint | number) => `0x${n.toString(16)}`;
const MISSING_HASH = `0x${'ab'.repeat(32)}` as Hex;
/** The three transactions of the seed's busy block, sorted (anvil orders a block by fee). */
const busyTransactions = () =>
  [seed.transactions.store, seed.transactions.legacyTransfer, seed.transactions.failed].sort();
const valueCall = encodeFunctionData({ abi: PorticoDemo.abi, functionName: 'value' });

before(async () => {
  stack = await startStack();
  seed = stack.seed!;
  url = stack.url(stack.key);
  client = createPublicClient({ transport: http(url, { timeout: 60_000 }) });
});
after(async () => {
  await stack?.close();
});

describe('eth_getBlockByHash and eth_getBlockByNumber', () => {
  test('a block by number and by hash carries its transactions as hashes or full objects', async () => {
    const byNumber = await client.getBlock({ blockNumber: seed.busyBlock });
    assert.equal(byNumber.number, seed.busyBlock);
    assert.deepEqual([...byNumber.transactions].sort(), busyTransactions());
    const byHash = await client.getBlock({ blockHash: byNumber.hash, includeTransactions: true });
    assert.equal(byHash.hash, byNumber.hash);
    assert.deepEqual(
      byHash.transactions.map((tx) => tx.hash),
      byNumber.transactions,
    );
    const typeOf = (hash: Hex) => byHash.transactions.find((tx) => tx.hash === hash)?.type;
    assert.equal(typeOf(seed.transactions.legacyTransfer), 'legacy');
    assert.equal(typeOf(seed.transactions.store), 'eip1559');

    const rawFull = result<Block>(await rpc(url, 'eth_getBlockByHash', [byNumber.hash, true]));
    const rawHashes = result<Block>(await rpc(url, 'eth_getBlockByNumber', [hex(seed.busyBlock), false]));
    assert.equal(typeof rawFull.transactions[0], 'object');
    assert.equal(typeof rawHashes.transactions[0], 'string');
    assert.equal(rawFull.hash, rawHashes.hash);
  });

  test('every block tag answers: latest, earliest, pending, safe, finalized', async () => {
    const head = await client.getBlockNumber();
    const latest = await client.getBlock({ blockTag: 'latest' });
    assert.equal(latest.number, head);
    const earliest = await client.getBlock({ blockTag: 'earliest' });
    assert.equal(earliest.number, 0n);
    for (const tag of ['safe', 'finalized'] as const) {
      const block = await client.getBlock({ blockTag: tag });
      assert.ok(block.number !== null && block.number <= head, `${tag} is at or below the head`);
      assert.match(block.hash ?? '', /^0x[0-9a-f]{64}$/);
    }
    for (const full of [false, true]) {
      const pending = result<Block>(await rpc(url, 'eth_getBlockByNumber', ['pending', full]));
      assert.ok(pending, 'the pending block is returned');
      assert.equal(pending.hash, null);
      assert.equal(pending.number, null);
      assert.equal(pending.nonce, null);
      assert.equal(pending.logsBloom, null);
      assert.ok(Array.isArray(pending.transactions));
    }
  });

  test('a missing block is null, by hash and by a future number', async () => {
    assert.equal(result(await rpc(url, 'eth_getBlockByHash', [MISSING_HASH, false])), null);
    assert.equal(result(await rpc(url, 'eth_getBlockByHash', [MISSING_HASH, true])), null);
    assert.equal(result(await rpc(url, 'eth_getBlockByNumber', ['0xffffff', false])), null);
  });
});

describe('eth_getUncleByBlockNumberAndIndex', () => {
  test('anvil has no uncles: every uncle is null', async () => {
    for (const block of ['latest', 'earliest', hex(seed.busyBlock), '0xffffff']) {
      assert.equal(result(await rpc(url, 'eth_getUncleByBlockNumberAndIndex', [block, '0x0'])), null);
    }
  });
});

describe('eth_getTransactionByBlockNumberAndIndex and eth_getTransactionByHash', () => {
  test('a transaction by block and index is the one at that position', async () => {
    const block = await client.getBlock({ blockNumber: seed.busyBlock });
    assert.equal(block.transactions.length, 3);
    for (const [index, hash] of block.transactions.entries()) {
      const tx = await client.getTransaction({ blockNumber: seed.busyBlock, index });
      assert.equal(tx.hash, hash);
      assert.equal(tx.transactionIndex, index);
      assert.equal(tx.blockNumber, seed.busyBlock);
    }
    const latestTx = await client.getTransaction({ blockTag: 'latest', index: 0 });
    assert.equal(latestTx.hash, seed.transactions.legacyStore);
  });

  test('a transaction by hash: EIP-1559, legacy and the contract creation', async () => {
    const store = await client.getTransaction({ hash: seed.transactions.store });
    assert.equal(store.type, 'eip1559');
    assert.equal(store.to?.toLowerCase(), seed.demoContract.toLowerCase());
    const legacy = await client.getTransaction({ hash: seed.transactions.legacyTransfer });
    assert.equal(legacy.type, 'legacy');
    assert.equal(legacy.value, 10n ** 18n);
    const raw = result<Record<string, unknown>>(
      await rpc(url, 'eth_getTransactionByHash', [seed.transactions.deploy]),
    );
    assert.equal(raw.to, null, 'a contract creation has no recipient');
    assert.equal(raw.hash, seed.transactions.deploy);
  });

  test('a missing transaction is null, by hash and by an index beyond the block', async () => {
    assert.equal(result(await rpc(url, 'eth_getTransactionByHash', [MISSING_HASH])), null);
    assert.equal(
      result(await rpc(url, 'eth_getTransactionByBlockNumberAndIndex', [hex(seed.busyBlock), '0x3'])),
      null,
    );
    assert.equal(
      result(await rpc(url, 'eth_getTransactionByBlockNumberAndIndex', ['0xffffff', '0x0'])),
      null,
    );
  });
});

describe('eth_getTransactionReceipt', () => {
  test('receipts: success with logs, the failed transaction with status 0, the deployment with its address', async () => {
    const store = await client.getTransactionReceipt({ hash: seed.transactions.store });
    assert.equal(store.status, 'success');
    assert.equal(store.logs.length, 1);
    assert.equal(store.contractAddress, null);
    const failed = await client.getTransactionReceipt({ hash: seed.transactions.failed });
    assert.equal(failed.status, 'reverted');
    const rawFailed = result<Receipt>(
      await rpc(url, 'eth_getTransactionReceipt', [seed.transactions.failed]),
    );
    assert.equal(rawFailed.status, '0x0');
    const deploy = await client.getTransactionReceipt({ hash: seed.transactions.deploy });
    assert.equal(deploy.contractAddress?.toLowerCase(), seed.demoContract.toLowerCase());
    assert.equal(deploy.to, null);
    const legacy = result<Receipt>(
      await rpc(url, 'eth_getTransactionReceipt', [seed.transactions.legacyTransfer]),
    );
    assert.equal(legacy.type, '0x0');
    assert.equal(legacy.status, '0x1');
  });

  test('a missing receipt is null', async () => {
    assert.equal(result(await rpc(url, 'eth_getTransactionReceipt', [MISSING_HASH])), null);
  });
});

describe('eth_getBlockReceipts', () => {
  test('the same receipts by hex number, decimal number and block hash', async () => {
    const byHex = result<Receipt[]>(await rpc(url, 'eth_getBlockReceipts', [hex(seed.busyBlock)]));
    assert.deepEqual(byHex.map((r) => r.transactionHash).sort(), busyTransactions());
    const statusOf = (hash: Hex) => byHex.find((r) => r.transactionHash === hash)?.status;
    assert.equal(statusOf(seed.transactions.store), '0x1');
    assert.equal(statusOf(seed.transactions.legacyTransfer), '0x1');
    assert.equal(statusOf(seed.transactions.failed), '0x0');
    const byDecimal = result<Receipt[]>(await rpc(url, 'eth_getBlockReceipts', [seed.busyBlock.toString()]));
    assert.deepEqual(byDecimal, byHex);
    const block = await client.getBlock({ blockNumber: seed.busyBlock });
    const byHash = result<Receipt[]>(await rpc(url, 'eth_getBlockReceipts', [block.hash]));
    assert.deepEqual(byHash, byHex);
  });

  test('pending returns the same receipts as latest; earliest is the empty genesis', async () => {
    const latest = result<Receipt[]>(await rpc(url, 'eth_getBlockReceipts', ['latest']));
    assert.deepEqual(
      latest.map((r) => r.transactionHash),
      [seed.transactions.legacyStore],
    );
    const pending = result<Receipt[]>(await rpc(url, 'eth_getBlockReceipts', ['pending']));
    assert.deepEqual(pending, latest);
    assert.deepEqual(result(await rpc(url, 'eth_getBlockReceipts', ['earliest'])), []);
    for (const tag of ['safe', 'finalized']) {
      assert.ok(Array.isArray(result(await rpc(url, 'eth_getBlockReceipts', [tag]))), tag);
    }
  });

  test('a block that does not exist has null receipts', async () => {
    assert.equal(result(await rpc(url, 'eth_getBlockReceipts', ['0xffffff'])), null);
    assert.equal(result(await rpc(url, 'eth_getBlockReceipts', [MISSING_HASH])), null);
  });
});

describe('eth_call', () => {
  test('reads the contract with and without from, through data and through input', async () => {
    const viaViem = await client.readContract({
      address: seed.demoContract,
      abi: PorticoDemo.abi,
      functionName: 'value',
    });
    assert.equal(viaViem, 1234n);
    const decode = (data: Hex) => decodeFunctionResult({ abi: PorticoDemo.abi, functionName: 'value', data });
    const from = seed.accounts[0];
    for (const call of [
      { to: seed.demoContract, data: valueCall },
      { to: seed.demoContract, input: valueCall },
      { from, to: seed.demoContract, data: valueCall },
      { from, to: seed.demoContract, input: valueCall },
      { from, to: seed.demoContract, input: valueCall, data: valueCall },
    ]) {
      assert.equal(
        decode(result<Hex>(await rpc(url, 'eth_call', [call, 'latest']))),
        1234n,
        JSON.stringify(call),
      );
    }
  });

  test('a block parameter selects the state: the constructor value at the deployment block', async () => {
    const deploy = await client.getTransactionReceipt({ hash: seed.transactions.deploy });
    const atDeploy = await client.readContract({
      address: seed.demoContract,
      abi: PorticoDemo.abi,
      functionName: 'value',
      blockNumber: deploy.blockNumber,
    });
    assert.equal(atDeploy, 42n);
    const atBusy = result<Hex>(
      await rpc(url, 'eth_call', [{ to: seed.demoContract, data: valueCall }, hex(seed.busyBlock)]),
    );
    assert.equal(BigInt(atBusy), 7n);
  });
});

describe('eth_estimateGas', () => {
  test('estimates with and without a block parameter', async () => {
    const call = {
      from: seed.accounts[0],
      to: seed.demoContract,
      data: encodeFunctionData({ abi: PorticoDemo.abi, functionName: 'store', args: [99n] }),
    };
    const withoutBlock = BigInt(result<Hex>(await rpc(url, 'eth_estimateGas', [call])));
    const withLatest = BigInt(result<Hex>(await rpc(url, 'eth_estimateGas', [call, 'latest'])));
    assert.ok(withoutBlock > 21_000n, `estimate ${withoutBlock}`);
    assert.equal(withLatest, withoutBlock);
    const viaViem = await client.estimateGas({ account: seed.accounts[1], to: seed.accounts[2], value: 1n });
    assert.equal(viaViem, 21_000n);
  });
});

// Last: it leaves a transaction in anvil's pending block (automine off), then mines it.
describe('pending semantics with a transaction waiting to be mined', () => {
  test('a pending transaction has null blockHash, blockNumber and transactionIndex, and no receipt', async () => {
    result(await rpc(stack.anvil.url, 'evm_setAutomine', [false]));
    try {
      const hash = result<Hex>(
        await rpc(stack.anvil.url, 'eth_sendTransaction', [
          { from: seed.accounts[3], to: seed.accounts[4], value: '0x1' },
        ]),
      );
      const check = (tx: Record<string, unknown> | null, where: string) => {
        assert.ok(tx, where);
        assert.equal(tx.hash, hash, where);
        assert.equal(tx.blockHash, null, where);
        assert.equal(tx.blockNumber, null, where);
        assert.equal(tx.transactionIndex, null, where);
      };
      check(result(await rpc(url, 'eth_getTransactionByHash', [hash])), 'by hash');
      // Not checked: eth_getTransactionByBlockNumberAndIndex('pending', i) — anvil 1.7.1 answers null
      // there even while its pending block holds the transaction (reported to the lead).
      const pending = result<Block>(await rpc(url, 'eth_getBlockByNumber', ['pending', true]));
      assert.equal(pending.hash, null);
      assert.equal(pending.number, null);
      check(pending.transactions[0] as Record<string, unknown>, 'in the pending block');
      const pendingHashes = result<Block>(await rpc(url, 'eth_getBlockByNumber', ['pending', false]));
      assert.deepEqual(pendingHashes.transactions, [hash]);
      assert.equal(
        result(await rpc(url, 'eth_getTransactionReceipt', [hash])),
        null,
        'no receipt while pending',
      );
      const latest = result<Block>(await rpc(url, 'eth_getBlockByNumber', ['latest', false]));
      assert.equal(latest.transactions.includes(hash), false, 'latest does not hold it yet');

      result(await rpc(stack.anvil.url, 'evm_mine', []));
      const mined = result<Receipt>(await rpc(url, 'eth_getTransactionReceipt', [hash]));
      assert.equal(mined.status, '0x1', 'mined, it has a receipt');
    } finally {
      await rpc(stack.anvil.url, 'evm_setAutomine', [true]);
    }
  });
});
