// Hedged requests: a read an upstream sits on is also sent to the next upstream and answered by
// whichever answers first; writes are never sent twice. The slow node is a real anvil behind an
// HTTP proxy the test can make hold its requests (a node that hangs cannot be made on demand).
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { type Anvil, startAnvil } from '@portico/devchain';
import { privateKeyToAccount } from 'viem/accounts';
import { ConfigError } from '../src/config/config.ts';
import { type Gateway, parseConfig, startGateway } from '../src/index.ts';
import { evmMethodTable } from '../src/methods/evm/methods.ts';
import { HttpUpstream } from '../src/upstream/http-upstream.ts';
import { UpstreamPool } from '../src/upstream/upstream-pool.ts';
import { postOnly } from './harness.ts';
import { eventually } from './shared-services.ts';

/** anvil's first development account (its well-known test key). */
const ANVIL_ACCOUNT_0 = privateKeyToAccount(
  '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
);

const ACCOUNTS = [
  '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
  '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
  '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
  '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65',
  '0x9965507D1a55bcC2695C58be3e0aDE8C4E9b6f0a',
];

/** An HTTP proxy to a node that holds every request while `hold` is on, until released. */
async function startHoldingProxy(target: string) {
  const held: (() => void)[] = [];
  const state = { hold: false, received: 0, abandoned: 0, methods: [] as string[] };
  const server: Server = createServer(
    postOnly(async (request: IncomingMessage, response: ServerResponse) => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks).toString();
      state.received += 1;
      state.methods.push((JSON.parse(body) as { method: string }).method);
      if (state.hold) {
        let answered = false;
        response.on('close', () => {
          if (!answered) state.abandoned += 1;
        });
        await new Promise<void>((resolve) => held.push(resolve));
        answered = true;
      }
      if (response.destroyed) return;
      const upstream = await fetch(target, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      response.writeHead(upstream.status, { 'content-type': 'application/json' });
      response.end(await upstream.text());
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    state,
    release() {
      state.hold = false;
      for (const resume of held.splice(0)) resume();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function direct(url: string, method: string, params: unknown[]) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return ((await response.json()) as { result: unknown }).result;
}

/** Waits up to 10 s for `condition`, then fails with `what`. */
async function until(condition: () => boolean | Promise<boolean>, what: string) {
  assert.ok(await eventually(condition, 500, 20), what);
}

describe('hedged requests', () => {
  let anvil: Anvil;
  let proxy: Awaited<ReturnType<typeof startHoldingProxy>>;
  let gateway: Gateway;
  let url: string;

  before(async () => {
    anvil = await startAnvil();
    proxy = await startHoldingProxy(anvil.url);
    gateway = await startGateway(
      parseConfig({
        port: 0,
        logLevel: 'silent',
        networks: [
          {
            name: 'local',
            chainId: 'eip155:31337',
            upstreams: [proxy.url, anvil.url],
            // One head poll at start; the test's calls are the only traffic after it.
            headPollMs: 600_000,
            timeoutMs: 120_000,
            cache: false,
            blockTags: 'upstream',
            hedge: { afterMs: 50 },
          },
        ],
      }),
    );
    const { key } = await gateway.keys.create({ name: 'hedge' });
    url = `${gateway.networks[0].baseUrl}/v3/${key}`;
    await until(() => proxy.state.received >= 3, 'the first head poll reached the proxy');
  });
  after(async () => {
    proxy?.release();
    await gateway?.close();
    await proxy?.close();
    await anvil?.stop();
  });

  test('reads held by one upstream are answered by the other, and the held calls are abandoned', async () => {
    proxy.state.hold = true;
    const before = proxy.state.received;
    for (const account of ACCOUNTS) {
      const viaGateway = await direct(url, 'eth_getBalance', [account, 'latest']);
      assert.equal(viaGateway, await direct(anvil.url, 'eth_getBalance', [account, 'latest']));
    }
    const sentToHeldProxy = proxy.state.received - before;
    // Round-robin puts the held upstream first for half of the calls: each of those was hedged.
    assert.ok(sentToHeldProxy >= 1, 'some calls went to the held upstream first');
    await until(() => proxy.state.abandoned === sentToHeldProxy, 'every held call was abandoned');

    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    const count = (outcome: string) =>
      Number(
        new RegExp(`portico_upstream_hedges_total\\{network="local",outcome="${outcome}"\\} (\\d+)`).exec(
          metrics,
        )?.[1],
      );
    // Calls that met the held upstream first were hedged and won by the hedge; on a busy machine a
    // slow answer from anvil can also be hedged (to the held proxy), which the hedge then loses.
    assert.ok(count('won') >= 1 && count('won') <= sentToHeldProxy, `hedges won: ${count('won')}`);
    assert.ok(
      count('sent') >= count('won') && count('sent') <= ACCOUNTS.length,
      `hedges sent: ${count('sent')}`,
    );

    // An abandoned hedge is not a failure: the held upstream's breaker stays closed.
    proxy.release();
    const report = (await (await fetch(`${gateway.url}/readyz`)).json()) as {
      networks: Record<string, { upstreams: { breaker: string }[] }>;
    };
    assert.equal(report.networks.local.upstreams[0].breaker, 'closed');
  });
});

describe('writes are never hedged', () => {
  let anvil: Anvil;
  let proxy: Awaited<ReturnType<typeof startHoldingProxy>>;

  before(async () => {
    anvil = await startAnvil();
    proxy = await startHoldingProxy(anvil.url);
  });
  after(async () => {
    proxy?.release();
    await proxy?.close();
    await anvil?.stop();
  });

  test('eth_sendRawTransaction held by the first upstream waits for it and runs exactly once', async () => {
    // A fresh pool tries its members in order: the held proxy first. The second member records
    // what the pool asks of it: a write must never be asked twice.
    const second = new HttpUpstream(anvil.url);
    const askedOfSecond: string[] = [];
    const callSecond = second.call.bind(second);
    second.call = (method, params, signal) => {
      askedOfSecond.push(method);
      return callSecond(method, params, signal);
    };
    // The writes are the EVM method specs' (as the gateway builds its pools).
    const pool = new UpstreamPool([new HttpUpstream(proxy.url), second], {
      hedgeAfterMs: 10,
      writes: evmMethodTable().writes,
    });
    const [from, to] = ACCOUNTS;
    const nonceBefore = await direct(anvil.url, 'eth_getTransactionCount', [from, 'latest']);
    const signed = await ANVIL_ACCOUNT_0.signTransaction({
      chainId: 31337,
      type: 'eip1559',
      to: to as `0x${string}`,
      value: 1n,
      nonce: Number(BigInt(nonceBefore as string)),
      gas: 21_000n,
      maxFeePerGas: 10n ** 10n,
      maxPriorityFeePerGas: 1n,
    });
    assert.equal(ANVIL_ACCOUNT_0.address, from);
    proxy.state.hold = true;
    const sending = pool.call('eth_sendRawTransaction', [signed]);
    await until(
      () => proxy.state.methods.includes('eth_sendRawTransaction'),
      'the write reached the held upstream',
    );
    // Node runs due timers in the order of their deadlines: once this timer (set after the hedge
    // timer, for longer) has fired, a wrong hedge would already have been asked of the second
    // member, however slow the machine.
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(askedOfSecond, [], 'a write held by the first upstream is not hedged');
    proxy.release();
    const reply = await sending;
    assert.equal(reply.ok, true, JSON.stringify(reply));
    // anvil answers with the hash before the block is in `latest` when the machine is busy: the
    // count is read once the transaction's receipt is there.
    const hash = reply.ok ? reply.result.value : undefined;
    await until(
      async () => (await direct(anvil.url, 'eth_getTransactionReceipt', [hash])) !== null,
      'the transaction was mined',
    );
    const nonceAfter = await direct(anvil.url, 'eth_getTransactionCount', [from, 'latest']);
    assert.equal(BigInt(nonceAfter as string) - BigInt(nonceBefore as string), 1n, 'sent exactly once');
    assert.deepEqual(askedOfSecond, [], 'never sent to the second upstream');
    await pool.close();
  });
});

describe('hedge configuration', () => {
  const network = (hedge: unknown) =>
    parseConfig({ networks: [{ name: 'n', chainId: 'eip155:1', upstreams: ['http://a.example'], hedge }] })
      .networks[0];

  test('off unless asked for; afterMs is a positive integer; unknown fields are refused by name', () => {
    assert.equal(network(undefined).hedge, undefined);
    assert.deepEqual(network({ afterMs: 150 }).hedge, { afterMs: 150 });
    assert.throws(() => network({ afterMs: 0 }), /networks\[0\]\.hedge\.afterMs must be an integer from 1/);
    assert.throws(
      () => network({ afterMs: 50, count: 2 }),
      (error: unknown) => {
        return error instanceof ConfigError && /hedge has unknown field\(s\): count/.test(error.message);
      },
    );
  });
});
