// Upstream failures that anvil cannot produce on demand: an error text carrying the upstream's own
// address and key, an answer that is not JSON-RPC, and an upstream that never answers. A small
// node:http upstream plays them (a stand-in only because the real node cannot misbehave this way).
import assert from 'node:assert/strict';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { type ApiKeyRecord, type Gateway, parseConfig, startGateway } from '@portico/gateway';
import { gatewayFor, postOnly, remaining, rpc } from './harness.ts';

const SECRET = 'upstreamApiKey0123456789';

let gateway: Gateway;
let url: string;
let record: ApiKeyRecord;
let upstreamUrl: string;
const hanging: ServerResponse[] = [];

const upstream = createServer(
  postOnly((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const call = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: number; method: string };
      const json = (body: unknown, status = 200) => {
        const text = JSON.stringify(body);
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(text);
      };
      switch (call.method) {
        case 'eth_chainId':
          return json({ jsonrpc: '2.0', id: call.id, result: '0x7a69' });
        case 'eth_blockNumber':
          // An error that quotes the upstream's own address and key, as hosted nodes do.
          return json({
            jsonrpc: '2.0',
            id: call.id,
            error: {
              code: -32000,
              message: `daily limit of project ${SECRET} exceeded, see ${upstreamUrl}/v3/${SECRET}?x=1`,
            },
          });
        case 'eth_gasPrice':
          response.writeHead(502, { 'content-type': 'text/html' });
          return response.end('<html><body>502 Bad Gateway from upstream-lb.internal</body></html>');
        case 'eth_getBlockByNumber':
          // Healthy for the gateway's own questions (block gas limit, head tracking).
          return json({
            jsonrpc: '2.0',
            id: call.id,
            result: { number: '0x10', hash: `0x${'10'.repeat(32)}`, gasLimit: '0x1c9c380' },
          });
        case 'eth_getBalance':
          return json({ jsonrpc: '2.0', id: call.id }); // neither result nor error
        case 'net_version':
          hanging.push(response); // never answered
          return;
        default:
          return json({ jsonrpc: '2.0', id: call.id, error: { code: -32601, message: 'no such method' } });
      }
    });
  }),
);

before(async () => {
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v3/${SECRET}`;
  gateway = await gatewayFor(upstreamUrl);
  const created = await gateway.keys.create({ name: 'upstream', dailyCredits: 10_000 });
  record = created.record;
  url = `${gateway.networks[0].baseUrl}/v3/${created.key}`;
});
after(async () => {
  for (const response of hanging) response.destroy();
  await gateway?.close();
  upstream.closeAllConnections();
  await new Promise<void>((resolve) => upstream.close(() => resolve()));
});

describe('an upstream that fails', () => {
  test("an upstream error is passed on without the upstream's address or key", async () => {
    const spent = await gateway.ledger.spent(record.id);
    const reply = await rpc(url, 'eth_blockNumber', []);
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.body.error?.code, -32000);
    assert.match(reply.body.error?.message ?? '', /daily limit of project/);
    assert.ok(!reply.text.includes(SECRET), `the key leaked: ${reply.text}`);
    assert.ok(!reply.text.includes('127.0.0.1'), `the address leaked: ${reply.text}`);
    // The upstream answered, so the request is charged like any answer.
    assert.equal(await gateway.ledger.spent(record.id), spent + 80);
  });

  test('an answer that is not JSON-RPC: -32603, nothing of it passed on, refunded', async () => {
    const spent = await gateway.ledger.spent(record.id);
    for (const [method, params] of [
      ['eth_gasPrice', []],
      ['eth_getBalance', [`0x${'00'.repeat(20)}`, 'latest']],
    ] as const) {
      const reply = await rpc(url, method, [...params]);
      assert.ok(reply.status >= 500, `${method}: HTTP ${reply.status}`);
      assert.equal(reply.body.error?.code, -32603, reply.text);
      assert.doesNotMatch(reply.text, /upstream-lb\.internal|<html>|127\.0\.0\.1/);
      assert.equal(remaining(reply), 10_000 - spent, `${method} refunded`);
    }
    assert.equal(await gateway.ledger.spent(record.id), spent);
  });

  test('the gateway keeps serving after upstream failures', async () => {
    const reply = await rpc(url, 'eth_chainId', []);
    assert.equal(reply.body.result, '0x7a69');
  });
});

describe('an upstream that never answers', () => {
  let slow: Gateway;
  let slowUrl: string;
  before(async () => {
    // timeoutMs is a per-network setting: a second gateway with a short one.
    slow = await startGateway(
      parseConfig({
        port: 0,
        logLevel: 'silent',
        networks: [{ name: 'local', chainId: 'eip155:31337', upstreams: [upstreamUrl], timeoutMs: 2000 }],
      }),
    );
    const { key } = await slow.keys.create({ name: 'slow', dailyCredits: 1000 });
    slowUrl = `${slow.networks[0].baseUrl}/v3/${key}`;
  });
  after(async () => {
    await slow?.close();
  });

  test('a timeout: -32603 naming no upstream, refunded, and the gateway keeps serving', async () => {
    const reply = await rpc(slowUrl, 'net_version', []);
    assert.equal(reply.status, 504, reply.text);
    assert.equal(reply.body.error?.code, -32603);
    assert.match(reply.body.error?.message ?? '', /timed out/);
    assert.ok(!reply.text.includes(SECRET) && !reply.text.includes('127.0.0.1'));
    assert.equal(remaining(reply), 1000);
    const next = await rpc(slowUrl, 'eth_chainId', []);
    assert.equal(next.body.result, '0x7a69');
    assert.equal(remaining(next), 920);
  });
});
