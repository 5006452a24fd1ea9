import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { JsonResult } from '../rpc/json-result.ts';
import { resultResponse } from '../rpc/jsonrpc.ts';
import { sendRpcAnswer } from './respond.ts';

test('an answer whose result is held as items reaches the client as the same bytes as one text, its length exact', async () => {
  // Items of a few MiB, so that the socket pushes back and the writes wait for it; one non-ASCII.
  const log = (n: number) => `{"logIndex":"0x${n.toString(16)}","data":"0x${'ab'.repeat(64)}","note":"é"}`;
  const part = (from: number) => Array.from({ length: 8000 }, (_, i) => log(from + i)).join(',');
  const items = [part(0), part(8000), part(16000)];
  const expected = `{"jsonrpc":"2.0","id":7,"result":[${items.join(',')}]}`;
  const server = createServer((_request, response) =>
    sendRpcAnswer(response, 200, resultResponse(7, JsonResult.ofItems(items)), 42, 'BYPASS'),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    const bytes = Buffer.from(await response.arrayBuffer());
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'application/json');
    assert.equal(response.headers.get('x-credits-remaining'), '42');
    assert.equal(response.headers.get('x-cache'), 'BYPASS');
    assert.equal(Number(response.headers.get('content-length')), Buffer.byteLength(expected));
    assert.ok(bytes.equals(Buffer.from(expected)), 'the bytes of the answer');
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});
