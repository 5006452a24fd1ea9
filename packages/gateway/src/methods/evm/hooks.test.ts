import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JsonResult } from '../../rpc/json-result.ts';
import { evmHooks } from './hooks.ts';

const agreed = { latest: 255, safe: 250, finalized: 240 };

test('eth_blockNumber is answered from the agreed head; other tags are pinned', () => {
  assert.deepEqual(evmHooks.pinBlockTags?.('eth_blockNumber', [], agreed), { answer: '0xff' });
  assert.deepEqual(evmHooks.pinBlockTags?.('eth_getBalance', ['0x00', 'safe'], agreed), {
    params: ['0x00', '0xfa'],
  });
});

test('the block a request names: null beyond the heads only for methods that name a block by number', () => {
  assert.deepEqual(evmHooks.requestedBlock?.('eth_getBlockByNumber', ['0x10', false]), {
    block: 16,
    nullBeyondHeads: true,
  });
  assert.deepEqual(evmHooks.requestedBlock?.('eth_getBalance', ['0x00', '0x10']), {
    block: 16,
    nullBeyondHeads: false,
  });
  assert.equal(evmHooks.requestedBlock?.('eth_getBlockByNumber', ['latest', false]), undefined);
  assert.equal(evmHooks.requestedBlock?.('eth_getBlockByNumber', ['0xnothex', false]), undefined);
});

test('reverts are shaped to code 3 with the decoded reason; other errors pass as they are', () => {
  // Error(string) "no" = selector 0x08c379a0 + ABI-encoded string
  const data =
    '0x08c379a0' +
    '0000000000000000000000000000000000000000000000000000000000000020' +
    '0000000000000000000000000000000000000000000000000000000000000002' +
    '6e6f000000000000000000000000000000000000000000000000000000000000';
  assert.deepEqual(evmHooks.shapeError?.({ code: -32000, message: 'execution reverted', data }), {
    code: 3,
    message: 'execution reverted: no',
    data,
  });
  const other = { code: -32000, message: 'nonce too low' };
  assert.equal(evmHooks.shapeError?.(other), other);
});

test('an eth_blockNumber answer reports the upstream head; other answers report none', () => {
  assert.equal(evmHooks.headOfAnswer?.('eth_blockNumber', JsonResult.ofText('"0x1f"')), 31);
  assert.equal(evmHooks.headOfAnswer?.('eth_blockNumber', JsonResult.ofText('"oops"')), undefined);
  assert.equal(evmHooks.headOfAnswer?.('eth_chainId', JsonResult.ofText('"0x1f"')), undefined);
});

test('a receipt or a mined transaction reports its block, read from the node’s text; a pending one, garbage or null none', () => {
  const head = (method: string, text: string) => evmHooks.headOfAnswer?.(method, JsonResult.ofText(text));
  const receipt =
    '{"blockHash":"0xab","blockNumber" : "0x1a2b","logs":[{"blockNumber":"0x1a2b","logIndex":"0x0"}],"status":"0x1"}';
  assert.equal(head('eth_getTransactionReceipt', receipt), 0x1a2b);
  assert.equal(head('eth_getTransactionByHash', '{"hash":"0x55","blockNumber":"0x10","input":"0x"}'), 16);
  // Pending: no block yet, and no number elsewhere in it.
  assert.equal(
    head('eth_getTransactionByHash', '{"hash":"0x55","blockNumber":null,"input":"0x"}'),
    undefined,
  );
  assert.equal(head('eth_getTransactionReceipt', 'null'), undefined);
  // Not JSON: no head, and no throw (the answer itself is judged elsewhere).
  assert.equal(head('eth_getTransactionReceipt', '{"blockNumber":'), undefined);
  // Other methods' blockNumber fields say nothing of a head.
  assert.equal(head('eth_call', '{"blockNumber":"0x10"}'), undefined);
});
