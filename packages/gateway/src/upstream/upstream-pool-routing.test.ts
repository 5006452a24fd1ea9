// Which upstream the pool picks, when it fails over and when it hedges, against upstreams held in
// the test's hands: each call waits until the test answers or fails it (or is answered at once),
// and the hedge timer is node:test's mock clock, so "what happens when a hedge and a failure cross"
// is played step by step, with no real time in the outcome. upstream-pool-calls.test.ts runs the
// same paths over HTTP against scripted nodes.
import assert from 'node:assert/strict';
import { describe, type TestContext, test } from 'node:test';
import { GatewayError } from '../rpc/errors.ts';
import { JsonResult } from '../rpc/json-result.ts';
import type { HttpUpstream, UpstreamReply } from './http-upstream.ts';
import { UpstreamPool, type UpstreamPoolOptions } from './upstream-pool.ts';

type Call = {
  method: string;
  signal: AbortSignal | undefined;
  answer: (reply?: UpstreamReply) => void;
  fail: () => void;
};

const ok = (value: unknown): UpstreamReply => ({ ok: true, result: JsonResult.ofValue(value) });
const refusal: UpstreamReply = { ok: false, error: { code: -32601, message: 'the method does not exist' } };
const pruned: UpstreamReply = { ok: false, error: { code: -32000, message: 'missing trie node abc' } };

/**
 * An upstream the test drives. `mode`: `answer` (at once, with its label), `fail` (at once, as a
 * node that cannot be reached), `hold` (until the test calls `answer` or `fail` on the call), or a
 * reply to give at once. An abandoned call fails at once unless `keepsAbandoned` (an answer that
 * was already on its way).
 */
class Node {
  readonly calls: Call[] = [];
  mode: 'answer' | 'fail' | 'hold' | UpstreamReply = 'answer';
  keepsAbandoned = false;

  constructor(readonly label: string) {}

  call(method: string, _params: unknown, signal?: AbortSignal): Promise<UpstreamReply> {
    return new Promise((resolve, reject) => {
      const unavailable = () => new GatewayError('upstreamUnavailable', `${this.label} is unavailable`);
      const call: Call = {
        method,
        signal,
        answer: (reply = ok(this.label)) => resolve(reply),
        fail: () => reject(unavailable()),
      };
      this.calls.push(call);
      if (!this.keepsAbandoned)
        signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
      if (this.mode === 'answer') call.answer();
      else if (this.mode === 'fail') call.fail();
      else if (this.mode !== 'hold') call.answer(this.mode);
    });
  }

  async close() {}
  async destroy() {}
}

function nodes(count: number): Node[] {
  return Array.from({ length: count }, (_, i) => new Node('abcdefgh'[i]));
}

/** A pool over the nodes, each at the head given (default 100); one failure sets an upstream aside. */
function poolOf(of: Node[], options: UpstreamPoolOptions = {}, heads: number[] = []) {
  const pool = new UpstreamPool(of as unknown as HttpUpstream[], {
    breakerThreshold: 1,
    breakerCooldownMs: 60_000,
    ...options,
  });
  for (const [i, member] of pool.members.entries()) member.head = heads[i] ?? 100;
  return pool;
}

const answerer = (reply: UpstreamReply) => {
  assert.ok(reply.ok, JSON.stringify(reply));
  return reply.result.value;
};
/** Who answered each of `count` calls, one after the other. */
async function answerers(pool: UpstreamPool, count: number, minHead?: number) {
  const seen: unknown[] = [];
  for (let i = 0; i < count; i++) seen.push(answerer(await pool.call('eth_getBalance', [], minHead)));
  return seen;
}
/** Lets every settled call run its callbacks (the nodes answer in-process: no I/O to wait for). */
const settle = () => new Promise((resolve) => setImmediate(resolve));
const unavailable = (message: string) => (e: unknown) =>
  e instanceof GatewayError && e.kind === 'upstreamUnavailable' && e.message === message;
const noUpstream = unavailable(
  'No upstream node is available (every one is down, cordoned or at its maxConcurrency); retry shortly',
);
const mockTimers = (t: TestContext) => t.mock.timers.enable({ apis: ['setTimeout'] });

describe('the options’ defaults', () => {
  test('upstreams are named by their index unless a setting names them; a setting covers its own only', () => {
    const pool = poolOf(nodes(3), { upstreamSettings: [{ name: 'first' }, { maxConcurrency: 2 }] });
    assert.deepEqual(
      pool.members.map((m) => [m.name, m.maxConcurrency]),
      [
        ['first', Number.POSITIVE_INFINITY],
        ['1', 2],
        ['2', Number.POSITIVE_INFINITY],
      ],
    );
  });

  test('a new pool knows no head, safe or finalized block until one is reported', () => {
    const pool = new UpstreamPool(nodes(2) as unknown as HttpUpstream[]);
    assert.deepEqual(
      pool.members.map((m) => [m.head, m.safe, m.finalized, pool.lagOf(m)]),
      [
        [-1, -1, -1, -1],
        [-1, -1, -1, -1],
      ],
    );
    assert.equal(pool.networkHead(), -1);
    assert.equal(pool.agreed(), undefined);
    for (const m of pool.members) m.head = 100;
    assert.deepEqual(pool.agreed(), { latest: 100, safe: -1, finalized: -1 });
  });

  test('an upstream more than 5 blocks behind is lagging', () => {
    const pool = new UpstreamPool(nodes(3) as unknown as HttpUpstream[]);
    for (const [i, head] of [100, 100, 95].entries()) pool.members[i].head = head;
    assert.equal(pool.isLagging(pool.members[2]), false);
    pool.members[2].head = 94;
    assert.equal(pool.isLagging(pool.members[2]), true);
  });

  test('without a network name, "this network" is named when no upstream serves a method', async () => {
    const pool = poolOf(nodes(1));
    pool.members[0].refused.note('trace_block');
    await assert.rejects(
      pool.call('trace_block', []),
      (e: unknown) =>
        e instanceof GatewayError &&
        e.message ===
          'the method trace_block is not available on this network: none of its upstream nodes serves it',
    );
  });
});

describe('heads and agreed heights', () => {
  test('a chain at block 0 has a head: it counts, lags by nothing, and takes calls', async () => {
    const pool = poolOf(nodes(2), {}, [0, 0]);
    for (const m of pool.members) Object.assign(m, { safe: 0, finalized: 0 });
    assert.equal(pool.networkHead(), 0);
    assert.deepEqual(
      pool.members.map((m) => pool.lagOf(m)),
      [0, 0],
    );
    assert.deepEqual(pool.agreed(), { latest: 0, safe: 0, finalized: 0 });
    pool.members[1].head = 1;
    assert.deepEqual(await answerers(pool, 4), ['a', 'b', 'a', 'b'], 'the one at 0 is not ranked last');
  });

  test('upstreams without a head do not count for the network head', () => {
    assert.equal(poolOf(nodes(3), {}, [-1, -1, 100]).networkHead(), 100);
  });

  test('with no network head, even an upstream that knows its own head has an unknown lag', () => {
    const pool = poolOf(nodes(2), {}, [100, -1]);
    pool.cordon(pool.members[0], true);
    assert.equal(pool.networkHead(), -1);
    assert.equal(pool.lagOf(pool.members[0]), -1);
  });

  test('an upstream set aside does not hold the agreed heights back', () => {
    const pool = poolOf(nodes(3), { maxLag: 50 }, [100, 100, 90]);
    pool.members[2].breaker.failure();
    assert.equal(pool.agreed()?.latest, 100);
  });

  test('an upstream ahead of the network head lags by nothing', () => {
    const pool = poolOf(nodes(3), {}, [100, 101, 1000]);
    assert.equal(pool.lagOf(pool.members[2]), 0);
  });

  test('agreed heights leave out upstreams cordoned or without a head', () => {
    const pool = poolOf(nodes(3), {}, [100, 99, -1]);
    Object.assign(pool.members[0], { safe: 90, finalized: 80 });
    Object.assign(pool.members[1], { safe: 10, finalized: 5 });
    pool.cordon(pool.members[1], true);
    assert.deepEqual(pool.agreed(), { latest: 100, safe: 90, finalized: 80 });
  });

  test('an upstream that reports no safe or finalized block leaves them to the others', () => {
    const pool = poolOf(nodes(2), {}, [100, 100]);
    Object.assign(pool.members[0], { safe: 90, finalized: 80 });
    assert.deepEqual(pool.agreed(), { latest: 100, safe: 90, finalized: 80 });
  });

  test('an error answer to a head-reporting method leaves the head as it was', async () => {
    const [node] = nodes(1);
    node.mode = { ok: false, error: { code: -32000, message: 'internal error' } };
    const pool = poolOf([node], {
      headOfAnswer: (_method, result) => Number(result.value),
    });
    const reply = await pool.call('eth_blockNumber', []);
    assert.equal(reply.ok, false);
    assert.equal(pool.members[0].head, 100);
  });
});

describe('which upstream a call goes to', () => {
  test('round-robin goes through the upstreams in their order', async () => {
    assert.deepEqual(await answerers(poolOf(nodes(3)), 6), ['a', 'b', 'c', 'a', 'b', 'c']);
  });

  test('a lagging upstream is left out even when all the others fail', async () => {
    const [a, b, c] = nodes(3);
    a.mode = 'fail';
    b.mode = 'fail';
    const pool = poolOf([a, b, c], { maxLag: 5 }, [100, 100, 90]);
    await assert.rejects(pool.call('eth_getBalance', []), unavailable('b is unavailable'));
    assert.equal(c.calls.length, 0);
    const above = poolOf([a, b, c], { maxLag: 5 }, [100, 100, 90]);
    await assert.rejects(above.call('eth_getBalance', [], 95), unavailable('b is unavailable'), 'block 95');
    assert.equal(c.calls.length, 0);
  });

  test('a lagging upstream set aside is left out too, its cooldown passed or not', async () => {
    const [a, b, c] = nodes(3);
    a.mode = 'fail';
    b.mode = 'fail';
    const pool = poolOf([a, b, c], { maxLag: 5, breakerCooldownMs: 0 }, [100, 100, 90]);
    pool.members[2].breaker.failure();
    await assert.rejects(pool.call('eth_getBalance', []), unavailable('b is unavailable'));
    assert.equal(c.calls.length, 0);
  });

  test('a lagging upstream whose head is the block asked holds it', async () => {
    const pool = poolOf(nodes(3), { maxLag: 5 }, [100, 100, 90]);
    assert.deepEqual(await answerers(pool, 3, 90), ['a', 'b', 'c']);
  });

  test('an upstream whose head or oldest state is exactly the block asked holds it', async () => {
    const pool = poolOf(nodes(2), { maxLag: 1000 }, [80, 100]);
    assert.deepEqual(await answerers(pool, 2, 80), ['a', 'b'], 'head 80');
    pool.members[0].head = 100;
    pool.members[0].oldestState = 80;
    assert.deepEqual(await answerers(pool, 2, 80), ['a', 'b'], 'oldest state 80');
    pool.members[0].oldestState = 81;
    assert.deepEqual(await answerers(pool, 2, 80), ['b', 'b'], 'oldest state 81: tried last');
  });

  test('an upstream set aside comes after the others even once its cooldown has passed, and its trial closes it', async () => {
    const [a, b] = nodes(2);
    const pool = poolOf([a, b], { breakerCooldownMs: 0 });
    pool.members[0].breaker.failure();
    assert.deepEqual(await answerers(pool, 2), ['b', 'b']);
    b.mode = 'fail';
    assert.deepEqual(await answerers(pool, 1), ['a'], 'the others down: its trial');
    assert.equal(pool.members[0].breaker.state, 'closed');
  });

  test('inService lists the upstreams a call may use now, those holding the block asked first', () => {
    const pool = poolOf(nodes(4), { maxLag: 1000 }, [50, 100, 100, 100]);
    pool.members[1].breaker.failure();
    pool.cordon(pool.members[2], true);
    assert.deepEqual(
      pool.inService().map((m) => m.name),
      ['0', '3'],
    );
    assert.deepEqual(
      pool.inService(80).map((m) => m.name),
      ['3', '0'],
    );
  });

  test('a lone upstream set aside gets no call during its cooldown: "No upstream node is available"', async () => {
    const [a] = nodes(1);
    const pool = poolOf([a]);
    pool.members[0].breaker.failure();
    await assert.rejects(pool.call('eth_chainId', []), noUpstream);
    assert.equal(a.calls.length, 0);
  });

  test('every upstream at its maxConcurrency: "No upstream node is available"', async () => {
    const [a, b] = nodes(2);
    a.mode = 'hold';
    b.mode = 'hold';
    const pool = poolOf([a, b], { upstreamSettings: [{ maxConcurrency: 1 }, { maxConcurrency: 1 }] });
    const running = [pool.call('eth_chainId', []), pool.call('eth_chainId', [])];
    await assert.rejects(pool.call('eth_chainId', []), noUpstream);
    a.calls[0].answer();
    b.calls[0].answer();
    assert.deepEqual((await Promise.all(running)).map(answerer), ['a', 'b']);
  });

  test('a write skips an upstream at its maxConcurrency', async () => {
    const [a, b] = nodes(2);
    a.mode = 'hold';
    const pool = poolOf([a, b], {
      upstreamSettings: [{ maxConcurrency: 1 }, {}],
      writes: new Set(['eth_sendRawTransaction']),
    });
    const held = pool.call('eth_call', []);
    a.mode = 'answer';
    assert.deepEqual(await answerers(pool, 1), ['b']);
    assert.equal(answerer(await pool.call('eth_sendRawTransaction', ['0x'])), 'b', 'a is full');
    a.calls[0].answer();
    assert.equal(answerer(await held), 'a');
  });
});

describe('failing over', () => {
  test('when every upstream fails, the last one’s failure is the answer', async () => {
    const [a, b] = nodes(2);
    a.mode = 'fail';
    b.mode = 'fail';
    await assert.rejects(poolOf([a, b]).call('eth_chainId', []), unavailable('b is unavailable'));
  });

  test('one upstream pruned and the other down: the failure is the answer, not the pruned node’s', async () => {
    const [a, b] = nodes(2);
    a.mode = pruned;
    b.mode = 'fail';
    await assert.rejects(poolOf([a, b]).call('eth_getBalance', [], 40), unavailable('b is unavailable'));
  });

  test('an upstream set aside is not called by a failover during its cooldown', async () => {
    const [a, b] = nodes(2);
    a.mode = 'fail';
    const pool = poolOf([a, b]);
    pool.members[1].breaker.failure();
    await assert.rejects(pool.call('eth_chainId', []), unavailable('a is unavailable'));
    assert.equal(b.calls.length, 0);
  });

  test('an upstream cordoned while a call runs gets no failover of it', async () => {
    const [a, b, c] = nodes(3);
    a.mode = 'hold';
    const pool = poolOf([a, b, c]);
    const reply = pool.call('eth_chainId', []);
    pool.cordon(pool.members[1], true);
    a.calls[0].fail();
    assert.equal(answerer(await reply), 'c');
    assert.equal(b.calls.length, 0);
  });

  test('an upstream that filled up while a call ran gets no failover of it', async () => {
    const [a, b, c] = nodes(3);
    a.mode = 'hold';
    b.mode = 'hold';
    const pool = poolOf([a, b, c], { upstreamSettings: [{}, { maxConcurrency: 1 }] });
    const first = pool.call('eth_chainId', []);
    const second = pool.call('eth_chainId', []);
    a.calls[0].fail();
    assert.equal(answerer(await first), 'c');
    assert.equal(b.calls.length, 1);
    b.calls[0].answer();
    assert.equal(answerer(await second), 'b');
  });

  test('a refusal learnt from another call meanwhile is respected by a failover', async () => {
    const [a, b, c] = nodes(3);
    a.mode = 'hold';
    b.mode = refusal;
    const pool = poolOf([a, b, c]);
    const first = pool.call('debug_traceCall', []);
    assert.equal(answerer(await pool.call('debug_traceCall', [])), 'c', 'b refused it');
    a.calls[0].fail();
    assert.equal(answerer(await first), 'c');
    assert.equal(b.calls.length, 1);
  });

  test('a write refused by the first upstream goes to the next in order', async () => {
    const [a, b, c] = nodes(3);
    a.mode = refusal;
    const pool = poolOf([a, b, c], { writes: new Set(['eth_sendRawTransaction']) });
    assert.equal(answerer(await pool.call('eth_sendRawTransaction', ['0x'])), 'b');
    assert.equal(c.calls.length, 0);
  });

  test('a write passed on after a refusal skips an upstream that refused it meanwhile', async () => {
    const [a, b, c] = nodes(3);
    a.mode = 'hold';
    b.mode = refusal;
    const pool = poolOf([a, b, c], { writes: new Set(['eth_sendRawTransaction']) });
    const first = pool.call('eth_sendRawTransaction', ['0x1']);
    assert.equal(answerer(await pool.call('eth_sendRawTransaction', ['0x2'])), 'c', 'b refused it');
    a.calls[0].answer(refusal);
    assert.equal(answerer(await first), 'c');
    assert.equal(b.calls.length, 1);
  });

  test('a write goes past an upstream known to refuse it without asking it', async () => {
    const [a, b] = nodes(2);
    const pool = poolOf([a, b], { writes: new Set(['eth_sendRawTransaction']) });
    pool.members[0].refused.note('eth_sendRawTransaction');
    assert.equal(answerer(await pool.call('eth_sendRawTransaction', ['0x'])), 'b');
    assert.equal(a.calls.length, 0);
  });

  test('a write passed on after a refusal goes forward, not back to one it skipped as full', async () => {
    const [a, b, c] = nodes(3);
    a.mode = 'hold';
    const pool = poolOf([a, b, c], {
      upstreamSettings: [{ maxConcurrency: 1 }, {}, {}],
      writes: new Set(['eth_sendRawTransaction']),
    });
    const held = pool.call('eth_call', []);
    a.mode = 'answer';
    assert.deepEqual(await answerers(pool, 2), ['b', 'c'], 'the rotation is back at a');
    b.mode = 'hold';
    const write = pool.call('eth_sendRawTransaction', ['0x']);
    assert.equal(b.calls.length, 2, 'a is full: b has it');
    a.calls[0].answer();
    assert.equal(answerer(await held), 'a');
    b.calls[1].answer(refusal);
    assert.equal(answerer(await write), 'c');
    assert.equal(a.calls.length, 1);
  });

  test('a failed write counts against its upstream', async () => {
    const [a, b] = nodes(2);
    a.mode = 'fail';
    const pool = poolOf([a, b], { writes: new Set(['eth_sendRawTransaction']) });
    await assert.rejects(pool.call('eth_sendRawTransaction', ['0x']), unavailable('a is unavailable'));
    assert.equal(pool.members[0].breaker.state, 'open');
  });

  test('an answer clears the failures before it', async () => {
    const [a] = nodes(1);
    const pool = poolOf([a], { breakerThreshold: 2 });
    for (const mode of ['fail', 'answer', 'fail'] as const) {
      a.mode = mode;
      await pool.call('eth_chainId', []).catch(() => {});
    }
    assert.equal(pool.members[0].breaker.state, 'closed');
  });
});

describe('hedging', () => {
  const hedging = (outcomes: string[], more: UpstreamPoolOptions = {}): UpstreamPoolOptions => ({
    hedgeAfterMs: 100,
    onHedge: (outcome) => outcomes.push(outcome),
    ...more,
  });
  const held = (count: number) => {
    const all = nodes(count);
    for (const node of all) node.mode = 'hold';
    return all;
  };

  test('a call answered in time is never hedged', async (t) => {
    mockTimers(t);
    const [a, b] = nodes(2);
    const outcomes: string[] = [];
    assert.equal(answerer(await poolOf([a, b], hedging(outcomes)).call('eth_chainId', [])), 'a');
    t.mock.timers.tick(1000);
    assert.deepEqual(outcomes, []);
    assert.equal(b.calls.length, 0);
  });

  test('without hedgeAfterMs a slow call is not hedged', async (t) => {
    mockTimers(t);
    const [a, b] = held(2);
    const reply = poolOf([a, b]).call('eth_chainId', []);
    t.mock.timers.tick(60_000);
    assert.equal(b.calls.length, 0);
    a.calls[0].answer();
    assert.equal(answerer(await reply), 'a');
  });

  test('a failover call gets the whole hedgeAfterMs before it is hedged', async (t) => {
    mockTimers(t);
    const [a, b, c] = held(3);
    const outcomes: string[] = [];
    const reply = poolOf([a, b, c], hedging(outcomes)).call('eth_chainId', []);
    t.mock.timers.tick(50);
    a.calls[0].fail();
    await settle();
    assert.equal(b.calls.length, 1, 'failed over at 50 ms');
    t.mock.timers.tick(99);
    assert.equal(c.calls.length, 0, 'not hedged at 149 ms');
    t.mock.timers.tick(1);
    assert.equal(c.calls.length, 1, 'hedged at 150 ms');
    c.calls[0].answer();
    assert.equal(answerer(await reply), 'c');
    assert.deepEqual(outcomes, ['sent', 'won']);
    assert.equal(b.calls[0].signal?.aborted, true, 'the slower call is abandoned');
  });

  test('at most two calls run at once: a hedge is not hedged again', async (t) => {
    mockTimers(t);
    const [a, b, c] = held(3);
    const outcomes: string[] = [];
    const reply = poolOf([a, b, c], hedging(outcomes)).call('eth_chainId', []);
    for (let i = 0; i < 5; i++) t.mock.timers.tick(100);
    assert.deepEqual([a.calls.length, b.calls.length, c.calls.length], [1, 1, 0]);
    assert.deepEqual(outcomes, ['sent']);
    b.calls[0].answer();
    assert.equal(answerer(await reply), 'b');
  });

  test('the first call answering first wins; the hedge is abandoned and not held against its upstream', async (t) => {
    mockTimers(t);
    const [a, b, c] = held(3);
    const outcomes: string[] = [];
    const pool = poolOf([a, b, c], hedging(outcomes));
    const reply = pool.call('eth_chainId', []);
    t.mock.timers.tick(100);
    a.calls[0].answer();
    assert.equal(answerer(await reply), 'a');
    await settle();
    assert.deepEqual(outcomes, ['sent']);
    assert.equal(b.calls[0].signal?.aborted, true);
    assert.equal(pool.members[1].breaker.state, 'closed');
    assert.equal(c.calls.length, 0, 'the abandoned hedge is not failed over');
  });

  test('a hedge answering after the winner changes nothing', async (t) => {
    mockTimers(t);
    const [a, b] = held(2);
    b.keepsAbandoned = true;
    const outcomes: string[] = [];
    const reply = poolOf([a, b], hedging(outcomes)).call('eth_chainId', []);
    t.mock.timers.tick(100);
    a.calls[0].answer();
    b.calls[0].answer();
    assert.equal(answerer(await reply), 'a');
    await settle();
    assert.deepEqual(outcomes, ['sent'], 'the hedge did not win');
  });

  test('the first call failing while the hedge runs: the hedge’s answer is the answer', async (t) => {
    mockTimers(t);
    const [a, b] = held(2);
    const outcomes: string[] = [];
    const reply = poolOf([a, b], hedging(outcomes)).call('eth_chainId', []);
    t.mock.timers.tick(100);
    a.calls[0].fail();
    await settle();
    b.calls[0].answer();
    assert.equal(answerer(await reply), 'b');
    assert.deepEqual(outcomes, ['sent', 'won']);
  });

  test('hedging works without an onHedge listener', async (t) => {
    mockTimers(t);
    const [a, b] = held(2);
    const reply = poolOf([a, b], { hedgeAfterMs: 100 }).call('eth_chainId', []);
    t.mock.timers.tick(100);
    b.calls[0].answer();
    assert.equal(answerer(await reply), 'b');
  });
});

test('close closes every upstream; destroy destroys every one', async () => {
  const shut: string[] = [];
  const all = nodes(2).map((node) =>
    Object.assign(node, {
      close: async () => void shut.push(`close ${node.label}`),
      destroy: async () => void shut.push(`destroy ${node.label}`),
    }),
  );
  const pool = poolOf(all);
  await pool.close();
  await pool.destroy();
  assert.deepEqual(shut, ['close a', 'close b', 'destroy a', 'destroy b']);
});
