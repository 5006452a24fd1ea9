// A pruned node beside an archive node (both real anvils; the pruned one with --prune-history):
// a historical call never reaches the client as the pruned node's error while the archive node is
// up, the gateway learns the oldest state the pruned node holds, and alone it answers as it can.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Anvil, startAnvil } from '@portico/devchain';
import type { ApiKeyRecord, Gateway } from '@portico/gateway';
import { gatewayFor, post, rpc } from './harness.ts';

let archive: Anvil;
let pruned: Anvil;
let gateway: Gateway;
let record: ApiKeyRecord;
let key: string;

const ACCOUNT = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'; // anvil's first dev account
const GENESIS_BALANCE = '0x21e19e0c9bab2400000'; // 10000 ETH

type State = { name: string; head: number; oldestState: number };
async function upstreamsOf(network: string): Promise<State[]> {
  const reply = await post(`${gateway.url}/readyz`, undefined, { method: 'GET' });
  return (reply.body as { networks: Record<string, { upstreams: State[] }> }).networks[network].upstreams;
}

before(async () => {
  [archive, pruned] = await Promise.all([startAnvil(), startAnvil({ extraArgs: ['--prune-history', '10'] })]);
  for (const node of [archive, pruned]) {
    await post(node.url, { jsonrpc: '2.0', id: 1, method: 'anvil_mine', params: ['0x12c'] }); // 300 blocks
  }
  const common = { chainId: 'eip155:31337', cache: false, headPollMs: 200 };
  gateway = await gatewayFor(archive.url, {
    extraNetworks: [
      {
        ...common,
        name: 'history',
        upstreams: [
          { url: pruned.url, name: 'pruned' },
          { url: archive.url, name: 'archive' },
        ],
      },
      { ...common, name: 'alone', upstreams: [{ url: pruned.url, name: 'pruned' }] },
    ],
  });
  const created = await gateway.keys.create({ name: 'history', dailyCredits: 1_000_000 });
  record = created.record;
  key = created.key;
  for (let i = 0; i < 300; i++) {
    const heads = [...(await upstreamsOf('history')), ...(await upstreamsOf('alone'))].map((u) => u.head);
    if (heads.every((head) => head === 300)) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
});
after(async () => {
  await gateway?.close();
  await Promise.all([archive?.stop(), pruned?.stop()]);
});

describe('pruned and archive nodes', () => {
  test('a historical call is answered by the archive node, never as the pruned node’s error', async () => {
    const spent = await gateway.ledger.spent(record.id);
    // Round-robin starts every other call at the pruned node.
    for (let i = 0; i < 4; i++) {
      const reply = await rpc(`${gateway.url}/history/v3/${key}`, 'eth_getBalance', [ACCOUNT, '0x1']);
      assert.equal(reply.body.result, GENESIS_BALANCE, reply.text);
    }
    assert.equal(await gateway.ledger.spent(record.id), spent + 4 * 80, 'each answer charged once');
    assert.deepEqual(
      (await upstreamsOf('history')).map((u) => [u.name, u.oldestState]),
      [
        ['pruned', 2],
        ['archive', 0],
      ],
      'the gateway learned the oldest state the pruned node holds',
    );
    const recent = await rpc(`${gateway.url}/history/v3/${key}`, 'eth_getBalance', [ACCOUNT, '0x12c']);
    assert.equal(recent.body.result, GENESIS_BALANCE, 'recent state is served as before');
  });

  test('with only the pruned node, its answer reaches the client and costs nothing', async () => {
    const spent = await gateway.ledger.spent(record.id);
    const reply = await rpc(`${gateway.url}/alone/v3/${key}`, 'eth_getBalance', [ACCOUNT, '0x1']);
    assert.equal(reply.body.result, undefined, reply.text);
    assert.match(reply.body.error?.message ?? '', /BlockOutOfRange/);
    assert.equal(await gateway.ledger.spent(record.id), spent);
  });
});
