// Cordon and concurrency caps against real anvils: an operator takes an upstream out through the
// admin API (calls in flight finish, no new ones reach it) and puts it back; an upstream at its
// maxConcurrency takes no more calls. A small proxy in front of one anvil holds eth_getBalance
// calls until released, so that a call can be in flight (anvil answers too fast to see one).
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { after, before, beforeEach, describe, test } from 'node:test';
import { type Anvil, startAnvil } from '@portico/devchain';
import type { ApiKeyRecord, Gateway } from '@portico/gateway';
import { gatewayFor, post, postOnly, type RpcReply, rpc } from './harness.ts';

const ADMIN_TOKEN = 'admin-token-for-cordon-tests-0123456789';

let anvils: Anvil[];
let gateway: Gateway;
let record: ApiKeyRecord;
let url: string;
const held: (() => void)[] = [];
let holding = false;
let reachedA = 0;

const proxy = createServer(
  postOnly((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const forward = async () => {
        const answer = await fetch(anvils[0].url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        });
        response.writeHead(answer.status, { 'content-type': 'application/json' });
        response.end(await answer.text());
      };
      if ((JSON.parse(body.toString()) as { method: string }).method !== 'eth_getBalance')
        return void forward();
      reachedA += 1;
      if (holding) held.push(() => void forward());
      else void forward();
    });
  }),
);

before(async () => {
  anvils = await Promise.all([startAnvil(), startAnvil()]);
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const proxyUrl = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
  gateway = await gatewayFor(anvils[0].url, {
    adminToken: ADMIN_TOKEN,
    extraNetworks: [
      {
        name: 'pair',
        chainId: 'eip155:31337',
        cache: false,
        headPollMs: 200,
        upstreams: [
          { url: proxyUrl, name: 'a', maxConcurrency: 1 },
          { url: anvils[1].url, name: 'b' },
        ],
      },
    ],
  });
  const created = await gateway.keys.create({ name: 'cordon', dailyCredits: 1_000_000 });
  record = created.record;
  url = `${gateway.url}/pair/v3/${created.key}`;
  // Both upstreams in service before the tests start.
  for (let i = 0; i < 100 && !(await upstreams()).every((u) => u.up); i++) await sleep(100);
});
after(async () => {
  for (const release of held) release();
  await gateway?.close();
  proxy.closeAllConnections();
  proxy.close();
  await Promise.all((anvils ?? []).map((a) => a.stop()));
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const admin = (path: string, method = 'POST', token = ADMIN_TOKEN) =>
  post(`${gateway.url}/admin/upstreams${path}`, undefined, {
    method,
    headers: { authorization: `Bearer ${token}` },
  });

type State = { name: string; up: boolean; cordoned: boolean; drained: boolean; inFlight: number };
async function upstreams(): Promise<State[]> {
  return ((await admin('', 'GET')).body as { networks: Record<string, State[]> }).networks.pair;
}
async function until(check: (states: State[]) => boolean) {
  for (let i = 0; i < 300; i++) {
    const states = await upstreams();
    if (check(states)) return states;
    await sleep(50);
  }
  throw new Error(JSON.stringify(await upstreams()));
}
// Each call asks about another address: identical calls in flight would share one upstream call.
let nextAddress = 0x100;
const balance = () =>
  rpc(url, 'eth_getBalance', [`0x${(nextAddress++).toString(16).padStart(40, '0')}`, 'latest']);

describe('cordon and concurrency caps', () => {
  // Each test starts with both upstreams in service and nothing held.
  beforeEach(async () => {
    holding = false;
    for (const release of held.splice(0)) release();
    await admin('/pair/a/uncordon');
    await admin('/pair/b/uncordon');
  });

  test('the cordon API needs the admin token and names what it does not know', async () => {
    assert.equal((await admin('/pair/a/cordon', 'POST', 'wrong-token-wrong-token-wrong-token')).status, 401);
    const unknown = await admin('/pair/z/cordon');
    assert.equal(unknown.status, 404);
    assert.match(unknown.text, /no upstream z in pair; upstreams: a \(0, 127\.0\.0\.1:\d+\), b \(1, /);
    assert.equal((await admin('/nowhere/a/cordon')).status, 404);
    assert.equal(
      (await upstreams()).some((u) => u.cordoned),
      false,
      'nothing was cordoned',
    );
  });

  test('cordoned: the call in flight finishes, new calls go elsewhere, none reaches it until uncordoned', async () => {
    const spent = await gateway.ledger.spent(record.id);
    assert.equal((await admin('/pair/b/cordon')).status, 200); // every call to a
    holding = true;
    const inFlight = balance();
    await until((s) => s[0].inFlight === 1);
    const cordoned = await admin('/pair/a/cordon');
    assert.equal(cordoned.status, 200, cordoned.text);
    assert.deepEqual(
      (({ name, cordoned, drained, inFlight }) => ({ name, cordoned, drained, inFlight }))(
        cordoned.body as State,
      ),
      { name: 'a', cordoned: true, drained: false, inFlight: 1 },
    );
    assert.equal((await admin('/pair/1/uncordon')).status, 200, 'b named by its index');
    const reached = reachedA;
    for (let i = 0; i < 4; i++) {
      const reply = await balance();
      assert.equal(reply.body.result, '0x0', reply.text);
    }
    assert.equal(reachedA, reached, 'no new call reached the cordoned upstream');
    holding = false;
    for (const release of held.splice(0)) release();
    const finished: RpcReply = await inFlight;
    assert.equal(
      finished.body.result,
      '0x0',
      `the call in flight finished with its answer: ${finished.text}`,
    );
    assert.deepEqual(
      (await until((s) => s[0].drained)).map((s) => [s.name, s.cordoned, s.drained, s.up]),
      [
        ['a', true, true, false],
        ['b', false, false, true],
      ],
    );
    const ready = await post(`${gateway.url}/readyz`, undefined, { method: 'GET' });
    assert.equal(ready.status, 200, 'one upstream in service is enough');
    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    assert.match(metrics, /portico_upstream_cordoned\{network="pair",upstream="0",host="[^"]+"\} 1/);
    assert.match(metrics, /portico_upstream_cordoned\{network="pair",upstream="1",host="[^"]+"\} 0/);
    assert.equal((await admin('/pair/a/uncordon')).status, 200);
    for (let i = 0; i < 4; i++) await balance();
    assert.ok(reachedA > reached, 'uncordoned, it takes calls again');
    assert.equal(await gateway.ledger.spent(record.id), spent + 9 * 80, 'every answered call charged once');
  });

  test('an upstream at its maxConcurrency takes no more calls; with none left the call is refused and free', async () => {
    assert.equal((await admin('/pair/b/cordon')).status, 200);
    holding = true;
    const first = balance();
    await until((s) => s[0].inFlight === 1);
    const spent = await gateway.ledger.spent(record.id);
    const second = await balance();
    assert.equal(second.status, 502, second.text);
    assert.equal(second.body.error?.code, -32603);
    assert.match(second.body.error?.message ?? '', /maxConcurrency/);
    assert.equal(await gateway.ledger.spent(record.id), spent, 'the refused call cost nothing');
    assert.equal((await admin('/pair/b/uncordon')).status, 200);
    assert.equal((await balance()).body.result, '0x0', 'b takes what a has no room for');
    holding = false;
    for (const release of held.splice(0)) release();
    assert.equal((await first).body.result, '0x0');
  });

  test('with every upstream cordoned, calls are refused and cost nothing; /readyz is 503', async () => {
    await admin('/pair/a/cordon');
    await admin('/pair/b/cordon');
    const spent = await gateway.ledger.spent(record.id);
    const reply = await balance();
    assert.equal(reply.body.error?.code, -32603, reply.text);
    assert.equal(await gateway.ledger.spent(record.id), spent);
    assert.equal((await post(`${gateway.url}/readyz`, undefined, { method: 'GET' })).status, 503);
    await admin('/pair/a/uncordon');
    await admin('/pair/b/uncordon');
    assert.equal((await balance()).body.result, '0x0');
  });
});
