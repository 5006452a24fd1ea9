// eth_getLogs in parts against nodes that refuse wide ranges. The nodes here are small JSON-RPC
// servers holding a fixed list of logs (a stand-in: anvil has no range limit, no other wording of a
// refusal, and cannot be made to answer garbage); test/logs-in-parts.test.ts runs the same path
// against anvil through the whole gateway.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, describe, test } from 'node:test';
import { MemoryResponseCache } from '../../cache/memory-response-cache.ts';
import { GatewayError } from '../../rpc/errors.ts';
import { createChainContext } from '../../upstream/chain-context.ts';
import { HttpUpstream, type UpstreamReply } from '../../upstream/http-upstream.ts';
import { UpstreamPool } from '../../upstream/upstream-pool.ts';
import type { Fleet } from '../types.ts';
import { LOGS_PARTS_AT_ONCE, LogsRanges, serveLogsInParts } from './logs-in-parts.ts';

type Log = { address: string; blockNumber: string; logIndex: string; data: string };
const A = '0x00000000000000000000000000000000000000aa';
const B = '0x00000000000000000000000000000000000000bb';

/** Two logs in every third block (one of each address), up to block 299. */
const LOGS: Log[] = [];
for (let block = 0; block < 300; block += 3) {
  for (const [index, address] of [A, B].entries()) {
    LOGS.push({
      address,
      blockNumber: `0x${block.toString(16)}`,
      logIndex: `0x${index.toString(16)}`,
      data: `0x${block.toString(16).padStart(4, '0')}${index}`,
    });
  }
}

type NodeBehaviour = {
  /** Widest range answered; wider ones get `refusal`. */
  limit?: number;
  refusal?: string;
  /** An error for every eth_getLogs (not a range refusal). */
  error?: { code: number; message: string };
  /** A result that is not a list. */
  garbage?: boolean;
  /** Milliseconds before each answer (to see how many are asked at once). */
  delayMs?: number;
  /** The part starting at this block is refused (-32000), the others answered. */
  refuseFrom?: number;
  /** The connection is dropped instead of an answer. */
  drop?: boolean;
  /** Lists written with spaces and line breaks (`[ ]` when empty), as some nodes write them. */
  spaced?: boolean;
};

type FakeNode = {
  url: string;
  behaviour: NodeBehaviour;
  /** Each eth_getLogs asked, as [from, to]. */
  asked: [number, number][];
  inFlight: number;
  mostInFlight: number;
};

const servers: Server[] = [];
const pools: UpstreamPool[] = [];
after(async () => {
  await Promise.all(pools.map((p) => p.close()));
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
});

async function startNode(behaviour: NodeBehaviour = {}): Promise<FakeNode> {
  const node = { behaviour, asked: [], inFlight: 0, mostInFlight: 0 } as unknown as FakeNode;
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', async () => {
      const call = JSON.parse(body) as {
        id: number;
        method: string;
        params: { fromBlock: string; toBlock: string; address?: string }[];
      };
      const answer = (payload: object) => {
        response.setHeader('content-type', 'application/json');
        response.end(JSON.stringify({ jsonrpc: '2.0', id: call.id, ...payload }));
      };
      if (call.method !== 'eth_getLogs')
        return answer({ error: { code: -32601, message: `the method ${call.method} does not exist` } });
      const { fromBlock, toBlock, address } = call.params[0];
      const from = Number(BigInt(fromBlock));
      const to = Number(BigInt(toBlock));
      node.asked.push([from, to]);
      node.inFlight += 1;
      node.mostInFlight = Math.max(node.mostInFlight, node.inFlight);
      if (node.behaviour.delayMs) await new Promise((r) => setTimeout(r, node.behaviour.delayMs));
      node.inFlight -= 1;
      const { limit, refusal, error, garbage, refuseFrom, drop, spaced } = node.behaviour;
      if (drop) return request.socket.destroy();
      if (error) return answer({ error });
      if (refuseFrom === from) return answer({ error: { code: -32000, message: 'filter timed out' } });
      if (limit !== undefined && to - from + 1 > limit) {
        return answer({
          error: { code: -32005, message: refusal ?? `block range too large: at most ${limit}` },
        });
      }
      if (garbage) return answer({ result: { logs: [] } });
      const result = LOGS.filter((log) => {
        const block = Number(BigInt(log.blockNumber));
        return block >= from && block <= to && (address === undefined || log.address === address);
      });
      if (!spaced) return answer({ result });
      const items = result.map((log) => JSON.stringify(log));
      const list = items.length === 0 ? '[ ]' : `[\n  ${items.join(',\n  ')}\n]`;
      response.setHeader('content-type', 'application/json');
      response.end(`{"jsonrpc":"2.0","id":${call.id},"result":${list}}`);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  node.url = `http://127.0.0.1:${port}`;
  return node;
}

/** An address nothing listens on. */
async function closedUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return `http://127.0.0.1:${port}`;
}

/** A fleet over the given nodes, every one at head 299 with 200 finalized. */
function fleetOf(
  urls: string[],
  options: {
    finalized?: number;
    cache?: MemoryResponseCache;
    maxResponseBytes?: number;
    breakerThreshold?: number;
  } = {},
): Fleet {
  const upstreams = new UpstreamPool(
    urls.map((url) => new HttpUpstream(url, { timeoutMs: 5_000 })),
    { breakerThreshold: options.breakerThreshold ?? 1, breakerCooldownMs: 60_000 },
  );
  for (const member of upstreams.members) Object.assign(member, { head: 299, safe: 250, finalized: 200 });
  pools.push(upstreams);
  return {
    upstreams,
    relays: [],
    chain: createChainContext(upstreams),
    heads: { finalized: options.finalized ?? 200 },
    cache: options.cache,
    maxResponseBytes: options.maxResponseBytes ?? 1024 * 1024,
  };
}

const hex = (n: number) => `0x${n.toString(16)}`;
const inRange = (from: number, to: number, address?: string) =>
  LOGS.filter((log) => {
    const block = Number(BigInt(log.blockNumber));
    return block >= from && block <= to && (address === undefined || log.address === address);
  });

async function logsOf(reply: Promise<UpstreamReply> | undefined): Promise<Log[]> {
  assert.ok(reply, 'served in parts');
  const answer = await reply;
  assert.ok(answer.ok, JSON.stringify(answer));
  return JSON.parse(answer.result.text) as Log[];
}

describe('when a range is served in parts', () => {
  test('a range one upstream takes whole, a block hash, an empty or unknown range: not in parts', async () => {
    const node = await startNode();
    const fleet = fleetOf([node.url]);
    const ranges = new LogsRanges(50);
    const serve = (filter: Record<string, unknown>) => serveLogsInParts([filter], fleet, ranges);
    assert.equal(serve({ fromBlock: hex(0), toBlock: hex(49) }), undefined, 'exactly the range: whole');
    assert.ok(serve({ fromBlock: hex(0), toBlock: hex(50) }), 'one block more: in parts');
    assert.equal(
      serve({ blockHash: `0x${'11'.repeat(32)}`, fromBlock: hex(0), toBlock: hex(299) }),
      undefined,
    );
    assert.equal(serve({ fromBlock: hex(200), toBlock: hex(100) }), undefined, 'to before from');
    assert.ok(serve({ fromBlock: hex(0), toBlock: 'pending' }), 'pending: the head');
    fleet.upstreams.members[0].head = -1;
    assert.equal(
      serve({ fromBlock: hex(0), toBlock: 'latest' }),
      undefined,
      'latest while the head is unknown',
    );
    assert.equal(serve({ fromBlock: hex(0) }), undefined, 'no toBlock is latest');
  });

  test('the width counts from the first block asked, not from block 0', async () => {
    const node = await startNode();
    const fleet = fleetOf([node.url]);
    const ranges = new LogsRanges(50);
    assert.equal(serveLogsInParts([{ fromBlock: hex(10), toBlock: hex(59) }], fleet, ranges), undefined);
    assert.ok(serveLogsInParts([{ fromBlock: hex(10), toBlock: hex(60) }], fleet, ranges));
  });

  test('a bound whose block is not known yet: not in parts', async () => {
    const node = await startNode();
    const fleet = fleetOf([node.url]);
    const ranges = new LogsRanges(10);
    const serve = (filter: Record<string, unknown>) => serveLogsInParts([filter], fleet, ranges);
    fleet.upstreams.members[0].safe = -1;
    assert.equal(serve({ fromBlock: 'safe', toBlock: hex(100) }), undefined, 'safe not reported');
    fleet.upstreams.members[0].head = -1;
    assert.equal(serve({ fromBlock: 'latest', toBlock: hex(100) }), undefined, 'no head yet');
    assert.equal(
      serveLogsInParts([{ fromBlock: hex(0), toBlock: 'safe' }], fleet, new LogsRanges(1)),
      undefined,
      'no heights agreed yet (not block 1 either)',
    );
  });

  test('block 0 is a known bound: finalized at 0 starts the range there', async () => {
    const node = await startNode();
    const fleet = fleetOf([node.url], { finalized: 0 });
    const logs = await logsOf(
      serveLogsInParts([{ fromBlock: 'finalized', toBlock: hex(29) }], fleet, new LogsRanges(10)),
    );
    assert.deepEqual(logs, inRange(0, 29));
  });

  test('no upstream in service: not in parts (the usual path answers)', async () => {
    const node = await startNode();
    const fleet = fleetOf([node.url]);
    fleet.upstreams.cordon(fleet.upstreams.members[0], true);
    assert.equal(
      serveLogsInParts([{ fromBlock: hex(0), toBlock: hex(299) }], fleet, new LogsRanges(10)),
      undefined,
    );
  });

  test('the narrowest upstream in service sets the part size', async () => {
    const [wide, narrow] = await Promise.all([startNode(), startNode()]);
    const fleet = fleetOf([wide.url, narrow.url]);
    const ranges = new LogsRanges(100);
    ranges.narrow(fleet.upstreams.members[1], 40);
    // 20 blocks is what the narrow one takes: 30 is more.
    assert.ok(serveLogsInParts([{ fromBlock: hex(0), toBlock: hex(29) }], fleet, ranges));
    assert.equal(serveLogsInParts([{ fromBlock: hex(0), toBlock: hex(19) }], fleet, ranges), undefined);
  });

  test('tags: earliest is 0, safe and latest as the upstreams agree, finalized as the network’s head', async () => {
    const node = await startNode();
    const fleet = fleetOf([node.url], { finalized: 120 });
    const ranges = new LogsRanges(10);
    const asked = async (fromBlock: string, toBlock: string) => {
      node.asked.length = 0;
      await logsOf(serveLogsInParts([{ fromBlock, toBlock }], fleet, ranges));
      const starts = node.asked.map(([from]) => from);
      const ends = node.asked.map(([, to]) => to);
      return [Math.min(...starts), Math.max(...ends)];
    };
    assert.deepEqual(await asked('earliest', hex(30)), [0, 30]);
    assert.deepEqual(await asked(hex(200), 'safe'), [200, 250]);
    assert.deepEqual(await asked(hex(90), 'finalized'), [90, 120]);
    assert.deepEqual(await asked(hex(270), 'latest'), [270, 299]);
    fleet.upstreams.members[0].safe = -1;
    assert.equal(serveLogsInParts([{ fromBlock: hex(0), toBlock: 'safe' }], fleet, ranges), undefined);
  });
});

describe('the parts and their answer', () => {
  test('parts end on multiples of their size, at most four are asked at once, joined in block order', async () => {
    const node = await startNode({ delayMs: 20 });
    const fleet = fleetOf([node.url]);
    const logs = await logsOf(
      serveLogsInParts([{ fromBlock: hex(5), toBlock: hex(104) }], fleet, new LogsRanges(10)),
    );
    assert.deepEqual(logs, inRange(5, 104), 'the whole range’s logs, in order, none twice');
    assert.deepEqual(
      [...node.asked].sort((a, b) => a[0] - b[0]),
      [[5, 9], ...Array.from({ length: 9 }, (_, i) => [10 * (i + 1), 10 * (i + 1) + 9]), [100, 104]],
    );
    assert.equal(node.mostInFlight, LOGS_PARTS_AT_ONCE);
  });

  test('parts without logs leave no gap in the list; the filter goes with every part', async () => {
    const node = await startNode();
    const fleet = fleetOf([node.url]);
    // One block in three holds logs: parts of one block are mostly empty.
    const logs = await logsOf(
      serveLogsInParts([{ fromBlock: hex(10), toBlock: hex(40), address: B }], fleet, new LogsRanges(1)),
    );
    assert.deepEqual(logs, inRange(10, 40, B));
    const none = await logsOf(
      serveLogsInParts([{ fromBlock: hex(1), toBlock: hex(2) }], fleet, new LogsRanges(1)),
    );
    assert.deepEqual(none, []);
  });

  test('an upstream that refuses a range is asked for half of it from then on, and the answer is whole', async () => {
    const node = await startNode({ limit: 7, refusal: 'query returned more than 10000 results' });
    const fleet = fleetOf([node.url]);
    const ranges = new LogsRanges(30);
    const logs = await logsOf(serveLogsInParts([{ fromBlock: hex(0), toBlock: hex(119) }], fleet, ranges));
    assert.deepEqual(logs, inRange(0, 119));
    assert.equal(ranges.of(fleet.upstreams.members[0]), 7, '30 → 15 → 7');
    const served = node.asked.filter(([from, to]) => to - from + 1 <= 7);
    assert.ok(served.every(([from, to]) => to - from + 1 <= 7));
    assert.ok(node.asked.length > served.length, 'wider parts were refused first');
  });

  test('a part the upstream narrows to leaves no block out when its width does not divide the part', async () => {
    // Parts of 25 are refused; 12 are refused too; then 6: 25 = 12 + 12 + 1, and block 24 holds logs.
    const node = await startNode({ limit: 10 });
    const fleet = fleetOf([node.url]);
    const ranges = new LogsRanges(25);
    assert.deepEqual(
      await logsOf(serveLogsInParts([{ fromBlock: hex(0), toBlock: hex(49) }], fleet, ranges)),
      inRange(0, 49),
    );
    assert.equal(ranges.of(fleet.upstreams.members[0]), 6);
  });

  test('lists written with spaces, and empty ones, join into one list', async () => {
    const node = await startNode({ spaced: true });
    const fleet = fleetOf([node.url]);
    const logs = await logsOf(
      serveLogsInParts([{ fromBlock: hex(1), toBlock: hex(8) }], fleet, new LogsRanges(1)),
    );
    assert.deepEqual(logs, inRange(1, 8));
  });

  test('once a part is refused no new part is asked; the parts already asked finish', async () => {
    const node = await startNode({ refuseFrom: 0, delayMs: 10 });
    const fleet = fleetOf([node.url]);
    const answer = await serveLogsInParts(
      [{ fromBlock: hex(0), toBlock: hex(99) }],
      fleet,
      new LogsRanges(10),
    );
    assert.deepEqual(answer, { ok: false, error: { code: -32000, message: 'filter timed out' } });
    while (node.inFlight > 0) await new Promise((r) => setTimeout(r, 5));
    // The other three workers had one part each on its way; none takes another.
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(node.asked.length, LOGS_PARTS_AT_ONCE);
  });

  test('a refusal for another reason is the answer, as the node gave it', async () => {
    const node = await startNode({ error: { code: -32000, message: 'filter not supported' } });
    const fleet = fleetOf([node.url]);
    const answer = await serveLogsInParts(
      [{ fromBlock: hex(0), toBlock: hex(99) }],
      fleet,
      new LogsRanges(10),
    );
    assert.deepEqual(answer, { ok: false, error: { code: -32000, message: 'filter not supported' } });
    assert.ok(node.asked.length < 10, 'the other parts stop once one is refused');
  });

  test('a range refusal of a single block cannot be split: it is the answer', async () => {
    const node = await startNode({ limit: 0, refusal: 'block range is too wide' });
    const fleet = fleetOf([node.url]);
    const answer = await serveLogsInParts([{ fromBlock: hex(0), toBlock: hex(3) }], fleet, new LogsRanges(2));
    assert.equal(answer?.ok, false);
    assert.equal(!answer?.ok && answer?.error.message, 'block range is too wide');
  });

  test('an answer that is not a list of logs is an upstream failure, not data', async () => {
    const node = await startNode({ garbage: true });
    const fleet = fleetOf([node.url]);
    await assert.rejects(
      serveLogsInParts(
        [{ fromBlock: hex(0), toBlock: hex(29) }],
        fleet,
        new LogsRanges(10),
      ) as Promise<unknown>,
      (error: unknown) =>
        error instanceof GatewayError &&
        error.kind === 'upstreamUnavailable' &&
        error.message === 'Upstream node answered eth_getLogs without a list of logs',
    );
  });

  test('the joined answer is capped by maxResponseBytes, named in the error', async () => {
    const node = await startNode();
    const whole = JSON.stringify(inRange(0, 99));
    const fleet = fleetOf([node.url], { maxResponseBytes: whole.length - 200 });
    await assert.rejects(
      serveLogsInParts(
        [{ fromBlock: hex(0), toBlock: hex(99) }],
        fleet,
        new LogsRanges(10),
      ) as Promise<unknown>,
      (error: unknown) =>
        error instanceof GatewayError &&
        error.kind === 'answerTooLarge' &&
        /maxResponseBytes \(\d+ bytes\)/.test(error.message) &&
        (error.data as { maxResponseBytes: number }).maxResponseBytes === whole.length - 200,
    );
    // The cap counts the parts' texts: exactly their length is allowed, one byte less is not.
    let parts = 0;
    for (let from = 0; from < 100; from += 10) parts += JSON.stringify(inRange(from, from + 9)).length;
    const exact = fleetOf([node.url], { maxResponseBytes: parts });
    assert.ok(
      (await serveLogsInParts([{ fromBlock: hex(0), toBlock: hex(99) }], exact, new LogsRanges(10)))?.ok,
    );
    const short = fleetOf([node.url], { maxResponseBytes: parts - 1 });
    await assert.rejects(
      serveLogsInParts(
        [{ fromBlock: hex(0), toBlock: hex(99) }],
        short,
        new LogsRanges(10),
      ) as Promise<unknown>,
    );
    const roomy = fleetOf([node.url], { maxResponseBytes: whole.length + 10 });
    assert.deepEqual(
      await logsOf(serveLogsInParts([{ fromBlock: hex(0), toBlock: hex(99) }], roomy, new LogsRanges(10))),
      inRange(0, 99),
    );
  });
});

describe('finalized parts are cached; the others are asked again', () => {
  test('a second request asks only for the parts above the finalized block', async () => {
    const node = await startNode();
    // Unfinalized entries expire at once: only what was stored as final answers again.
    const cache = new MemoryResponseCache(10_000, 0);
    const fleet = fleetOf([node.url], { cache, finalized: 59 });
    const filter = { fromBlock: hex(0), toBlock: hex(99), address: A };
    const first = await logsOf(serveLogsInParts([filter], fleet, new LogsRanges(20)));
    assert.equal(node.asked.length, 5);
    node.asked.length = 0;
    const second = await logsOf(serveLogsInParts([filter], fleet, new LogsRanges(20)));
    assert.deepEqual(second, first);
    assert.deepEqual(
      [...node.asked].sort((a, b) => a[0] - b[0]),
      [
        [60, 79],
        [80, 99],
      ],
      'blocks 0–59 came from the cache',
    );
    node.asked.length = 0;
    await logsOf(serveLogsInParts([{ ...filter, address: B }], fleet, new LogsRanges(20)));
    assert.equal(node.asked.length, 5, 'another filter is another entry');
  });

  test('a refused part is not cached', async () => {
    const node = await startNode({ error: { code: -32000, message: 'busy' } });
    const cache = new MemoryResponseCache();
    const fleet = fleetOf([node.url], { cache });
    await serveLogsInParts([{ fromBlock: hex(0), toBlock: hex(39) }], fleet, new LogsRanges(20));
    // The answer is given at the first refusal; the other part is still on its way.
    while (node.asked.length < 2) await new Promise((r) => setTimeout(r, 5));
    node.behaviour.error = undefined;
    node.asked.length = 0;
    await logsOf(serveLogsInParts([{ fromBlock: hex(0), toBlock: hex(39) }], fleet, new LogsRanges(20)));
    assert.equal(node.asked.length, 2);
  });
});

describe('upstreams that fail', () => {
  test('parts go to the next upstream when one cannot be reached', async () => {
    const node = await startNode();
    const dead = { url: await closedUrl() };
    const fleet = fleetOf([dead.url, node.url]);
    const logs = await logsOf(
      serveLogsInParts([{ fromBlock: hex(0), toBlock: hex(99) }], fleet, new LogsRanges(10)),
    );
    assert.deepEqual(logs, inRange(0, 99));
    assert.equal(fleet.upstreams.members[0].breaker.state, 'open', 'the dead one is set aside');
    assert.equal(node.asked.length, 10, 'every part on the live one');
  });

  test('when none can be reached the request fails, after a bounded number of tries', async () => {
    const dead = { url: await closedUrl() };
    const fleet = fleetOf([dead.url]);
    await assert.rejects(
      serveLogsInParts(
        [{ fromBlock: hex(0), toBlock: hex(99) }],
        fleet,
        new LogsRanges(10),
      ) as Promise<unknown>,
      (error: unknown) =>
        error instanceof GatewayError &&
        error.kind === 'upstreamUnavailable' &&
        error.message === 'No upstream node is available',
    );
  });

  test('failures that do not set an upstream aside end the request after twice the upstreams, plus two', async () => {
    const nodes = await Promise.all([startNode({ drop: true }), startNode({ drop: true })]);
    const fleet = fleetOf(
      nodes.map((n) => n.url),
      { breakerThreshold: 1000 },
    );
    await assert.rejects(
      serveLogsInParts(
        [{ fromBlock: hex(0), toBlock: hex(9) }],
        fleet,
        new LogsRanges(5),
      ) as Promise<unknown>,
    );
    // Two parts, each retried by its worker at once until the shared count of failures passes
    // 2 × 2 + 2: the seventh ends the request, and the other worker's call then on its way is the
    // eighth (it may reach the node after the answer).
    const asked = () => nodes[0].asked.length + nodes[1].asked.length;
    const deadline = Date.now() + 10_000;
    while (asked() < 8 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    assert.equal(asked(), 8);
  });

  test('an upstream in its half-open trial is passed over for one whose breaker is closed', async () => {
    const [trial, closed] = await Promise.all([startNode(), startNode()]);
    const fleet = fleetOf([trial.url, closed.url]);
    const { breaker } = fleet.upstreams.members[0];
    breaker.failure(0);
    assert.equal(breaker.allow(), true, 'the trial call is claimed');
    assert.equal(breaker.state, 'half-open');
    await logsOf(serveLogsInParts([{ fromBlock: hex(0), toBlock: hex(29) }], fleet, new LogsRanges(10)));
    assert.equal(trial.asked.length, 0);
    assert.equal(closed.asked.length, 3);
  });
});
