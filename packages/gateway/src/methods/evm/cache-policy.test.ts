import assert from 'node:assert/strict';
import { test } from 'node:test';
import { blockOfResult } from './cache-policy.ts';
import { evmCacheDecision } from './hooks.ts';

const HASH = `0x${'ab'.repeat(32)}`;

test('the chain id is final whatever the block', () => {
  assert.deepEqual(evmCacheDecision('eth_chainId', []), { cacheable: true, alwaysFinal: true });
  assert.deepEqual(evmCacheDecision('net_version', []), { cacheable: true, alwaysFinal: true });
});

test('lookups by hash are cacheable; their block comes from the result', () => {
  assert.deepEqual(evmCacheDecision('eth_getTransactionReceipt', [HASH]), { cacheable: true });
  assert.deepEqual(evmCacheDecision('eth_getBlockByHash', [HASH, false]), { cacheable: true });
});

test('a block by number is cacheable at that number; moving tags never are', () => {
  assert.deepEqual(evmCacheDecision('eth_getBlockByNumber', ['0x10', false]), { cacheable: true, block: 16 });
  for (const tag of ['latest', 'pending', 'safe', 'finalized'])
    assert.deepEqual(evmCacheDecision('eth_getBlockByNumber', [tag, false]), { cacheable: false });
  assert.deepEqual(evmCacheDecision('eth_getBlockByNumber', ['earliest', false]), {
    cacheable: true,
    alwaysFinal: true,
  });
});

test('eth_call is cacheable at a fixed block (number, hash or EIP-1898 object), not with overrides', () => {
  const call = { to: `0x${'11'.repeat(20)}`, data: '0x' };
  assert.deepEqual(evmCacheDecision('eth_call', [call, '0x5']), { cacheable: true, block: 5 });
  assert.deepEqual(evmCacheDecision('eth_call', [call, { blockHash: HASH }]), { cacheable: true });
  assert.deepEqual(evmCacheDecision('eth_call', [call, { blockNumber: '0x6' }]), {
    cacheable: true,
    block: 6,
  });
  assert.deepEqual(evmCacheDecision('eth_call', [call, 'latest']), { cacheable: false });
  assert.deepEqual(evmCacheDecision('eth_call', [call, '0x5', {}]), { cacheable: false });
  assert.deepEqual(evmCacheDecision('eth_call', [call]), { cacheable: false });
});

test('eth_getLogs is cacheable over a range fixed by numbers, at its last block; tags and open ranges are not', () => {
  const logs = (filter: Record<string, unknown>) => evmCacheDecision('eth_getLogs', [filter]);
  assert.deepEqual(logs({ fromBlock: '0x1', toBlock: '0xa' }), { cacheable: true, block: 10 });
  assert.deepEqual(logs({ fromBlock: 'earliest', toBlock: '0x2', address: `0x${'11'.repeat(20)}` }), {
    cacheable: true,
    block: 2,
  });
  assert.deepEqual(logs({ blockHash: HASH }), { cacheable: true });
  for (const filter of [
    {},
    { fromBlock: '0x1' },
    { fromBlock: '0x1', toBlock: 'latest' },
    { fromBlock: 'safe', toBlock: '0x5' },
    { fromBlock: '0x1', toBlock: 'pending' },
    { fromBlock: '0x1', toBlock: 10 },
    { fromBlock: '0x1', toBlock: '0x1g' },
    { blockHash: 7 },
  ])
    assert.deepEqual(logs(filter), { cacheable: false }, JSON.stringify(filter));
  assert.deepEqual(evmCacheDecision('eth_getLogs', []), { cacheable: false });
});

test('other methods are not cached', () => {
  assert.deepEqual(evmCacheDecision('eth_getBalance', [`0x${'11'.repeat(20)}`, '0x1']), { cacheable: false });
  assert.deepEqual(evmCacheDecision('eth_sendRawTransaction', ['0x00']), { cacheable: false });
});

test('the block of a result: blocks, transactions, receipts and receipt lists', () => {
  assert.equal(blockOfResult({ number: '0x1f' }), 31);
  assert.equal(blockOfResult({ blockNumber: '0x20', number: '0x1' }), 32);
  assert.equal(blockOfResult([{ blockNumber: '0x21' }]), 33);
  assert.equal(blockOfResult(null), undefined);
  assert.equal(blockOfResult({ blockNumber: 7 }), undefined);
  // A node's malformed number (it used to throw, and the client got "Internal error in the gateway").
  for (const wrong of ['0x', '0xzz', `0x${'1'.repeat(17)}`])
    assert.equal(blockOfResult({ blockNumber: wrong }), undefined, wrong);
});
