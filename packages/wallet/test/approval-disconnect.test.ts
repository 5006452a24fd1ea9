// A dapp that disconnects while the person decides on its connection request: the request leaves
// the approval queue, and the next request from that origin is asked, not refused with -32002.
// The real engine, approval queue and multichain client, joined in process.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  createInProcessTransport,
  createMultichainClient,
  createMultichainEngine,
  type MultichainEngine,
} from '@portico/multichain';
import { createApprovalQueue } from '../src/approvals.ts';

const ORIGIN = 'https://leaving.example';
const ACCOUNT = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const SCOPES = { optionalScopes: { 'eip155:1': { methods: ['eth_chainId'], notifications: [] } } };

function setup() {
  const asked: (() => void)[] = [];
  const queue = createApprovalQueue({
    onLog: (line) => {
      if (line.includes('waiting for the approval page')) asked.shift()?.();
    },
  });
  const engine = createMultichainEngine({
    getSupportedScopes: () => ({ 'eip155:1': { methods: ['eth_chainId'], notifications: [] } }),
    getAccounts: (namespace) => (namespace === 'eip155' ? [ACCOUNT] : []),
    approve: (request, options) => queue.request(request, options),
    invoke: async () => '0x1',
  });
  /** Resolves once the next request is waiting in the queue. */
  const nextAsk = () => new Promise<void>((resolve) => asked.push(resolve));
  return { queue, engine, nextAsk };
}

const dapp = (engine: MultichainEngine) =>
  createMultichainClient({ transport: createInProcessTransport(engine, { origin: ORIGIN }) });

test('a dapp that disconnects during approval leaves nothing pending, and its next request is asked, not -32002', async () => {
  const { queue, engine, nextAsk } = setup();
  const first = dapp(engine);
  const waiting = nextAsk();
  const abandoned = Promise.resolve(first.createSession(SCOPES));
  abandoned.catch(() => {});
  await waiting;
  assert.equal(queue.list().length, 1);

  await first.close();
  assert.deepEqual(queue.list(), [], 'the request of a dapp that left is dropped');

  const second = dapp(engine);
  const askedAgain = nextAsk();
  const granted = Promise.resolve(second.createSession(SCOPES));
  await askedAgain;
  const [request] = queue.list();
  assert.equal(request.origin, ORIGIN);
  assert.equal(queue.decide(request.id, { approved: true, accounts: { eip155: [ACCOUNT] } }), true);
  const session = await granted;
  assert.deepEqual(session.sessionScopes['eip155:1'].accounts, [`eip155:1:${ACCOUNT}`]);
  assert.deepEqual(await engine.getSession(ORIGIN), session);
  await second.close();
});

test('while a request waits, a second one from the same origin is -32002', async () => {
  const { queue, engine, nextAsk } = setup();
  const first = dapp(engine);
  const waiting = nextAsk();
  const pending = Promise.resolve(first.createSession(SCOPES));
  pending.catch(() => {});
  await waiting;
  const second = dapp(engine);
  await assert.rejects(Promise.resolve(second.createSession(SCOPES)), (error: { code?: number }) => {
    assert.equal(error.code, -32002);
    return true;
  });
  assert.equal(queue.list().length, 1);
  await first.close();
  await second.close();
});
