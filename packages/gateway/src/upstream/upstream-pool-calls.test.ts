// How the pool picks, fails over, hedges and learns, against small JSON-RPC servers whose answers
// each test scripts (a stand-in for nodes: these tests need a node that refuses a method, says it
// pruned a block, answers late or drops the connection on cue; the fleet tests in test/ run the
// same paths against anvil through the whole gateway).
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, describe, test } from 'node:test';
import { GatewayError } from '../rpc/errors.ts';
import { HttpUpstream, type UpstreamReply } from './http-upstream.ts';
import { UpstreamPool, type UpstreamPoolOptions } from './upstream-pool.ts';

type Answer = { result: unknown } | { error: { code: number; message: string } } | 'drop';
type Script = (method: string, params: unknown) => Answer | Promise<Answer>;

type FakeNode = { url: string; calls: string[]; script: Script };

const servers: Server[] = [];
const pools: UpstreamPool[] = [];
after(async () => {
  await Promise.all(pools.map((p) => p.destroy()));
  for (const server of servers) server.closeAllConnections();
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
});

async function startNode(script: Script = () => ({ result: 'ok' })): Promise<FakeNode> {
  const node: FakeNode = { url: '', calls: [], script };
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', async () => {
      const call = JSON.parse(body) as { id: number; method: string; params: unknown };
      node.calls.push(call.method);
      const answer = await node.script(call.method, call.params);
      if (answer === 'drop') {
        request.socket.destroy();
        return;
      }
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ jsonrpc: '2.0', id: call.id, ...answer }));
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  node.url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return node;
}

/** A pool over the nodes, each at the head given (default 100). */
function poolOf(nodes: FakeNode[], options: UpstreamPoolOptions = {}, heads: number[] = []) {
  const pool = new UpstreamPool(
    nodes.map((n) => new HttpUpstream(n.url, { timeoutMs: 5_000 })),
    { breakerThreshold: 1, breakerCooldownMs: 60_000, ...options },
  );
  for (const [i, member] of pool.members.entries()) member.head = heads[i] ?? 100;
  pools.push(pool);
  return pool;
}

const resultOf = (reply: UpstreamReply) => {
  assert.ok(reply.ok, JSON.stringify(reply));
  return reply.result.value;
};
const unanswered = () => new Promise<Answer>(() => {});

describe('which upstream a call goes to', () => {
  test('round-robin among equals', async () => {
    const nodes = await Promise.all([startNode(), startNode(), startNode()]);
    const pool = poolOf(nodes);
    for (let i = 0; i < 6; i++) await pool.call('eth_chainId', []);
    assert.deepEqual(
      nodes.map((n) => n.calls.length),
      [2, 2, 2],
    );
  });

  test('a lagging upstream gets no call while another is in service, unless it holds the block asked', async () => {
    const nodes = await Promise.all([startNode(), startNode(), startNode()]);
    const pool = poolOf(nodes, { maxLag: 5 }, [100, 100, 90]);
    for (let i = 0; i < 6; i++) await pool.call('eth_getBalance', []);
    assert.equal(nodes[2].calls.length, 0, 'lagging: left out');
    for (let i = 0; i < 6; i++) await pool.call('eth_getBalance', [], 80);
    assert.equal(nodes[2].calls.length, 2, 'block 80 is one it holds: back in the rotation');
  });

  test('exactly maxLag behind is not lagging; one more is', async () => {
    const nodes = await Promise.all([startNode(), startNode(), startNode()]);
    const pool = poolOf(nodes, { maxLag: 5 }, [100, 100, 95]);
    assert.equal(pool.isLagging(pool.members[2]), false);
    pool.members[2].head = 94;
    assert.equal(pool.isLagging(pool.members[2]), true);
    assert.equal(pool.lagOf(pool.members[2]), 6);
    pool.members[2].head = -1;
    assert.equal(pool.lagOf(pool.members[2]), -1, 'unknown');
  });

  test('the network head is the median of the heads in service; none known is -1', async () => {
    const nodes = await Promise.all([startNode(), startNode(), startNode(), startNode()]);
    const pool = poolOf(nodes, {}, [10, 40, 20, 30]);
    assert.equal(pool.networkHead(), 30, 'the higher middle of four');
    pool.cordon(pool.members[1], true);
    assert.equal(pool.networkHead(), 20, 'a cordoned one does not count');
    pool.members[3].breaker.failure();
    assert.equal(pool.networkHead(), 20, 'an open breaker does not count');
    pool.members[0].head = -1;
    assert.equal(pool.networkHead(), 20);
    pool.members[2].head = -1;
    assert.equal(pool.networkHead(), -1);
  });

  test('upstreams below the block asked, or past their oldest state, are tried last', async () => {
    const nodes = await Promise.all([startNode(), startNode()]);
    const pool = poolOf(nodes, { maxLag: 1000 }, [50, 100]);
    for (let i = 0; i < 4; i++) await pool.call('eth_getBalance', [], 80);
    assert.deepEqual([nodes[0].calls.length, nodes[1].calls.length], [0, 4], 'block 80: the one at 100');
    pool.members[0].head = 100;
    pool.members[1].oldestState = 90;
    for (let i = 0; i < 4; i++) await pool.call('eth_getBalance', [], 80);
    assert.deepEqual([nodes[0].calls.length, nodes[1].calls.length], [4, 4], 'pruned below 90: the other');
  });

  test('an upstream that never reported a head comes after those that did', async () => {
    const nodes = await Promise.all([startNode(), startNode()]);
    const pool = poolOf(nodes, {}, [-1, 100]);
    for (let i = 0; i < 4; i++) await pool.call('eth_chainId', []);
    assert.deepEqual([nodes[0].calls.length, nodes[1].calls.length], [0, 4]);
  });

  test('cordoned: no call; all cordoned: "No upstream node is available"', async () => {
    const nodes = await Promise.all([startNode(), startNode()]);
    const pool = poolOf(nodes);
    pool.cordon(pool.members[0], true);
    for (let i = 0; i < 3; i++) await pool.call('eth_chainId', []);
    assert.equal(nodes[0].calls.length, 0);
    pool.cordon(pool.members[1], true);
    await assert.rejects(pool.call('eth_chainId', []), (e: unknown) => {
      return (
        e instanceof GatewayError && e.kind === 'upstreamUnavailable' && /No upstream node/.test(e.message)
      );
    });
    assert.deepEqual(pool.inService(), []);
    const single = poolOf([nodes[0]]);
    single.cordon(single.members[0], true);
    assert.deepEqual(single.inService(), [], 'a lone upstream cordoned is out of service too');
  });

  test('an upstream at its maxConcurrency gets no more; the next call goes to another', async () => {
    let release: (() => void) | undefined;
    const slow = await startNode(() => new Promise((r) => (release = () => r({ result: 'slow' }))));
    const other = await startNode();
    const pool = poolOf([slow, other], { upstreamSettings: [{ maxConcurrency: 1 }, {}] });
    // Round-robin would send the second call to the slow one; it is full.
    const first = pool.call('eth_chainId', []);
    while (slow.calls.length === 0) await new Promise((r) => setTimeout(r, 2));
    for (let i = 0; i < 3; i++) assert.equal(resultOf(await pool.call('eth_chainId', [])), 'ok');
    assert.equal(slow.calls.length, 1);
    assert.equal(pool.members[0].inFlight, 1);
    release?.();
    assert.equal(resultOf(await first), 'slow');
    assert.equal(pool.members[0].inFlight, 0);
  });
});

describe('when an upstream fails', () => {
  test('a read fails over to the next, and the failed one is set aside', async () => {
    const down = await startNode(() => 'drop');
    const up = await startNode();
    const pool = poolOf([down, up]);
    for (let i = 0; i < 2; i++) assert.equal(resultOf(await pool.call('eth_chainId', [])), 'ok');
    assert.equal(pool.members[0].breaker.state, 'open');
    assert.equal(down.calls.length, 1, 'not asked again while set aside');
  });

  test('a write is never sent twice: a failure is the answer', async () => {
    const down = await startNode(() => 'drop');
    const up = await startNode();
    const pool = poolOf([down, up], { writes: new Set(['eth_sendRawTransaction']) });
    // The cursor starts at the first upstream.
    await assert.rejects(pool.call('eth_sendRawTransaction', ['0x']));
    assert.equal(up.calls.length, 0);
  });

  test('when every upstream fails, the last failure is the answer', async () => {
    const nodes = await Promise.all([startNode(() => 'drop'), startNode(() => 'drop')]);
    const pool = poolOf(nodes);
    await assert.rejects(pool.call('eth_chainId', []), (e: unknown) => e instanceof GatewayError);
    assert.deepEqual(
      nodes.map((n) => n.calls.length),
      [1, 1],
    );
  });

  test('a node error that is an answer (a revert) is passed on, not failed over', async () => {
    const reverting = await startNode(() => ({ error: { code: 3, message: 'execution reverted' } }));
    const other = await startNode();
    const pool = poolOf([reverting, other]);
    const reply = await pool.call('eth_call', []);
    assert.deepEqual(reply, { ok: false, error: { code: 3, message: 'execution reverted' } });
    assert.equal(other.calls.length, 0);
    assert.equal(pool.members[0].breaker.state, 'closed');
  });
});

describe('a method an upstream does not serve', () => {
  const refuse = (method: string) => () =>
    ({ error: { code: -32601, message: `the method ${method} does not exist/is not available` } }) as Answer;

  test('goes to the next, and is not sent to the refusing one again', async () => {
    const refusing = await startNode(refuse('debug_traceCall'));
    const serving = await startNode(() => ({ result: 'traced' }));
    const pool = poolOf([refusing, serving]);
    for (let i = 0; i < 4; i++) assert.equal(resultOf(await pool.call('debug_traceCall', [])), 'traced');
    assert.equal(refusing.calls.length, 1);
    assert.equal(pool.members[0].breaker.state, 'closed', 'a refusal is not a failure');
    assert.equal(pool.members[0].refused.refuses('debug_traceCall'), true);
  });

  test('none serves it: -32601 naming the method and the network', async () => {
    const nodes = await Promise.all([startNode(refuse('x')), startNode(refuse('x'))]);
    const pool = poolOf(nodes, { network: 'mainnet' });
    const check = (e: unknown) =>
      e instanceof GatewayError &&
      e.kind === 'methodNotFound' &&
      e.message ===
        'the method trace_block is not available on mainnet: none of its upstream nodes serves it';
    await assert.rejects(pool.call('trace_block', []), check);
    await assert.rejects(pool.call('trace_block', []), check, 'known refusals: no upstream is asked');
    assert.deepEqual(
      nodes.map((n) => n.calls.length),
      [1, 1],
    );
    const write = poolOf(nodes, { network: 'mainnet', writes: new Set(['trace_block']) });
    await assert.rejects(write.call('trace_block', []), check, 'a write refused by each in turn');
  });
});

describe('an upstream that no longer holds the state of a block', () => {
  const pruned = () => ({ error: { code: -32000, message: 'missing trie node abc (path )' } }) as Answer;

  test('the call goes to one that holds it, and the pruned one learns its oldest state', async () => {
    const nodes = await Promise.all([startNode(pruned), startNode(() => ({ result: '0x1' }))]);
    const pool = poolOf(nodes);
    assert.equal(resultOf(await pool.call('eth_getBalance', [], 40)), '0x1');
    assert.equal(pool.members[0].oldestState, 41);
    assert.equal(pool.members[0].breaker.state, 'closed');
  });

  test('none holds it: the node’s own answer', async () => {
    const nodes = await Promise.all([startNode(pruned), startNode(pruned)]);
    const pool = poolOf(nodes);
    const reply = await pool.call('eth_getBalance', [], 40);
    assert.deepEqual(reply, { ok: false, error: { code: -32000, message: 'missing trie node abc (path )' } });
    const lone = poolOf([nodes[0]]);
    assert.deepEqual(await lone.call('eth_getBalance', [], 40), reply, 'alone, too');
  });

  test('at or above its head the same words are an answer, not pruning', async () => {
    const nodes = await Promise.all([startNode(pruned), startNode(() => ({ result: '0x1' }))]);
    const pool = poolOf(nodes);
    const reply = await pool.call('eth_getBalance', [], 100);
    assert.equal(reply.ok, false);
    assert.equal(pool.members[0].oldestState, 0);
  });
});

describe('hedging a slow call', () => {
  test('a call unanswered after hedgeAfterMs goes to the next too; the first answer wins', async () => {
    const slow = await startNode(unanswered);
    const fast = await startNode(() => ({ result: 'fast' }));
    const outcomes: string[] = [];
    const pool = poolOf([slow, fast], { hedgeAfterMs: 20, onHedge: (o) => outcomes.push(o) });
    assert.equal(resultOf(await pool.call('eth_chainId', [])), 'fast');
    assert.deepEqual(outcomes, ['sent', 'won']);
    assert.equal(pool.members[0].breaker.state, 'closed', 'the abandoned call is not held against it');
  });

  test('a write is never hedged', async () => {
    let release: (() => void) | undefined;
    const slow = await startNode(() => new Promise((r) => (release = () => r({ result: 'sent' }))));
    const other = await startNode();
    const outcomes: string[] = [];
    const pool = poolOf([slow, other], {
      hedgeAfterMs: 5,
      writes: new Set(['eth_sendRawTransaction']),
      onHedge: (o) => outcomes.push(o),
    });
    const reply = pool.call('eth_sendRawTransaction', ['0x']);
    while (!release) await new Promise((r) => setTimeout(r, 2));
    await new Promise((r) => setTimeout(r, 30));
    release();
    assert.equal(resultOf(await reply), 'sent');
    assert.deepEqual(outcomes, []);
    assert.equal(other.calls.length, 0);
  });
});

test('an answer that reports a head moves the upstream’s head, never back', async () => {
  const node = await startNode(() => ({ result: '0x80' }));
  const pool = poolOf([node], {
    headOfAnswer: (method, result) =>
      method === 'eth_blockNumber' ? Number(BigInt(result.value as string)) : undefined,
  });
  await pool.call('eth_blockNumber', []);
  assert.equal(pool.members[0].head, 128);
  pool.members[0].head = 200;
  await pool.call('eth_blockNumber', []);
  assert.equal(pool.members[0].head, 200);
  await pool.call('eth_chainId', []);
  assert.equal(pool.members[0].head, 200);
});

test('callMember counts a failure against that upstream’s breaker; a refusal it does not', async () => {
  const down = await startNode(() => 'drop');
  const pool = poolOf([down, await startNode()]);
  await assert.rejects(pool.callMember(pool.members[0], 'eth_chainId', []));
  assert.equal(pool.members[0].breaker.state, 'open');
  const refusing = await startNode(() => ({ error: { code: -32601, message: 'method not found' } }));
  const other = poolOf([refusing]);
  await assert.rejects(other.callMember(other.members[0], 'trace_x', []));
  assert.equal(other.members[0].breaker.state, 'closed');
});
