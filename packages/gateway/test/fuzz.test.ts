// Property-based fuzz suite (issue 12): random and structured hostile bodies (names of
// Object.prototype members as methods and members, huge and odd numbers, deep nesting, malformed
// JSON, batches of junk, wrong types in every parameter position) thrown at a real gateway in front
// of real anvil, over HTTP and over WebSocket. For every body: no 5xx, every answer a JSON-RPC
// result or an error object with an integer code, the request's id echoed exactly, and the key
// charged exactly for the calls that succeeded. At the end the process still serves and the
// balance, the ledger and the usage records agree.
// A fixed seed and bounded runs and time keep CI fast; FUZZ_SEED and FUZZ_RUNS change them for a
// longer local run (e.g. FUZZ_RUNS=5000 FUZZ_SEED=$RANDOM npm test -- gateway/test/fuzz).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PorticoDemo } from '@portico/devchain';
import { EVM_METHOD_RULES } from '@portico/gateway';
import fc from 'fast-check';
import { isLosslessNumber, parse } from 'lossless-json';
import { encodeFunctionData, type Hex } from 'viem';
import { post, remaining, rpc, type Stack, startStack } from './harness.ts';
import {
  expectsAnswer,
  type HostileBody,
  hostileBody,
  type ItemExpectation,
  PROTOTYPE_NAMES,
  seedBodies,
  type Templates,
} from './hostile-bodies.ts';
import { openRawSocket, type RawSocket, wsUrlOf } from './raw-socket.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 20261112);
const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
const TIME_LIMIT_MS = Number(process.env.FUZZ_TIME_LIMIT_MS ?? 20_000);
const MAX_DEPTH = 64;
const DAILY_CREDITS = 1_000_000_000;
const PASSTHROUGH_COST = 80;
const ADMIN_TOKEN = 'fuzz-suite-admin-token-0123456789';

/** Codes of requests refused before anything was charged, or charged and given back. */
const FREE_CODES = new Set([-32700, -32600, -32601, -32602, -32014]);
/** Text of the gateway's own failures: never an answer to client input while anvil is healthy. */
const GATEWAY_FAILURE = /Internal error in the gateway|upstream node/i;

let stack: Stack;
let url: string;
let keyId: string;
let bodies: fc.Arbitrary<HostileBody>;
let seeds: HostileBody[];
/** Totals over every body sent, for the final checks. */
const seen = { bodies: 0, charged: 0, free: 0 };

before(async () => {
  stack = await startStack({ adminToken: ADMIN_TOKEN, dailyCredits: DAILY_CREDITS });
  url = stack.url(stack.key);
  keyId = (await stack.gateway.keys.authenticate(stack.key))!.id;
  const seed = stack.seed!;
  const busy = `0x${seed.busyBlock.toString(16)}`;
  const block = await rpc(stack.anvil.url, 'eth_getBlockByNumber', [busy, false]);
  const blockHash = (block.body.result as { hash: Hex }).hash;
  const call = {
    to: seed.demoContract,
    data: encodeFunctionData({ abi: PorticoDemo.abi, functionName: 'value' }),
  };
  // A valid call of each method; the generators start from these and break them.
  const templates: Templates = {
    eth_getBlockByHash: [blockHash, false],
    eth_getBlockByNumber: [busy, true],
    eth_getUncleByBlockNumberAndIndex: ['0x1', '0x0'],
    eth_getTransactionByBlockNumberAndIndex: [busy, '0x0'],
    eth_getTransactionByHash: [seed.transactions.store],
    eth_getTransactionReceipt: [seed.transactions.store],
    eth_getBlockReceipts: [busy],
    eth_call: [call, 'latest'],
    eth_estimateGas: [call],
    eth_getLogs: [{ fromBlock: '0x0', toBlock: 'latest', address: seed.demoContract }],
    eth_chainId: [],
    eth_blockNumber: [],
    eth_gasPrice: [],
    eth_getBalance: [seed.accounts[0], 'latest'],
    eth_getCode: [seed.demoContract, 'latest'],
    eth_getStorageAt: [seed.demoContract, '0x0', 'latest'],
    eth_getTransactionCount: [seed.accounts[0], 'latest'],
    eth_feeHistory: ['0x2', 'latest', [25, 75]],
    eth_sendRawTransaction: ['0x02f86c'],
    net_version: [],
    web3_sha3: ['0x68656c6c6f'],
  };
  const methods = fc.oneof(
    { arbitrary: fc.constantFrom(...Object.keys(templates)), weight: 12 },
    { arbitrary: fc.constantFrom(...PROTOTYPE_NAMES), weight: 3 },
    fc.constantFrom(
      'eth_subscribe',
      'eth_sendTransaction',
      'anvil_setBalance',
      'evm_mine',
      'debug_traceCall',
    ),
    fc.string({ minLength: 1, maxLength: 12 }),
  );
  bodies = hostileBody(methods, templates, MAX_DEPTH);
  seeds = seedBodies(seed.demoContract, MAX_DEPTH);
});
after(async () => {
  await stack?.close();
});

const spent = () => stack.gateway.ledger.spent(keyId);

const costOf = (method: string) =>
  Object.hasOwn(EVM_METHOD_RULES, method) ? EVM_METHOD_RULES[method].cost : PASSTHROUGH_COST;

type Answer = {
  jsonrpc?: unknown;
  id?: unknown;
  result?: unknown;
  error?: { code?: unknown; message?: unknown };
};

function assertIdEchoed(answer: Answer, expected: ItemExpectation['id']) {
  if (expected === null || expected === undefined) {
    assert.equal(answer.id, null, 'an invalid or unreadable id is answered as null');
  } else if ('number' in expected) {
    assert.ok(isLosslessNumber(answer.id), `id ${expected.number} answered as ${String(answer.id)}`);
    assert.equal(answer.id.value, expected.number, 'a numeric id is echoed byte for byte');
  } else {
    assert.equal(answer.id, expected.string);
  }
}

/** The integer code of an error answer (asserted to be one). */
function errorCode(answer: Answer): number {
  const { code, message } = answer.error ?? {};
  assert.ok(isLosslessNumber(code) && Number.isInteger(Number(code.value)), 'an integer error code');
  assert.equal(typeof message, 'string', 'an error message');
  assert.doesNotMatch(message as string, GATEWAY_FAILURE);
  return Number(code.value);
}

/** Checks one answered item and returns the credits it must have cost. */
function checkItem(answer: Answer, expected: ItemExpectation): number {
  assert.ok(answer !== null && typeof answer === 'object' && !Array.isArray(answer), 'an answer object');
  assert.equal(answer.jsonrpc, '2.0');
  assertIdEchoed(answer, expected.id);
  assert.notEqual('result' in answer, 'error' in answer, 'either a result or an error');
  if ('result' in answer) {
    assert.ok(!expected.invalid, 'an invalid request has no result');
    return costOf(expected.method);
  }
  const code = errorCode(answer);
  if (expected.invalid) assert.equal(code, -32600);
  // -32601 from the node itself (a forwarded method it lacks) was an answer, and is charged.
  const refusedByGateway = code !== -32601 || /is not served on network/.test(String(answer.error?.message));
  return FREE_CODES.has(code) && refusedByGateway ? 0 : costOf(expected.method);
}

/** Checks the answer to a body (status undefined over WebSocket) and what the body cost. */
function checkReply(body: HostileBody, status: number | undefined, text: string, cost: number) {
  if (status !== undefined) assert.ok(status < 500, `HTTP ${status} for client input: ${text.slice(0, 300)}`);
  seen.bodies += 1;
  const notifications = (body.items ?? []).filter((item) => item.id === undefined);
  const mostForNotifications = notifications.reduce((sum, item) => sum + costOf(item.method), 0);
  if (!expectsAnswer(body)) {
    assert.equal(status, 204);
    assert.equal(text, '');
    assert.ok(cost >= 0 && cost <= mostForNotifications, `notifications cost ${cost}`);
    return;
  }
  const answer = parse(text) as Answer | Answer[];
  if (body.refusedWith !== undefined) {
    if (Array.isArray(answer)) assert.fail('a refused body gets one error object');
    const code = errorCode(answer);
    assert.ok(code === body.refusedWith || code === body.orRefusedWith, `refused with ${code}`);
    // Refused for its depth: the id it carries when it can be read (a cut body's may be cut too).
    const truncated = body.orRefusedWith !== undefined;
    if (code === -32600 && !(truncated && answer.id === null)) assertIdEchoed(answer, body.refusedId ?? null);
    else assertIdEchoed(answer, null);
    assert.equal(cost, 0, 'a refused body costs nothing');
    seen.free += 1;
    return;
  }
  const answered = body.items!.filter((item) => item.id !== undefined);
  const answers: unknown = body.batch ? answer : [answer];
  if (!Array.isArray(answers)) assert.fail('a batch is answered with an array');
  assert.equal(answers.length, answered.length, 'one answer per request that is not a notification');
  let charged = 0;
  for (const [index, item] of answered.entries()) charged += checkItem(answers[index], item);
  assert.ok(
    cost >= charged && cost <= charged + mostForNotifications,
    `charged ${cost} credits; the answers account for ${charged} (+ at most ${mostForNotifications} for notifications)`,
  );
  if (charged > 0) seen.charged += 1;
  else seen.free += 1;
}

const shown = (body: HostileBody) => body.text.slice(0, 500);

const options = () => ({
  seed: SEED,
  numRuns: RUNS,
  interruptAfterTimeLimit: TIME_LIMIT_MS,
  examples: seeds.map((body): [HostileBody] => [body]),
});

describe('fuzz: hostile bodies against a real gateway in front of anvil', () => {
  test('over HTTP: no 5xx, JSON-RPC answers with integer codes and exact ids, charged only for what succeeded', async () => {
    await fc.assert(
      fc.asyncProperty(bodies, async (body) => {
        const before = await spent();
        const reply = await post(url, body.text);
        try {
          const after = await spent();
          checkReply(body, reply.status, reply.text, after - before);
          // What the key is told it has left is what the ledger says (one body at a time here).
          const told = remaining(reply);
          if (told !== undefined) assert.equal(told, DAILY_CREDITS - after, 'x-credits-remaining');
        } catch (error) {
          throw new Error(
            `${(error as Error).message}\nbody: ${shown(body)}\nanswer: ${reply.text.slice(0, 500)}`,
          );
        }
      }),
      options(),
    );
  });

  test('over WebSocket: the same properties for every message', async () => {
    const socket: RawSocket = await openRawSocket(wsUrlOf(url));
    try {
      await fc.assert(
        fc.asyncProperty(
          bodies.filter((body) => expectsAnswer(body)),
          async (body) => {
            if (!expectsAnswer(body)) return;
            assert.equal(socket.socket.readyState, socket.socket.OPEN, 'the gateway never closes the socket');
            const before = await spent();
            const text = await socket.exchange(body.text);
            try {
              checkReply(body, undefined, text, (await spent()) - before);
            } catch (error) {
              throw new Error(
                `${(error as Error).message}\nbody: ${shown(body)}\nanswer: ${text.slice(0, 500)}`,
              );
            }
          },
        ),
        { ...options(), numRuns: Math.ceil(RUNS / 2) },
      );
    } finally {
      await socket.close();
    }
  });

  test('afterwards the process serves, and the balance, the ledger and the usage records agree', async () => {
    assert.ok(
      seen.charged > 10 && seen.free > 10,
      `the bodies exercised both sides: ${JSON.stringify(seen)}`,
    );
    assert.equal((await post(`${stack.gateway.url}/healthz`, undefined, { method: 'GET' })).status, 200);
    const total = await spent();
    const last = await post(url, '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}');
    assert.equal(last.status, 200);
    assert.equal(remaining(last), DAILY_CREDITS - total - PASSTHROUGH_COST);
    const usage = await post(`${stack.gateway.url}/admin/usage?keyId=${keyId}`, undefined, {
      method: 'GET',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    assert.equal(usage.status, 200);
    const rows = (usage.body as { usage: { credits: number }[] }).usage;
    assert.equal(
      rows.reduce((sum, row) => sum + row.credits, 0),
      total + PASSTHROUGH_COST,
      'usage records the credits the ledger drew',
    );
  });
});
