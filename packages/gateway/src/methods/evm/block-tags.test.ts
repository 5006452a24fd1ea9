import assert from 'node:assert/strict';
import { test } from 'node:test';
import { blockParameterOf, pinBlockTags } from './block-tags.ts';

const agreed = { latest: 100, safe: 90, finalized: 80 };
const ADDRESS = `0x${'11'.repeat(20)}`;

test('blockParameterOf finds the block parameter of each method, inside an EIP-1898 object too', () => {
  assert.equal(blockParameterOf('eth_getBalance', [ADDRESS, '0x5']), '0x5');
  assert.equal(blockParameterOf('eth_getStorageAt', [ADDRESS, '0x0', 'latest']), 'latest');
  assert.equal(blockParameterOf('eth_call', [{}, { blockNumber: '0x7' }]), '0x7');
  assert.equal(blockParameterOf('eth_getBalance', [ADDRESS]), undefined);
  assert.equal(blockParameterOf('eth_chainId', []), undefined);
});

test('latest, safe and finalized become the agreed numbers; pending, earliest and numbers stay', () => {
  assert.deepEqual(pinBlockTags('eth_getBalance', [ADDRESS, 'latest'], agreed), [ADDRESS, '0x64']);
  assert.deepEqual(pinBlockTags('eth_getBalance', [ADDRESS, 'safe'], agreed), [ADDRESS, '0x5a']);
  assert.deepEqual(pinBlockTags('eth_getBalance', [ADDRESS, 'finalized'], agreed), [ADDRESS, '0x50']);
  for (const kept of ['pending', 'earliest', '0x3']) {
    const params = [ADDRESS, kept];
    assert.equal(
      pinBlockTags('eth_getBalance', params, agreed),
      params,
      'the same array when nothing changes',
    );
  }
});

test('a tag in an EIP-1898 object is pinned inside it; a block hash is left alone', () => {
  assert.deepEqual(pinBlockTags('eth_call', [{}, { blockNumber: 'latest' }], agreed), [
    {},
    { blockNumber: '0x64' },
  ]);
  const byHash = [{}, { blockHash: `0x${'ab'.repeat(32)}` }];
  assert.equal(pinBlockTags('eth_call', byHash, agreed), byHash);
});

test('an unknown height is not pinned', () => {
  const params = [ADDRESS, 'finalized'];
  assert.equal(pinBlockTags('eth_getBalance', params, { latest: 100, safe: -1, finalized: -1 }), params);
});

test('eth_getLogs: absent bounds mean latest and are pinned; a blockHash filter is left alone', () => {
  assert.deepEqual(pinBlockTags('eth_getLogs', [{ address: ADDRESS }], agreed), [
    { address: ADDRESS, fromBlock: '0x64', toBlock: '0x64' },
  ]);
  assert.deepEqual(pinBlockTags('eth_getLogs', [{ fromBlock: '0x1', toBlock: 'finalized' }], agreed), [
    { fromBlock: '0x1', toBlock: '0x50' },
  ]);
  const byHash = [{ blockHash: `0x${'ab'.repeat(32)}` }];
  assert.equal(pinBlockTags('eth_getLogs', byHash, agreed), byHash);
});
