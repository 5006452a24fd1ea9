// The HeadTracker over a real UpstreamPool whose upstreams are held in the test's hands: each
// answers what the test scripted for the block tag (or commitment, or method) it is asked for, at
// once, as a failure, or when the test answers it. Polls are driven by calling `poll()`; the time a
// poll or a head read allows is read from AbortSignal.timeout (mocked), and start()'s timer is
// node:test's mock clock. The anvil suites (test/pushed-heads.test.ts, test/block-tags.test.ts)
// run the same paths end to end.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { describe, type TestContext, test } from 'node:test';
import { type WebSocket, WebSocketServer } from 'ws';
import { JsonResult } from '../rpc/json-result.ts';
import type { NetworkKind } from '../types.ts';
import { type ChainHead, HeadTracker } from './head-tracker.ts';
import type { HttpUpstream, UpstreamReply } from './http-upstream.ts';
import { type UpstreamMember, UpstreamPool } from './upstream-pool.ts';

type Scripted = UpstreamReply | 'hold' | 'fail';

type Call = {
  method: string;
  params: unknown;
  signal: AbortSignal | undefined;
  settled: boolean;
  answer: (reply: UpstreamReply) => void;
  fail: () => void;
};

const ok = (value: unknown): UpstreamReply => ({ ok: true, result: JsonResult.ofValue(value) });
const nodeError: UpstreamReply = { ok: false, error: { code: -32000, message: 'header not found' } };
const hex = (n: number) => `0x${n.toString(16)}`;
/** The hash of block `n` on the fork named `fork` (a fork is a chain of its own hashes). */
const hashOf = (n: number, fork = 'a') => `0x${fork}${n}`;
/** A block header as a node returns it: block `n` of `fork`, its parent on `parentFork`. */
const header = (n: number, fork = 'a', parentFork = fork) =>
  ok({ number: hex(n), hash: hashOf(n, fork), parentHash: hashOf(n - 1, parentFork) });
/** What the tracker announces for that header. */
const headOf = (n: number, fork = 'a', parentFork = fork): ChainHead => ({
  number: n,
  hash: hashOf(n, fork),
  parentHash: hashOf(n - 1, parentFork),
});

/** What a call asks for: the block tag, the commitment, or else the method. */
function askedFor(method: string, params: unknown): string {
  const [first] = params as unknown[];
  if (method === 'eth_getBlockByNumber') return String(first);
  if (method === 'getSlot') return String((first as { commitment?: unknown } | undefined)?.commitment);
  return method;
}

/**
 * An upstream the test drives: `script` says, by what is asked for (`latest`, `safe`,
 * `finalized`, `processed`, `eth_blockNumber`), the reply to give at once, `fail` (a node that
 * cannot be reached) or `hold` (until the test answers the call). A call its signal aborts fails.
 */
class Node {
  readonly calls: Call[] = [];
  readonly script = new Map<string, Scripted>();

  constructor(readonly label: string) {}

  call(method: string, params: unknown, signal?: AbortSignal): Promise<UpstreamReply> {
    return new Promise((resolve, reject) => {
      const call: Call = {
        method,
        params,
        signal,
        settled: false,
        answer: (reply) => {
          call.settled = true;
          resolve(reply);
        },
        fail: () => {
          call.settled = true;
          reject(new Error(`${this.label} is unavailable`));
        },
      };
      this.calls.push(call);
      signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
      const scripted = this.script.get(askedFor(method, params));
      if (scripted === undefined) reject(new Error(`${this.label}: nothing scripted for ${method}`));
      else if (scripted === 'fail') call.fail();
      else if (scripted !== 'hold') call.answer(scripted);
    });
  }

  /** Answers every EVM block tag: `latest` at `head` of `fork`, `safe` and `finalized` as given. */
  at(head: number, { fork = 'a', safe = head - 1, finalized = head - 2 } = {}) {
    this.script.set('latest', header(head, fork));
    this.script.set('safe', header(safe, fork));
    this.script.set('finalized', header(finalized, fork));
    return this;
  }

  /** Answers getSlot: `processed` and `finalized` slots. */
  atSlot(processed: unknown, finalized: unknown) {
    this.script.set('processed', ok(processed));
    this.script.set('finalized', ok(finalized));
    return this;
  }

  /** The one call asking for `what` still waiting for the test. */
  waiting(what: string): Call {
    const found = this.calls.filter((c) => !c.settled && askedFor(c.method, c.params) === what);
    assert.equal(found.length, 1, `${this.label} has one call for ${what} waiting`);
    return found[0];
  }

  asked(what: string): number {
    return this.calls.filter((c) => askedFor(c.method, c.params) === what).length;
  }

  async close() {}
  async destroy() {}
}

type Announced = { head: ChainHead; finalized: number; reorg: boolean };

/**
 * A tracker over `count` nodes (a, b, c…) of a pool that reads eth_blockNumber answers as heads
 * (as the EVM hooks do); `breakerThreshold` failures in a row open a breaker.
 */
function trackerOver(
  count: number,
  { kind = 'evm' as NetworkKind, pollMs = 2000, breakerThreshold = 3 } = {},
) {
  const nodes = Array.from({ length: count }, (_, i) => new Node('abcdefgh'[i]));
  const pool = new UpstreamPool(nodes as unknown as HttpUpstream[], {
    breakerThreshold,
    breakerCooldownMs: 60_000,
    headOfAnswer: (method, result) => (method === 'eth_blockNumber' ? Number(result.value) : undefined),
  });
  const tracker = new HeadTracker(pool, kind, pollMs);
  const heard: Announced[] = [];
  tracker.onHead((event) => heard.push(event));
  return { nodes, pool, members: pool.members, tracker, heard };
}

/**
 * A head pushed by an upstream's `newHeads` subscription, handed to the tracker's private
 * `pushed` directly: `pushFrom` wires a PushedHeads to exactly that call (tested once below over
 * a real WebSocket), and the rest of these tests need no socket to play pushes in a given order.
 */
const push = (tracker: HeadTracker, member: UpstreamMember, head: ChainHead) =>
  (tracker as unknown as { pushed(member: UpstreamMember, head: ChainHead): void }).pushed(member, head);

/** Lets the answered calls' callbacks run (the nodes answer in-process: no I/O to wait for). */
const settle = () => new Promise((resolve) => setImmediate(resolve));

/**
 * Replaces AbortSignal.timeout: each signal the tracker asks for is recorded with its time, and
 * aborts only when the test says so.
 */
function holdTimeouts(t: TestContext) {
  const asked: { ms: number; abort: () => void; signal: AbortSignal }[] = [];
  t.mock.method(AbortSignal, 'timeout', (ms: number) => {
    const controller = new AbortController();
    asked.push({ ms, signal: controller.signal, abort: () => controller.abort(new Error('timed out')) });
    return controller.signal;
  });
  return asked;
}

/** A member's `headPush` whose subscription is open, or not. */
const live = { live: true };
const down = { live: false };

const simple = (events: Announced[]) =>
  events.map((e) => ({ number: e.head.number, hash: e.head.hash, reorg: e.reorg }));

describe('a poll', () => {
  test('asks each upstream for its latest, safe and finalized block headers, without transactions', async () => {
    const { nodes, tracker } = trackerOver(1);
    nodes[0].at(10);
    await tracker.poll();
    assert.deepEqual(
      nodes[0].calls.map((c) => [c.method, c.params]),
      [
        ['eth_getBlockByNumber', ['latest', false]],
        ['eth_getBlockByNumber', ['safe', false]],
        ['eth_getBlockByNumber', ['finalized', false]],
      ],
    );
  });

  test("sets each member's head, safe and finalized; listeners hear the head, no reorg", async () => {
    const { nodes, members, tracker, heard } = trackerOver(2);
    nodes[0].at(10, { safe: 8, finalized: 6 });
    nodes[1].at(10, { safe: 9, finalized: 7 });
    await tracker.poll();
    assert.deepEqual(
      members.map((m) => [m.head, m.safe, m.finalized]),
      [
        [10, 8, 6],
        [10, 9, 7],
      ],
    );
    assert.deepEqual(tracker.head, headOf(10));
    assert.deepEqual(heard, [{ head: headOf(10), finalized: 6, reorg: false }]);
  });

  test('the network head is the one the upstreams agree on (the median), not the highest', async () => {
    const { nodes, tracker, heard } = trackerOver(3);
    nodes[0].at(10, { fork: 'a' });
    nodes[1].at(11, { fork: 'b' });
    nodes[2].at(50, { fork: 'c' });
    await tracker.poll();
    assert.deepEqual(tracker.head, headOf(11, 'b'), "the middle upstream's block is the head");
    assert.deepEqual(simple(heard), [{ number: 11, hash: hashOf(11, 'b'), reorg: false }]);
  });

  test('a node far ahead moves nothing once the others agree', async () => {
    const { nodes, tracker, heard } = trackerOver(3);
    for (const node of nodes) node.at(10);
    await tracker.poll();
    nodes[2].at(90);
    await tracker.poll();
    assert.equal(tracker.head?.number, 10);
    assert.equal(heard.length, 1, 'the same head is not announced again');
  });

  test('a safe or finalized block the node does not have (null or an error) is -1', async () => {
    const { nodes, members, tracker } = trackerOver(2);
    nodes[0].at(10);
    nodes[0].script.set('safe', ok(null));
    nodes[0].script.set('finalized', nodeError);
    nodes[1].at(10);
    nodes[1].script.set('safe', nodeError);
    nodes[1].script.set('finalized', ok({ hash: '0x01' }));
    await tracker.poll();
    assert.deepEqual(
      members.map((m) => [m.head, m.safe, m.finalized]),
      [
        [10, -1, -1],
        [10, -1, -1],
      ],
    );
  });

  test('block 0 is a head, a safe and a finalized block', async () => {
    const { nodes, members, tracker, heard } = trackerOver(1);
    nodes[0].at(0, { safe: 0, finalized: 0 });
    await tracker.poll();
    assert.deepEqual([members[0].head, members[0].safe, members[0].finalized], [0, 0, 0]);
    assert.deepEqual(heard, [{ head: headOf(0), finalized: 0, reorg: false }]);
  });

  test('a head without hash or parent hash is announced with null ones', async () => {
    const { nodes, tracker } = trackerOver(1);
    nodes[0].at(10);
    nodes[0].script.set('latest', ok({ number: hex(10) }));
    await tracker.poll();
    assert.deepEqual(tracker.head, { number: 10, hash: null, parentHash: null });
  });

  test('poll() called twice at once shares one poll: each upstream is asked once', async () => {
    const { nodes, tracker, heard } = trackerOver(2);
    for (const node of nodes) node.at(10).script.set('latest', 'hold');
    const first = tracker.poll();
    const second = tracker.poll();
    assert.ok(first === second, 'the second call returns the poll under way');
    for (const node of nodes) node.waiting('latest').answer(header(10));
    await Promise.all([first, second]);
    assert.deepEqual(
      nodes.map((n) => n.asked('latest')),
      [1, 1],
    );
    assert.equal(heard.length, 1);
    for (const node of nodes) node.at(10);
    await tracker.poll();
    assert.deepEqual(
      nodes.map((n) => n.asked('latest')),
      [2, 2],
      'once a poll has ended, the next one asks again',
    );
  });

  test('a poll in which every upstream failed announces nothing, even after a push changed the head', async () => {
    const { nodes, members, tracker, heard } = trackerOver(1);
    nodes[0].at(10);
    await tracker.poll();
    push(tracker, members[0], headOf(10, 'b', 'a'));
    assert.deepEqual(simple(heard).at(-1), { number: 10, hash: hashOf(10, 'b'), reorg: true });
    nodes[0].script.set('latest', 'fail');
    await tracker.poll();
    assert.equal(heard.length, 2, "the failed poll announced an earlier poll's head");
    assert.deepEqual(tracker.head, headOf(10, 'b', 'a'));
  });
});

describe('the finalized height', () => {
  test('is the agreed finalized block among the upstreams in service (the lowest), not the highest', async () => {
    const { nodes, pool, members, tracker, heard } = trackerOver(3);
    nodes[0].at(10, { finalized: 5 });
    nodes[1].at(10, { finalized: 7 });
    nodes[2].at(10, { finalized: 9 });
    pool.cordon(members[0], true);
    await tracker.poll();
    assert.equal(tracker.finalized, 7, 'the cordoned upstream is not asked to agree');
    assert.equal(heard[0].finalized, 7, 'the listener hears the finalized height of this poll');
  });

  test('before the upstreams in service agree on one, is the highest reported', async () => {
    const { nodes, pool, members, tracker } = trackerOver(3);
    nodes[0].at(10, { finalized: 4 });
    nodes[1].at(10, { finalized: 6 });
    nodes[2].at(10);
    nodes[2].script.set('finalized', ok(null));
    pool.cordon(members[0], true);
    pool.cordon(members[1], true);
    await tracker.poll();
    assert.equal(tracker.finalized, 6);
  });

  test('an agreed finalized block 0 counts, over a higher one from a cordoned upstream', async () => {
    const { nodes, pool, members, tracker } = trackerOver(2);
    nodes[0].at(3, { finalized: 0 });
    nodes[1].at(3, { finalized: 2 });
    pool.cordon(members[1], true);
    await tracker.poll();
    assert.equal(tracker.finalized, 0);
  });

  test('a finalized block 0 reported before any agreement counts', async () => {
    const { nodes, pool, members, tracker } = trackerOver(2);
    nodes[0].at(3, { finalized: 0 });
    nodes[1].at(3);
    nodes[1].script.set('finalized', ok(null));
    pool.cordon(members[0], true);
    await tracker.poll();
    assert.equal(tracker.finalized, 0);
  });

  test('can go down (a dev chain reverted), agreed or not', async () => {
    const { nodes, pool, members, tracker } = trackerOver(2);
    nodes[0].at(60, { finalized: 50 });
    nodes[1].at(60, { finalized: 50 });
    await tracker.poll();
    assert.equal(tracker.finalized, 50);
    nodes[0].at(40, { finalized: 30 });
    nodes[1].at(40, { finalized: 30 });
    await tracker.poll();
    assert.equal(tracker.finalized, 30, 'agreed: lower than before');
    // No agreement: the in-service one has none; the highest reported in THIS poll counts.
    pool.cordon(members[0], true);
    nodes[1].script.set('finalized', ok(null));
    nodes[0].at(40, { finalized: 20 });
    await tracker.poll();
    assert.equal(tracker.finalized, 20, 'unagreed: the highest of this poll, lower than before');
  });

  test('stays when no upstream reports one and none is agreed', async () => {
    const { nodes, pool, members, tracker } = trackerOver(2);
    nodes[0].at(10, { finalized: 8 });
    nodes[1].at(10);
    nodes[1].script.set('finalized', ok(null));
    pool.cordon(members[0], true);
    await tracker.poll();
    assert.equal(tracker.finalized, 8, 'the cordoned upstream reported it');
    nodes[0].script.set('finalized', ok(null));
    await tracker.poll();
    assert.equal(tracker.finalized, 8);
  });

  test('with every upstream cordoned (nothing agreed), the highest reported', async () => {
    const { nodes, pool, members, tracker } = trackerOver(2);
    nodes[0].at(10, { finalized: 7 });
    nodes[1].at(10, { finalized: 5 });
    for (const m of members) pool.cordon(m, true);
    await tracker.poll();
    assert.equal(pool.agreed(), undefined);
    assert.equal(tracker.finalized, 7);
  });

  test('stays when a poll learns none', async () => {
    const { nodes, tracker } = trackerOver(1);
    nodes[0].at(10, { finalized: 8 });
    await tracker.poll();
    nodes[0].script.set('finalized', ok(null));
    nodes[0].script.set('latest', 'fail');
    await tracker.poll();
    assert.equal(tracker.finalized, 8);
  });
});

describe('reorgs', () => {
  /** A tracker whose one node has been polled at block 10 of fork a. */
  async function at10() {
    const setup = trackerOver(1);
    setup.nodes[0].at(10);
    await setup.tracker.poll();
    return setup;
  }

  test('the same height with another hash is a reorg', async () => {
    const { nodes, tracker, heard } = await at10();
    nodes[0].at(10, { fork: 'b' });
    await tracker.poll();
    assert.deepEqual(heard.at(-1), { head: headOf(10, 'b'), finalized: 8, reorg: true });
  });

  test('a lower height with another hash is a reorg', async () => {
    const { nodes, tracker, heard } = await at10();
    nodes[0].at(9, { fork: 'b' });
    await tracker.poll();
    assert.deepEqual(simple(heard).at(-1), { number: 9, hash: hashOf(9, 'b'), reorg: true });
  });

  test('the next height on our head is no reorg; on another parent it is', async () => {
    const { nodes, tracker, heard } = await at10();
    nodes[0].at(11);
    await tracker.poll();
    assert.deepEqual(simple(heard).at(-1), { number: 11, hash: hashOf(11), reorg: false });
    nodes[0].script.set('latest', header(12, 'b', 'b'));
    await tracker.poll();
    assert.deepEqual(simple(heard).at(-1), { number: 12, hash: hashOf(12, 'b'), reorg: true });
  });

  test('a jump of several blocks is no reorg (its parent is not known)', async () => {
    const { nodes, tracker, heard } = await at10();
    nodes[0].script.set('latest', header(13, 'b'));
    await tracker.poll();
    assert.deepEqual(simple(heard).at(-1), { number: 13, hash: hashOf(13, 'b'), reorg: false });
  });

  test('the same head again is not announced', async () => {
    const { tracker, heard } = await at10();
    await tracker.poll();
    assert.equal(heard.length, 1);
  });

  test('a head with a null hash never counts as a reorg', async () => {
    const { nodes, tracker, heard } = await at10();
    nodes[0].script.set('latest', ok({ number: hex(10) }));
    await tracker.poll();
    assert.deepEqual(simple(heard).at(-1), { number: 10, hash: null, reorg: false }, 'same height');
    nodes[0].script.set('latest', header(10));
    await tracker.poll();
    nodes[0].script.set('latest', ok({ number: hex(11) }));
    await tracker.poll();
    assert.deepEqual(simple(heard).at(-1), { number: 11, hash: null, reorg: false }, 'next height');
    nodes[0].script.set('latest', ok({ number: hex(9) }));
    await tracker.poll();
    assert.deepEqual(simple(heard).at(-1), { number: 9, hash: null, reorg: false }, 'lower height');
  });
});

describe('a poll and a push crossing', () => {
  /**
   * Three upstreams polled at block 10 (announced), then a and b pushed block 11 (announced), before
   * or while a poll runs in which a and b fail (their breakers open) and c, the one left in service,
   * answers `cReads`: the network head is c's polled head, lower than the one announced.
   */
  async function crossing(cReads: UpstreamReply, pushesWhilePolling: boolean) {
    const setup = trackerOver(3, { breakerThreshold: 1 });
    const { nodes, members, tracker } = setup;
    for (const node of nodes) node.at(10);
    await tracker.poll();
    const pushes = () => {
      push(tracker, members[0], headOf(11));
      push(tracker, members[1], headOf(11));
      assert.deepEqual(tracker.head, headOf(11), 'two of three pushed 11: the network is there');
    };
    if (!pushesWhilePolling) pushes();
    for (const node of nodes) node.script.set('latest', 'hold');
    const polling = tracker.poll();
    if (pushesWhilePolling) pushes();
    nodes[0].waiting('latest').fail();
    nodes[1].waiting('latest').fail();
    nodes[2].waiting('latest').answer(cReads);
    await polling;
    assert.equal(setup.pool.networkHead(), 10, 'only c is in service');
    return setup;
  }

  test('a poll that ran while a push arrived does not move the head back, nor is it a reorg', async () => {
    const { tracker, heard } = await crossing(header(10), true);
    assert.deepEqual(tracker.head, headOf(11));
    assert.deepEqual(simple(heard), [
      { number: 10, hash: hashOf(10), reorg: false },
      { number: 11, hash: hashOf(11), reorg: false },
    ]);
  });

  test('without a push in between, a lower polled head is a reorg', async () => {
    const { tracker, heard } = await crossing(header(10), false);
    assert.deepEqual(tracker.head, headOf(10));
    assert.deepEqual(simple(heard).at(-1), { number: 10, hash: hashOf(10), reorg: true });
  });

  test('a push while polling, but the poll read another block than the one announced there: a reorg', async () => {
    const { heard } = await crossing(header(10, 'b'), true);
    assert.deepEqual(simple(heard).at(-1), { number: 10, hash: hashOf(10, 'b'), reorg: true });
  });

  test('one upstream polled lower than before, without a push: its head goes down', async () => {
    const { nodes, members, tracker, heard } = trackerOver(1);
    nodes[0].at(10);
    await tracker.poll();
    nodes[0].at(11);
    await tracker.poll();
    nodes[0].at(10);
    await tracker.poll();
    assert.equal(members[0].head, 10, 'the member is back at 10');
    assert.deepEqual(simple(heard).at(-1), { number: 10, hash: hashOf(10), reorg: true });
  });

  test("a head pushed while a poll ran stays that member's head over the poll's older answer", async () => {
    const { nodes, members, tracker, heard } = trackerOver(1);
    nodes[0].at(10);
    await tracker.poll();
    nodes[0].script.set('latest', 'hold');
    const polling = tracker.poll();
    push(tracker, members[0], headOf(11));
    nodes[0].waiting('latest').answer(header(10));
    await polling;
    assert.equal(members[0].head, 11);
    assert.deepEqual(tracker.head, headOf(11));
    assert.equal(heard.length, 2);
  });

  test('a push while polling does not excuse a polled head above ours that was announced before', async () => {
    const { nodes, members, tracker, heard } = trackerOver(1);
    nodes[0].at(11);
    await tracker.poll();
    nodes[0].at(10, { fork: 'b' });
    await tracker.poll();
    assert.deepEqual(tracker.head, headOf(10, 'b'), 'the chain went back to block 10 of fork b');
    nodes[0].at(11).script.set('latest', 'hold');
    const polling = tracker.poll();
    push(tracker, members[0], headOf(9, 'b'));
    nodes[0].waiting('latest').answer(header(11));
    await polling;
    assert.deepEqual(
      simple(heard).at(-1),
      { number: 11, hash: hashOf(11), reorg: true },
      'block 11 of fork a again: a reorg back',
    );
  });

  test('a push before the poll began does not excuse a lower polled head', async () => {
    const { nodes, members, tracker, heard } = trackerOver(1);
    nodes[0].at(10);
    await tracker.poll();
    push(tracker, members[0], headOf(11));
    await tracker.poll();
    assert.equal(members[0].head, 10);
    assert.deepEqual(simple(heard).at(-1), { number: 10, hash: hashOf(10), reorg: true });
  });

  test('a push the network did not take, during the first poll, leaves nothing to compare with', async () => {
    const { nodes, members, tracker, heard } = trackerOver(3);
    for (const node of nodes) node.at(10).script.set('latest', 'hold');
    const polling = tracker.poll();
    for (const m of members.slice(1)) m.head = 10;
    push(tracker, members[0], headOf(50));
    assert.equal(tracker.head, undefined, 'one node alone above the others moves nothing');
    for (const node of nodes) node.waiting('latest').answer(header(10));
    await polling;
    assert.deepEqual(simple(heard), [{ number: 10, hash: hashOf(10), reorg: false }]);
    assert.equal(members[0].head, 50, 'its pushed head stays for that member');
  });
});

describe('a pushed head', () => {
  test("moves that member's head and, when it is news, the network's", async () => {
    const { nodes, members, tracker, heard } = trackerOver(1);
    nodes[0].at(10);
    await tracker.poll();
    push(tracker, members[0], headOf(11));
    assert.equal(members[0].head, 11);
    assert.deepEqual(heard.at(-1), { head: headOf(11), finalized: 8, reorg: false });
  });

  test("lower than the network head: moves only that member's head", async () => {
    const { nodes, members, tracker, heard } = trackerOver(3);
    for (const node of nodes) node.at(10);
    await tracker.poll();
    push(tracker, members[1], headOf(9, 'b'));
    assert.equal(members[1].head, 9);
    assert.deepEqual(tracker.head, headOf(10));
    assert.equal(heard.length, 1);
  });

  test('at the network height with another hash: a reorg', async () => {
    const { nodes, members, tracker, heard } = trackerOver(1);
    nodes[0].at(10);
    await tracker.poll();
    push(tracker, members[0], headOf(10, 'b'));
    assert.deepEqual(simple(heard).at(-1), { number: 10, hash: hashOf(10, 'b'), reorg: true });
  });

  test('above the head the upstreams agree on: ignored for the network until the others follow', async () => {
    const { nodes, members, tracker, heard } = trackerOver(3);
    for (const node of nodes) node.at(10);
    await tracker.poll();
    push(tracker, members[0], headOf(11));
    assert.equal(members[0].head, 11);
    assert.equal(tracker.head?.number, 10, 'one node alone is not the network');
    push(tracker, members[1], headOf(11));
    assert.deepEqual(tracker.head, headOf(11), 'two of three at 11: the network is there');
    assert.equal(heard.length, 2);
  });
});

describe('pushFrom', () => {
  test("a node's WebSocket newHeads move the head, and its subscription is that member's headPush", async (t) => {
    const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await once(server, 'listening');
    // The node's side of the connection: takes eth_subscribe; closed with the server whatever the
    // tracker did (a stop() that closes nothing must fail this test, not hold the process).
    let socket: WebSocket | undefined;
    server.on('connection', (connection) => {
      socket = connection;
      connection.on('message', (data) => {
        const { id } = JSON.parse(String(data)) as { id: number };
        connection.send(JSON.stringify({ jsonrpc: '2.0', id, result: '0xab' }));
      });
    });
    t.after(() => {
      for (const client of server.clients) client.terminate();
      server.close();
    });
    const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const { nodes, members, tracker, heard } = trackerOver(2, { pollMs: 60_000 });
    for (const node of nodes) node.at(10);
    tracker.pushFrom([[url], []], 2000);
    assert.ok(members[0].headPush, 'the upstream with a WebSocket address has a subscription');
    assert.ok(members[1].headPush === undefined, 'an empty address list is none');
    tracker.start();
    t.after(() => tracker.stop());
    await until(
      () => members[0].headPush?.live === true && tracker.head?.number === 10,
      'subscribed and polled',
    );
    assert.equal(tracker.pushLive(), false, 'the upstream without a WebSocket is in service');
    members[1].cordoned = true;
    assert.equal(tracker.pushLive(), true);
    members[1].cordoned = false;
    socket?.send(
      JSON.stringify({
        jsonrpc: '2.0',
        method: 'eth_subscription',
        params: {
          subscription: '0xab',
          result: { number: hex(11), hash: hashOf(11), parentHash: hashOf(10) },
        },
      }),
    );
    await until(() => heard.length === 2, 'the pushed head was announced');
    assert.deepEqual(heard[1], { head: headOf(11), finalized: 8, reorg: false });
    tracker.stop();
    await until(() => members[0].headPush?.live === false, 'stop() closed the subscription');
  });

  test('nothing for an upstream without addresses, nor on Solana; the retry wait is at least 5 s', () => {
    const evm = trackerOver(3, { pollMs: 2000 });
    evm.tracker.pushFrom([['ws://127.0.0.1:1'], undefined, []], 1500);
    assert.deepEqual(
      evm.members.map((m) => m.headPush !== undefined),
      [true, false, false],
    );
    // The subscription's settings are not visible otherwise: read from the PushedHeads itself.
    const options = (push: unknown) => (push as { options: { retryMs: number; timeoutMs: number } }).options;
    assert.deepEqual(
      {
        retryMs: options(evm.members[0].headPush).retryMs,
        timeoutMs: options(evm.members[0].headPush).timeoutMs,
      },
      { retryMs: 10_000, timeoutMs: 1500 },
      '5 polls',
    );
    const fast = trackerOver(1, { pollMs: 100 });
    fast.tracker.pushFrom([['ws://127.0.0.1:1']], 1500);
    assert.equal(options(fast.members[0].headPush).retryMs, 5000, 'never under 5 s');
    const solana = trackerOver(1, { kind: 'solana' });
    solana.tracker.pushFrom([['ws://127.0.0.1:1']], 1500);
    assert.ok(solana.members[0].headPush === undefined, 'Solana heads are polled only');
  });
});

async function until(check: () => boolean, what: string) {
  const deadline = Date.now() + 5000;
  while (!check()) {
    assert.ok(Date.now() < deadline, `timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('start and stop', () => {
  test('the poll timer does not hold the process', async (t) => {
    const { nodes, tracker } = trackerOver(1, { pollMs: 60_000 });
    nodes[0].at(10);
    tracker.start();
    t.after(() => tracker.stop());
    const timer = (tracker as unknown as { timer: NodeJS.Timeout }).timer;
    assert.equal(timer.hasRef(), false, 'the poll timer is unref()ed');
  });

  test('start polls at once and then every pollMs; stop ends it', async (t) => {
    t.mock.timers.enable({ apis: ['setInterval'] });
    const { nodes, tracker } = trackerOver(1, { pollMs: 500 });
    nodes[0].at(10).script.set('latest', 'hold');
    tracker.start();
    assert.equal(nodes[0].asked('latest'), 1, 'polled at once');
    nodes[0].waiting('latest').answer(header(10));
    await settle();
    t.mock.timers.tick(499);
    assert.equal(nodes[0].asked('latest'), 1, 'not before pollMs');
    t.mock.timers.tick(1);
    assert.equal(nodes[0].asked('latest'), 2, 'again after pollMs');
    nodes[0].waiting('latest').answer(header(10));
    await settle();
    tracker.stop();
    t.mock.timers.tick(5000);
    assert.equal(nodes[0].asked('latest'), 2, 'no poll after stop');
  });
});

describe('pushLive', () => {
  test('is false with no upstream in service', () => {
    const { pool, members, tracker } = trackerOver(2);
    for (const m of members) {
      m.headPush = live;
      pool.cordon(m, true);
    }
    assert.equal(tracker.pushLive(), false);
  });

  test('is true when every upstream in service has its subscription open, false when one has not', () => {
    const { members, tracker } = trackerOver(2);
    members[0].headPush = live;
    assert.equal(tracker.pushLive(), false, 'one without a subscription');
    members[1].headPush = down;
    assert.equal(tracker.pushLive(), false, 'one whose subscription is down');
    members[1].headPush = live;
    assert.equal(tracker.pushLive(), true);
  });

  test('skips cordoned upstreams and those whose breaker is open, not a half-open one', () => {
    const { members, tracker } = trackerOver(3, { breakerThreshold: 1 });
    members[0].headPush = live;
    members[1].cordoned = true;
    members[2].breaker.failure();
    assert.equal(members[2].breaker.state, 'open');
    assert.equal(tracker.pushLive(), true);
    members[2].breaker.state = 'half-open';
    assert.equal(tracker.pushLive(), false, 'a half-open upstream is in service');
  });
});

describe('whileWriting', () => {
  test('pushLive is false from the start of the write until each upstream in service has told its head after it', async (t) => {
    const timeouts = holdTimeouts(t);
    const { nodes, pool, members, tracker } = trackerOver(3, { breakerThreshold: 1, pollMs: 1500 });
    for (const m of members) m.headPush = live;
    for (const m of members) m.head = 10;
    for (const node of nodes) node.script.set('eth_blockNumber', 'hold');
    pool.cordon(members[2], true);
    assert.equal(tracker.pushLive(), true);
    let finishWrite: (hash: string) => void = () => {};
    const writing = tracker.whileWriting(
      () =>
        new Promise<string>((resolve) => {
          finishWrite = resolve;
        }),
    );
    assert.equal(tracker.pushLive(), false, 'from the start of the write');
    assert.equal(nodes[0].calls.length, 0, 'no head is read before the write is answered');
    finishWrite('0xtx');
    assert.equal(await writing, '0xtx', "the write's own result");
    assert.equal(tracker.pushLive(), false, 'the heads have not been read yet');
    const read0 = nodes[0].waiting('eth_blockNumber');
    const read1 = nodes[1].waiting('eth_blockNumber');
    assert.deepEqual(read0.params, [], 'eth_blockNumber takes no params');
    assert.equal(nodes[2].calls.length, 0, 'a cordoned upstream is not asked');
    assert.deepEqual(
      timeouts.map((s) => s.ms),
      [1500, 1500],
      'each read allows pollMs',
    );
    assert.ok(read0.signal === timeouts[0].signal, 'the read has its own time limit');
    read0.answer(ok(hex(11)));
    await settle();
    assert.equal(members[0].head, 11, 'its answer is the head the pool knows');
    assert.equal(tracker.pushLive(), false, 'one upstream has still not answered');
    read1.answer(ok(hex(12)));
    await settle();
    await settle();
    assert.equal(members[1].head, 12);
    assert.equal(tracker.pushLive(), true, 'every upstream has told its head');
  });

  test('a failing write still releases the hold after the head read, and its error is thrown unchanged', async () => {
    const { nodes, members, tracker } = trackerOver(1);
    members[0].headPush = live;
    nodes[0].script.set('eth_blockNumber', 'hold');
    const refused = new Error('nonce too low');
    await assert.rejects(
      tracker.whileWriting(() => Promise.reject(refused)),
      (e) => e === refused,
    );
    assert.equal(tracker.pushLive(), false);
    nodes[0].waiting('eth_blockNumber').answer(ok(hex(3)));
    await settle();
    await settle();
    assert.equal(members[0].head, 3);
    assert.equal(tracker.pushLive(), true);
  });

  test('an upstream whose breaker is open is not asked; one that fails the read still releases the hold', async (t) => {
    const timeouts = holdTimeouts(t);
    const { nodes, members, tracker } = trackerOver(3, { breakerThreshold: 1, pollMs: 10 });
    for (const m of members) m.headPush = live;
    members[2].breaker.failure();
    nodes[0].script.set('eth_blockNumber', 'fail');
    nodes[1].script.set('eth_blockNumber', 'hold');
    assert.equal(await tracker.whileWriting(async () => 7), 7);
    assert.equal(nodes[2].calls.length, 0, 'the upstream set aside is not asked');
    assert.deepEqual(
      timeouts.map((s) => s.ms),
      [1000, 1000],
      'each read allows at least 1 s',
    );
    assert.equal(tracker.pushLive(), false);
    timeouts[1].abort();
    await settle();
    await settle();
    assert.equal(tracker.pushLive(), true, 'a read that failed or timed out ends the hold too');
    assert.deepEqual(
      members.map((m) => m.head),
      [-1, -1, -1],
    );
  });

  test('two writes at once: the hold lasts until both have had their heads read', async () => {
    const { nodes, members, tracker } = trackerOver(1);
    members[0].headPush = live;
    nodes[0].script.set('eth_blockNumber', 'hold');
    await tracker.whileWriting(async () => 1);
    await tracker.whileWriting(async () => 2);
    nodes[0].calls[0].answer(ok(hex(5)));
    await settle();
    await settle();
    assert.equal(tracker.pushLive(), false, 'the second write still waits for its read');
    nodes[0].calls[1].answer(ok(hex(5)));
    await settle();
    await settle();
    assert.equal(tracker.pushLive(), true);
  });
});

describe('health', () => {
  test('a node that hangs: its poll gives up in time and counts a failure; the others complete meanwhile', async (t) => {
    const timeouts = holdTimeouts(t);
    const { nodes, members, tracker, heard } = trackerOver(2, { breakerThreshold: 1, pollMs: 10 });
    nodes[0].at(10).script.set('latest', 'hold');
    nodes[1].at(10);
    const polling = tracker.poll();
    await settle();
    assert.deepEqual([members[1].head, members[1].safe], [10, 9], 'the other upstream was polled');
    assert.deepEqual(
      timeouts.map((s) => s.ms),
      [1000, 1000],
      'a poll allows at least 1 s',
    );
    const hung = nodes[0].waiting('latest');
    assert.ok(hung.signal === timeouts[0].signal, "the hung call has the poll's signal");
    for (const c of nodes[0].calls)
      assert.ok(c.signal === timeouts[0].signal, 'one signal for the three calls');
    timeouts[0].abort();
    await polling;
    assert.equal(members[0].breaker.state, 'open', 'the hung node counts a failure');
    assert.equal(members[1].breaker.state, 'closed');
    assert.equal(heard.length, 1);
  });

  test('a poll allows pollMs when it is over 1 s', async (t) => {
    const timeouts = holdTimeouts(t);
    const { nodes, tracker } = trackerOver(1, { pollMs: 3000 });
    nodes[0].at(10);
    await tracker.poll();
    assert.deepEqual(
      timeouts.map((s) => s.ms),
      [3000],
    );
  });

  for (const [what, latest] of [
    ['null', ok(null)],
    ['an error', nodeError],
    ['a block without number', ok({ hash: '0x01' })],
    ['a failure to answer', 'fail'],
  ] as const) {
    test(`a node answering latest with ${what} counts a failure and keeps its head`, async () => {
      const { nodes, members, tracker } = trackerOver(1, { breakerThreshold: 2 });
      nodes[0].at(10);
      await tracker.poll();
      nodes[0].at(12).script.set('latest', latest);
      await tracker.poll();
      assert.equal(members[0].breaker.state, 'closed', 'one failure of two');
      assert.deepEqual([members[0].head, members[0].safe], [10, 9], 'nothing of the failed poll is taken');
      await tracker.poll();
      assert.equal(members[0].breaker.state, 'open', 'a second failure in a row opens it');
    });
  }

  test('a poll answered brings an upstream back from the breaker', async () => {
    const { nodes, members, tracker } = trackerOver(2, { breakerThreshold: 1 });
    for (const node of nodes) node.at(10);
    members[0].breaker.failure();
    assert.equal(members[0].breaker.state, 'open');
    await tracker.poll();
    assert.equal(members[0].breaker.state, 'closed');
  });
});

describe('Solana', () => {
  test('the processed slot is the head, the finalized slot is finalized and safe', async () => {
    const { nodes, members, tracker, heard } = trackerOver(1, { kind: 'solana' });
    nodes[0].atSlot(300, 268);
    await tracker.poll();
    assert.deepEqual(
      nodes[0].calls.map((c) => [c.method, c.params]),
      [
        ['getSlot', [{ commitment: 'processed' }]],
        ['getSlot', [{ commitment: 'finalized' }]],
      ],
    );
    assert.deepEqual([members[0].head, members[0].safe, members[0].finalized], [300, 268, 268]);
    assert.deepEqual(heard, [
      { head: { number: 300, hash: null, parentHash: null }, finalized: 268, reorg: false },
    ]);
    nodes[0].atSlot(299, 268);
    await tracker.poll();
    assert.deepEqual(heard.at(-1)?.reorg, false, 'a lower slot is no reorg (no hashes)');
    assert.equal(tracker.head?.number, 299);
  });

  test('a slot that is not a number is a failure; a finalized slot that is not is -1', async () => {
    const { nodes, members, tracker } = trackerOver(2, { kind: 'solana', breakerThreshold: 1 });
    nodes[0].atSlot('300', 268);
    nodes[1].atSlot(300, null);
    await tracker.poll();
    assert.equal(members[0].breaker.state, 'open');
    assert.equal(members[0].head, -1);
    assert.deepEqual([members[1].head, members[1].safe, members[1].finalized], [300, -1, -1]);
    assert.equal(members[1].breaker.state, 'closed');
    assert.equal(tracker.finalized, -1);
  });

  test('before any agreement, the highest finalized slot reported', async () => {
    const { nodes, pool, members, tracker } = trackerOver(2, { kind: 'solana' });
    nodes[0].atSlot(300, 260);
    nodes[1].atSlot(300, 268);
    for (const m of members) pool.cordon(m, true);
    await tracker.poll();
    assert.equal(tracker.finalized, 268);
  });

  test('a slot answered as an error is a failure', async () => {
    const { nodes, members, tracker } = trackerOver(1, { kind: 'solana', breakerThreshold: 1 });
    nodes[0].atSlot(300, 268).script.set('processed', nodeError);
    await tracker.poll();
    assert.equal(members[0].breaker.state, 'open');
  });
});

describe('the heads announced lately', () => {
  /**
   * Three upstreams; a and b pushed blocks 1 to 257 (each announced), then a poll while a pushes
   * 257 again in which a and b fail and c reads block `cReads` (as in 'a poll and a push crossing').
   */
  async function afterPushes(cReads: number) {
    const setup = trackerOver(3, { breakerThreshold: 1 });
    const { nodes, members, tracker } = setup;
    for (let n = 1; n <= 257; n++) for (const m of members.slice(0, 2)) push(tracker, m, headOf(n));
    assert.equal(setup.heard.length, 257);
    for (const node of nodes) node.at(cReads, { safe: 1, finalized: 1 }).script.set('latest', 'hold');
    const polling = tracker.poll();
    push(tracker, members[0], headOf(257));
    nodes[0].waiting('latest').fail();
    nodes[1].waiting('latest').fail();
    nodes[2].waiting('latest').answer(header(cReads));
    await polling;
    return setup;
  }

  test('are kept for the 256 newest heights, the oldest dropped', async () => {
    const { tracker, heard } = await afterPushes(2);
    assert.equal(heard.length, 257, 'block 2 is still known as announced: the poll was late');
    const announced = (tracker as unknown as { announced: Map<number, string | null> }).announced;
    assert.equal(announced.size, 256);
    assert.deepEqual([...announced.keys()].slice(0, 2), [2, 3]);
  });

  test('a poll late by more than 256 heights is taken as the chain going back', async () => {
    const { tracker, heard } = await afterPushes(1);
    assert.deepEqual(simple(heard).at(-1), { number: 1, hash: hashOf(1), reorg: true });
    assert.deepEqual(tracker.head, headOf(1));
  });
});
