// Walks every method spec: each is well formed, and the tables derived from it (block positions,
// tag pinning, blocks beyond the head, the cache rule, writes) say what the spec says. The README's
// credit table is generated from the specs and kept equal here.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { DEFAULT_SUBSCRIPTION_COSTS } from '../types.ts';
import { blockParameterOf, pinBlockTags } from './evm/block-tags.ts';
import { evmCacheDecision, evmHooks } from './evm/hooks.ts';
import { evmMethodTable } from './evm/methods.ts';
import { EVM_METHOD_SPECS, EVM_SPEC_METHOD_NAMES } from './evm/spec.ts';
import { SOLANA_METHOD_SPECS, solanaMethodTable } from './solana/methods.ts';
import type { MethodSpecs } from './types.ts';

const agreed = { latest: 255, safe: 250, finalized: 240 };
const README = new URL('../../../../README.md', import.meta.url);

function assertWellFormed(specs: MethodSpecs) {
  for (const [name, spec] of Object.entries(specs)) {
    if (spec.cost !== 'passthrough')
      assert.ok(Number.isInteger(spec.cost) && spec.cost >= 0, `${name}: cost ${spec.cost}`);
    if (spec.cost !== 'passthrough') assert.ok(spec.check && spec.accepts, `${name}: a priced method checks`);
    if (spec.cache === 'byBlock' || spec.nullBeyondHead)
      assert.notEqual(
        spec.blockParam,
        undefined,
        `${name}: its cache and head rules need the block parameter`,
      );
    if (spec.write) assert.equal(spec.cache, undefined, `${name}: a write is never cached`);
  }
}

test('every spec is well formed, on both kinds', () => {
  assertWellFormed(EVM_METHOD_SPECS);
  assertWellFormed(SOLANA_METHOD_SPECS);
});

test('the nine methods of the gateway spec carry its prices', () => {
  const prices = Object.fromEntries(EVM_SPEC_METHOD_NAMES.map((name) => [name, EVM_METHOD_SPECS[name].cost]));
  assert.deepEqual(prices, {
    eth_getBlockByHash: 80,
    eth_getBlockByNumber: 80,
    eth_getUncleByBlockNumberAndIndex: 150,
    eth_getTransactionByBlockNumberAndIndex: 150,
    eth_getTransactionByHash: 80,
    eth_getTransactionReceipt: 80,
    eth_getBlockReceipts: 1000,
    eth_call: 80,
    eth_estimateGas: 300,
  });
});

test('each EVM method with a block parameter: found, pinned, and (by its spec) null beyond the head and cached by block', () => {
  for (const [name, spec] of Object.entries(EVM_METHOD_SPECS)) {
    const params: unknown[] = ['0x01', '0x02', '0x03'];
    if (spec.blockParam === undefined) {
      assert.equal(blockParameterOf(name, params), undefined, name);
      assert.equal(pinBlockTags(name, params, agreed), params, `${name} has no tag to pin`);
      continue;
    }
    params[spec.blockParam] = '0x10';
    assert.equal(blockParameterOf(name, params), '0x10', name);
    assert.deepEqual(evmHooks.requestedBlock?.(name, params), {
      block: 16,
      nullBeyondHeads: spec.nullBeyondHead === true,
    });
    const tagged = [...params];
    tagged[spec.blockParam] = 'safe';
    assert.equal(pinBlockTags(name, tagged, agreed)[spec.blockParam], '0xfa', `${name}: safe pinned`);
    if (spec.cache === 'byBlock') {
      assert.deepEqual(evmCacheDecision(name, params), { cacheable: true, block: 16 }, name);
      assert.deepEqual(evmCacheDecision(name, tagged), { cacheable: false }, `${name}: a moving tag`);
    }
  }
});

test('the cache rule of every EVM method follows its spec', () => {
  for (const [name, spec] of Object.entries(EVM_METHOD_SPECS)) {
    const decision = evmCacheDecision(name, ['0x'.padEnd(66, 'a'), '0x5']);
    if (spec.cache === undefined) assert.deepEqual(decision, { cacheable: false }, name);
    if (spec.cache === 'always') assert.deepEqual(decision, { cacheable: true, alwaysFinal: true }, name);
    if (spec.cache === 'byHash') assert.deepEqual(decision, { cacheable: true }, name);
  }
  // Calls with overrides are not cached: the overrides change the answer.
  assert.deepEqual(evmCacheDecision('eth_call', [{}, '0x5', {}]), { cacheable: false });
  assert.deepEqual(evmCacheDecision('eth_call', [{}, '0x5']), { cacheable: true, block: 5 });
});

test('writes are exactly the methods that change state', () => {
  assert.deepEqual([...evmMethodTable().writes].sort(), [
    'eth_getFilterChanges',
    'eth_newBlockFilter',
    'eth_newFilter',
    'eth_newPendingTransactionFilter',
    'eth_sendRawTransaction',
    'eth_uninstallFilter',
  ]);
  assert.deepEqual([...solanaMethodTable().writes].sort(), ['requestAirdrop', 'sendTransaction']);
});

test("the contracts a call touches come from its spec: a key's allowedContracts reads them for exactly these methods", () => {
  const named = Object.entries(EVM_METHOD_SPECS)
    .filter(([, spec]) => spec.contracts)
    .map(([name]) => name)
    .sort();
  assert.deepEqual(named, [
    'eth_call',
    'eth_createAccessList',
    'eth_estimateGas',
    'eth_getCode',
    'eth_getLogs',
    'eth_getStorageAt',
  ]);
  const to = '0x00000000000000000000000000000000000000aa';
  const contractsOf = (name: string, params: unknown[]) => EVM_METHOD_SPECS[name].contracts?.(params);
  assert.deepEqual(contractsOf('eth_call', [{ to }, 'latest']), [to]);
  assert.deepEqual(contractsOf('eth_call', ['not an object']), [], 'no contract found is none, not all');
  assert.deepEqual(contractsOf('eth_getCode', [to, 'latest']), [to]);
  assert.deepEqual(contractsOf('eth_getLogs', [{ address: [to, to] }]), [to, to]);
  assert.deepEqual(contractsOf('eth_getLogs', [{ address: to }]), [to]);
  assert.deepEqual(contractsOf('eth_getLogs', [{}]), []);
  // The network's table carries them into the rules the pipeline enforces.
  assert.equal(evmMethodTable().rules.get('eth_getLogs')?.contracts, EVM_METHOD_SPECS.eth_getLogs.contracts);
});

test('prices: passthrough methods take the network passthroughCost; methodCosts overrides any method', () => {
  const table = evmMethodTable(25, 10_000, { eth_call: 120, eth_getBalance: 7 });
  assert.equal(table.rules.get('eth_call')?.cost, 120);
  assert.equal(table.rules.get('eth_getBalance')?.cost, 7);
  assert.equal(table.rules.get('eth_chainId')?.cost, 25);
  assert.equal(table.rules.get('eth_getLogs')?.cost, 25);
  assert.equal(table.rules.get('eth_estimateGas')?.cost, 300);
  assert.equal(table.rules.get('constructor'), undefined);
  assert.equal(
    solanaMethodTable(9, { getSignaturesForAddress: 200 }).rules.get('getSignaturesForAddress')?.cost,
    200,
  );
  assert.equal(solanaMethodTable(9).rules.get('getBalance')?.cost, 9);
});

/** The README's credit table, as the specs give it. */
function creditTable(): string {
  const rows = EVM_SPEC_METHOD_NAMES.map((name) => {
    const spec = EVM_METHOD_SPECS[name];
    return `| ${name} | ${spec.cost} | ${spec.accepts} |`;
  });
  const common = [
    'eth_chainId',
    'eth_blockNumber',
    'eth_getBalance',
    'eth_getLogs',
    'eth_sendRawTransaction',
    'eth_feeHistory',
    'net_version',
  ];
  const { newHeads, logs } = DEFAULT_SUBSCRIPTION_COSTS;
  return [
    '| method | credits | parameters (checked before any upstream call) |',
    '|---|---|---|',
    ...rows,
    `| other common methods (${common.join(', ')}, …) | 80 (\`passthroughCost\`) | forwarded as they are |`,
    '| eth_subscribe (WebSocket only) | 80 (`passthroughCost`) | `newHeads` (no filter) or `logs` (optional filter object), at most 100 per connection |',
    '| eth_unsubscribe (WebSocket only) | 0 | the subscription id |',
    `| each \`eth_subscription\` notification of a \`newHeads\` subscription | ${newHeads} (\`subscriptionCosts.newHeads\`) | — |`,
    `| each \`eth_subscription\` notification of a \`logs\` subscription | ${logs} (\`subscriptionCosts.logs\`) | — |`,
  ].join('\n');
}

test("the README's credit table is the one the specs give", () => {
  const readme = readFileSync(README, 'utf8');
  const start = readme.indexOf('\n', readme.indexOf('<!-- generated from the EVM method specs')) + 1;
  const end = readme.indexOf('<!-- end of the generated table -->');
  assert.ok(start > 0 && end > start, 'the README marks its generated table');
  const expected = `${creditTable()}\n`;
  if (process.env.UPDATE_README === '1') {
    writeFileSync(README, readme.slice(0, start) + expected + readme.slice(end));
    return;
  }
  assert.equal(
    readme.slice(start, end),
    expected,
    'record the table with UPDATE_README=1 npm test -- methods/spec',
  );
});
