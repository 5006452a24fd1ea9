// A gateway in front of ganache 7.9.2 (another EVM implementation, another error dialect) and of
// anvil beside it: reverts reach the client in the spec's shape, a method ganache lacks is -32601
// naming the method and the network and costs nothing, and with both nodes it is served by anvil.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Anvil, startAnvil } from '@portico/devchain';
import type { ApiKeyRecord, Gateway } from '@portico/gateway';
import { concatHex, encodeAbiParameters, type Hex, numberToHex, size, toFunctionSelector } from 'viem';
import { type Ganache, startGanache } from './ganache.ts';
import { gatewayFor, post, remaining, rpc } from './harness.ts';

let ganache: Ganache;
let anvil: Anvil;
let gateway: Gateway;
let record: ApiKeyRecord;
let ganacheUrl: string;
let fleetUrl: string;

const DAILY = 100_000;
const FROM = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';

before(async () => {
  [ganache, anvil] = await Promise.all([startGanache(), startAnvil()]);
  gateway = await gatewayFor(ganache.url, {
    // No cache: every call of the fleet goes to an upstream.
    extraNetworks: [
      { name: 'fleet', chainId: 'eip155:31337', upstreams: [anvil.url, ganache.url], cache: false },
    ],
  });
  const created = await gateway.keys.create({ name: 'dialects', dailyCredits: DAILY });
  record = created.record;
  ganacheUrl = `${gateway.networks[0].baseUrl}/v3/${created.key}`;
  fleetUrl = `${gateway.networks[1].baseUrl}/v3/${created.key}`;
});
after(async () => {
  await gateway?.close();
  await Promise.all([ganache?.stop(), anvil?.stop()]);
});

/**
 * Init code that reverts with `payload` (CODECOPY it to memory, REVERT): an eth_call or
 * eth_estimateGas without `to` runs it on any node, no contract to deploy.
 */
function revertingInitCode(payload: Hex): Hex {
  const length = numberToHex(size(payload), { size: 2 }).slice(2);
  return `0x61${length}61000f60003961${length}6000fd${payload.slice(2)}`;
}

const cases = [
  {
    name: 'Error(string)',
    payload: concatHex(['0x08c379a0', encodeAbiParameters([{ type: 'string' }], ['not enough balance'])]),
    message: 'execution reverted: not enough balance',
  },
  {
    name: 'Panic(0x11)',
    payload: concatHex(['0x4e487b71', encodeAbiParameters([{ type: 'uint256' }], [0x11n])]),
    message: 'execution reverted: arithmetic underflow or overflow',
  },
  {
    name: 'custom error',
    payload: concatHex([
      toFunctionSelector('Unauthorized(address)'),
      encodeAbiParameters([{ type: 'address' }], [FROM]),
    ]),
    message: `execution reverted: custom error ${toFunctionSelector('Unauthorized(address)')}`,
  },
];

describe('a gateway in front of ganache 7.9.2', () => {
  for (const method of ['eth_call', 'eth_estimateGas'] as const) {
    test(`${method}: ganache's reverts reach the client as code 3 with the decoded reason and hex data`, async () => {
      for (const c of cases) {
        const call = { from: FROM, data: revertingInitCode(c.payload) };
        const reply = await rpc(ganacheUrl, method, method === 'eth_call' ? [call, 'latest'] : [call]);
        assert.equal(reply.status, 200, reply.text);
        assert.deepEqual(reply.body.error, { code: 3, message: c.message, data: c.payload }, c.name);
      }
    });
  }

  test('eth_getBlockReceipts, which ganache lacks: -32601 naming the method and the network, 0 credits', async () => {
    const before = await gateway.ledger.spent(record.id);
    for (let i = 0; i < 2; i++) {
      const reply = await rpc(ganacheUrl, 'eth_getBlockReceipts', ['latest']);
      assert.equal(reply.status, 200, reply.text);
      assert.equal(reply.body.error?.code, -32601, reply.text);
      assert.match(reply.body.error.message, /eth_getBlockReceipts/);
      assert.match(reply.body.error.message, /network local/);
      assert.equal(remaining(reply), DAILY - before);
    }
    assert.equal(await gateway.ledger.spent(record.id), before, 'nothing charged');
    await gateway.usage.flush();
    const rows = await gateway.usage.usage({ keyId: record.id });
    const row = rows.find((r) => r.method === 'eth_getBlockReceipts');
    assert.deepEqual(row && { requests: row.requests, credits: row.credits, refused: row.refused }, {
      requests: 2,
      credits: 0,
      refused: 2,
    });
  });

  test('with anvil and ganache both upstreams, eth_getBlockReceipts is served by anvil and charged', async () => {
    const before = await gateway.ledger.spent(record.id);
    // Round-robin starts each call at the next upstream: over four calls ganache is asked first at
    // least once (and refuses), anvil answers every one.
    for (let i = 0; i < 4; i++) {
      const reply = await rpc(fleetUrl, 'eth_getBlockReceipts', ['0x0']);
      assert.equal(reply.status, 200, reply.text);
      assert.ok(Array.isArray(reply.body.result), reply.text);
    }
    assert.equal(await gateway.ledger.spent(record.id), before + 4 * 1000);
    const ready = await post(`${gateway.url}/readyz`, undefined, { method: 'GET' });
    const fleet = (
      ready.body as { networks: Record<string, { upstreams: { host: string; methodsRefused: string[] }[] }> }
    ).networks.fleet;
    const ganacheHost = new URL(ganache.url).host;
    assert.deepEqual(
      fleet.upstreams.map((u) => [u.host, u.methodsRefused]),
      [
        [new URL(anvil.url).host, []],
        [ganacheHost, ['eth_getBlockReceipts']],
      ],
    );
  });
});
