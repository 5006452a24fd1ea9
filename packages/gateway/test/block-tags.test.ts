// Agreed block tags: `latest`, `safe` and `finalized` mean the same block whichever upstream serves
// the call. Unit tests of the rewrite and of the agreement, then two real anvils at different heights.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Anvil, startAnvil } from '@portico/devchain';
import { ConfigError } from '../src/config/config.ts';
import { type Gateway, parseConfig, startGateway } from '../src/index.ts';
import { pinBlockTags } from '../src/methods/evm/block-tags.ts';
import { HttpUpstream } from '../src/upstream/http-upstream.ts';
import { UpstreamPool } from '../src/upstream/upstream-pool.ts';

const AGREED = { latest: 100, safe: 90, finalized: 80 };
const ADDRESS = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';

describe('pinBlockTags', () => {
  test('latest, safe and finalized become the agreed numbers at each method’s block parameter', () => {
    assert.deepEqual(pinBlockTags('eth_getBlockByNumber', ['latest', false], AGREED), ['0x64', false]);
    assert.deepEqual(pinBlockTags('eth_getBalance', [ADDRESS, 'safe'], AGREED), [ADDRESS, '0x5a']);
    assert.deepEqual(pinBlockTags('eth_getStorageAt', [ADDRESS, '0x0', 'finalized'], AGREED), [
      ADDRESS,
      '0x0',
      '0x50',
    ]);
    assert.deepEqual(pinBlockTags('eth_call', [{ to: ADDRESS }, { blockNumber: 'latest' }], AGREED), [
      { to: ADDRESS },
      { blockNumber: '0x64' },
    ]);
  });

  test('pending, earliest, numbers, hashes and unknown heights are left alone (same array)', () => {
    for (const params of [
      ['pending', false],
      ['earliest', false],
      ['0x5', false],
      [`0x${'ab'.repeat(32)}`, false],
    ]) {
      assert.equal(pinBlockTags('eth_getBlockByNumber', params, AGREED), params);
    }
    const unknownSafe = { latest: 100, safe: -1, finalized: -1 };
    const params = [ADDRESS, 'safe'];
    assert.equal(pinBlockTags('eth_getBalance', params, unknownSafe), params);
    const noBlock = [ADDRESS];
    assert.equal(
      pinBlockTags('eth_getBalance', noBlock, AGREED),
      noBlock,
      'an omitted parameter stays omitted',
    );
    const other = ['0xdead'];
    assert.equal(pinBlockTags('eth_sendRawTransaction', other, AGREED), other);
  });

  test('eth_getLogs: bounds (absent means latest) are pinned unless the filter names a block hash', () => {
    assert.deepEqual(pinBlockTags('eth_getLogs', [{ address: ADDRESS }], AGREED), [
      { address: ADDRESS, fromBlock: '0x64', toBlock: '0x64' },
    ]);
    assert.deepEqual(pinBlockTags('eth_getLogs', [{ fromBlock: '0x1', toBlock: 'finalized' }], AGREED), [
      { fromBlock: '0x1', toBlock: '0x50' },
    ]);
    const byHash = [{ blockHash: `0x${'cd'.repeat(32)}` }];
    assert.equal(pinBlockTags('eth_getLogs', byHash, AGREED), byHash);
  });
});

describe('blockTags configuration', () => {
  const network = (extra: Record<string, unknown>) =>
    parseConfig({ networks: [{ name: 'n', chainId: 'eip155:1', upstreams: ['http://a.example'], ...extra }] })
      .networks[0];

  test('agreed by default with several EVM upstreams, pushed with one, as the upstream says on Solana', () => {
    assert.equal(network({}).blockTags, 'pushed');
    assert.equal(network({ upstreams: ['http://a.example', 'http://b.example'] }).blockTags, 'agreed');
    assert.equal(
      network({ kind: 'solana', chainId: 'solana:abc', upstreams: ['http://a.example', 'http://b.example'] })
        .blockTags,
      'upstream',
    );
    assert.equal(network({ blockTags: 'agreed' }).blockTags, 'agreed');
  });

  test('pushed by default with one EVM upstream (heads pushed from its own address or wsUpstreams), as the upstream says with headPush off', () => {
    const ws = ['ws://a.example'];
    assert.equal(network({ wsUpstreams: ws }).blockTags, 'pushed');
    assert.equal(network({ headPush: true }).blockTags, 'pushed');
    assert.equal(network({ wsUpstreams: ws, headPush: false }).blockTags, 'upstream');
    assert.equal(network({ headPush: false }).blockTags, 'upstream');
    assert.equal(
      network({ upstreams: ['http://a.example', 'http://b.example'], wsUpstreams: [...ws, ...ws] }).blockTags,
      'agreed',
    );
    assert.equal(network({ kind: 'solana', chainId: 'solana:abc', headPush: true }).blockTags, 'upstream');
    assert.equal(network({ wsUpstreams: ws, blockTags: 'upstream' }).blockTags, 'upstream');
  });

  test('anything else is refused by name', () => {
    assert.throws(
      () => network({ blockTags: 'consensus' }),
      (error: unknown) =>
        error instanceof ConfigError &&
        /networks\[0\]\.blockTags must be one of agreed, pushed, upstream, got "consensus"/.test(
          error.message,
        ),
    );
  });
});

describe('UpstreamPool.agreed', () => {
  const pool = () =>
    new UpstreamPool(
      ['http://127.0.0.1:9/a', 'http://127.0.0.1:9/b', 'http://127.0.0.1:9/c'].map(
        (u) => new HttpUpstream(u),
      ),
      { maxLag: 5, breakerThreshold: 1 },
    );
  const report = (p: UpstreamPool, heights: [number, number, number][]) => {
    for (const [i, [head, safe, finalized]] of heights.entries()) {
      Object.assign(p.members[i], { head, safe, finalized });
    }
  };

  test('the lowest heights among upstreams in service', () => {
    const p = pool();
    assert.equal(p.agreed(), undefined, 'nothing agreed before any head is known');
    report(p, [
      [100, 90, 80],
      [103, 95, 85],
      [98, 88, 79],
    ]);
    assert.deepEqual(p.agreed(), { latest: 98, safe: 88, finalized: 79 });
  });

  test('an upstream lagging beyond maxLag or set aside by its breaker does not hold the others back', () => {
    const p = pool();
    report(p, [
      [100, 90, 80],
      [103, 95, 85],
      [50, 40, 30],
    ]);
    assert.deepEqual(p.agreed(), { latest: 100, safe: 90, finalized: 80 });
    p.members[0].breaker.failure();
    assert.equal(p.members[0].breaker.state, 'open');
    assert.deepEqual(p.agreed(), { latest: 103, safe: 95, finalized: 85 });
  });
});

describe('two upstreams at different heights behind one gateway', () => {
  let low: Anvil;
  let high: Anvil;
  let gateway: Gateway;
  let url: string;

  const rpc = async (method: string, params: unknown[] = []) => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    const body = (await response.json()) as { result?: unknown; error?: { message: string } };
    assert.equal(body.error, undefined, body.error?.message);
    return body.result;
  };
  const mine = (anvil: Anvil, blocks: number) =>
    fetch(anvil.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'anvil_mine',
        params: [`0x${blocks.toString(16)}`],
      }),
    });
  /** Waits until the gateway's head polls have seen both upstreams at the given heads. */
  const heads = async (expected: [number, number]) => {
    const deadline = Date.now() + 10_000;
    let seen: number[] = [];
    while (Date.now() < deadline) {
      const report = (await (await fetch(`${gateway.url}/readyz`)).json()) as {
        networks: Record<string, { upstreams: { head: number }[] }>;
      };
      seen = report.networks.local.upstreams.map((u) => u.head);
      if (seen[0] === expected[0] && seen[1] === expected[1]) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.deepEqual(seen, expected, 'the head polls saw both upstreams');
  };
  const numbersOf = async (tag: string, times: number) => {
    const seen = new Set<string>();
    for (let i = 0; i < times; i++) {
      const block = (await rpc('eth_getBlockByNumber', [tag, false])) as { number: string };
      seen.add(block.number);
    }
    return [...seen];
  };

  before(async () => {
    // One slot per epoch: anvil's safe and finalized blocks follow its head closely.
    [low, high] = await Promise.all([
      startAnvil({ extraArgs: ['--slots-in-an-epoch', '1'] }),
      startAnvil({ extraArgs: ['--slots-in-an-epoch', '1'] }),
    ]);
    await mine(low, 10);
    await mine(high, 13);
    gateway = await startGateway(
      parseConfig({
        port: 0,
        logLevel: 'silent',
        networks: [
          {
            name: 'local',
            chainId: 'eip155:31337',
            upstreams: [low.url, high.url],
            headPollMs: 100,
            cache: false,
          },
        ],
      }),
    );
    const { key } = await gateway.keys.create({ name: 'tags', dailyCredits: 10_000_000 });
    url = `${gateway.networks[0].baseUrl}/v3/${key}`;
    await heads([10, 13]);
  });
  after(async () => {
    await gateway?.close();
    await Promise.all([low?.stop(), high?.stop()]);
  });

  test('latest is the head both have reached, on every call, and eth_blockNumber says the same', async () => {
    assert.deepEqual(await numbersOf('latest', 10), ['0xa']);
    for (let i = 0; i < 6; i++) assert.equal(await rpc('eth_blockNumber'), '0xa');
  });

  test('safe and finalized are the lowest both report, on every call', async () => {
    const direct = async (anvil: Anvil, tag: string) => {
      const response = await fetch(anvil.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getBlockByNumber', params: [tag, false] }),
      });
      return Number(((await response.json()) as { result: { number: string } }).result.number);
    };
    for (const tag of ['safe', 'finalized']) {
      const [lowNumber, highNumber] = [await direct(low, tag), await direct(high, tag)];
      assert.ok(lowNumber < highNumber, `the upstreams disagree on ${tag} (${lowNumber} vs ${highNumber})`);
      assert.deepEqual(await numbersOf(tag, 8), [`0x${lowNumber.toString(16)}`]);
    }
  });

  test('an upstream lagging beyond maxLag is left out: latest is the leader’s head, served by it', async () => {
    await mine(high, 10);
    await heads([10, 23]);
    assert.deepEqual(await numbersOf('latest', 8), ['0x17']);
    assert.equal(await rpc('eth_blockNumber'), '0x17');
    const balance = await rpc('eth_getBalance', [ADDRESS, 'latest']);
    assert.match(String(balance), /^0x[0-9a-f]+$/);
  });
});
