// A node's result reaches the client exactly as the node wrote it (spacing and member order
// included), from the upstream and from the cache, spliced with the client's own id; an answer
// that is not ASCII arrives as the same UTF-8, and bytes that are not UTF-8 are never passed on. A
// small node:http upstream writes the exact bytes (anvil cannot answer with odd spacing or bytes).
import assert from 'node:assert/strict';
import { isUtf8 } from 'node:buffer';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { type Gateway, parseConfig, startGateway } from '@portico/gateway';
import { postOnly } from './harness.ts';

/** Block 0x1 as the node writes it: spaces and member order that a re-serialisation would change. */
const BLOCK_1 = `{"number":"0x1", "hash":"0x${'ab'.repeat(32)}" ,"transactions":[ ],"gasLimit":"0x1c9c380"}`;
const HEAD = `{"number":"0x10","hash":"0x${'10'.repeat(32)}","gasLimit":"0x1c9c380"}`;

/** Results by method, as raw bytes after `"result":`. */
const RESULTS: Record<string, Buffer> = {
  eth_chainId: Buffer.from('"0x7a69"'),
  eth_blockNumber: Buffer.from('"0x10"'),
  web3_clientVersion: Buffer.from('"Géth/v1.14 ✓"', 'utf8'),
  // A string holding a byte that is not UTF-8 (0xff).
  net_version: Buffer.concat([Buffer.from('"a'), Buffer.from([0xff]), Buffer.from('b"')]),
};

/** Calls for block 0x1 (the gateway's own head polls are not counted). */
let block1Calls = 0;
const upstream = createServer(
  postOnly((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const call = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        id: number;
        method: string;
        params: unknown[];
      };
      if (call.method === 'eth_getBlockByNumber' && call.params[0] === '0x1') block1Calls += 1;
      const result =
        call.method === 'eth_getBlockByNumber'
          ? Buffer.from(call.params[0] === '0x1' ? BLOCK_1 : HEAD)
          : (RESULTS[call.method] ?? Buffer.from('null'));
      const body = Buffer.concat([
        Buffer.from(`{"jsonrpc":"2.0","id":${call.id},"result":`),
        result,
        Buffer.from('}'),
      ]);
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
      response.end(body);
    });
  }),
);

let gateway: Gateway;
let url: string;

before(async () => {
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  gateway = await startGateway(
    parseConfig({
      port: 0,
      logLevel: 'silent',
      networks: [{ name: 'local', chainId: 'eip155:31337', upstreams: [upstreamUrl], cache: true }],
    }),
  );
  const { key } = await gateway.keys.create({ name: 'splice', dailyCredits: 1_000_000 });
  url = `${gateway.networks[0].baseUrl}/v3/${key}`;
});

after(async () => {
  await gateway?.close();
  upstream.closeAllConnections();
  await new Promise<void>((resolve) => upstream.close(() => resolve()));
});

/** The answer's bytes exactly as they arrive, with its x-cache header. */
async function rawCall(body: string): Promise<{ bytes: Buffer; cache: string | null }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  const bytes = Buffer.from(await response.arrayBuffer());
  assert.equal(Number(response.headers.get('content-length')), bytes.length);
  return { bytes, cache: response.headers.get('x-cache') };
}

describe("the node's result reaches the client as the node wrote it", () => {
  test('from the node and from the cache, with each client id', async () => {
    const ids = ['7', '"req-\\"1\\""', '"é"', '12345678901234567890', 'null'];
    const callsBefore = block1Calls;
    for (const [i, id] of ids.entries()) {
      const { bytes, cache } = await rawCall(
        `{"jsonrpc":"2.0","id":${id},"method":"eth_getBlockByNumber","params":["0x1",false]}`,
      );
      assert.equal(bytes.toString('utf8'), `{"jsonrpc":"2.0","id":${id},"result":${BLOCK_1}}`);
      assert.equal(cache, i === 0 ? 'MISS' : 'HIT');
    }
    // Only the first reached the node; the others were answered from the cache.
    assert.equal(block1Calls - callsBefore, 1);
  });

  test('a result that is not ASCII arrives as the same UTF-8', async () => {
    const { bytes } = await rawCall('{"jsonrpc":"2.0","id":"é","method":"web3_clientVersion","params":[]}');
    assert.deepEqual(
      bytes,
      Buffer.concat([
        Buffer.from('{"jsonrpc":"2.0","id":"é","result":', 'utf8'),
        RESULTS.web3_clientVersion,
        Buffer.from('}'),
      ]),
    );
  });

  test('bytes that are not UTF-8 are never passed on: the client gets valid UTF-8 (U+FFFD in their place)', async () => {
    const { bytes } = await rawCall('{"jsonrpc":"2.0","id":3,"method":"net_version","params":[]}');
    assert.ok(isUtf8(bytes), bytes.toString('hex'));
    assert.equal(bytes.toString('utf8'), '{"jsonrpc":"2.0","id":3,"result":"a\uFFFDb"}');
  });
});
