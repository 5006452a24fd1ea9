import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { BodyTooLargeError, InvalidJsonError, readJson, sendError, sendJson } from '../src/index.ts';

// A real server on a loopback port: the helpers answer what a client sees.
describe('@portico/http over a real server', () => {
  let server: Server;
  let url: string;
  const handler = async (request: IncomingMessage, response: ServerResponse) => {
    try {
      const body = await readJson(request, 64);
      sendJson(response, 200, { body: body ?? null }, { 'x-extra': 'yes' });
    } catch (error) {
      if (error instanceof BodyTooLargeError)
        sendError(response, 413, { code: 'TOO_LARGE', message: error.message });
      else if (error instanceof InvalidJsonError)
        sendError(response, 400, { code: 'INVALID_JSON', message: error.message });
      else throw error;
    }
  };
  before(async () => {
    server = createServer((request, response) => void handler(request, response));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  test('a JSON body is read and answered as JSON with its length and the extra headers', async () => {
    const response = await fetch(url, { method: 'POST', body: JSON.stringify({ a: [1, 2] }) });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'application/json');
    assert.equal(response.headers.get('x-extra'), 'yes');
    const text = await response.text();
    assert.equal(Number(response.headers.get('content-length')), Buffer.byteLength(text));
    assert.deepEqual(JSON.parse(text), { body: { a: [1, 2] } });
  });

  test('an empty body reads as undefined', async () => {
    const response = await fetch(url, { method: 'POST' });
    assert.deepEqual(await response.json(), { body: null });
  });

  test('a body over the limit is refused, declared or streamed', async () => {
    const declared = await fetch(url, { method: 'POST', body: 'x'.repeat(65) });
    assert.equal(declared.status, 413);
    assert.deepEqual(await declared.json(), {
      error: { code: 'TOO_LARGE', message: 'request body too large: at most 64 bytes are accepted' },
    });
    const chunks = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('x'.repeat(40)));
        controller.enqueue(new TextEncoder().encode('x'.repeat(40)));
        controller.close();
      },
    });
    const streamed = await fetch(url, { method: 'POST', body: chunks, duplex: 'half' } as RequestInit);
    assert.equal(streamed.status, 413);
  });

  test('a body that is not JSON is a 400 in the error shape', async () => {
    const response = await fetch(url, { method: 'POST', body: '{"a":' });
    assert.equal(response.status, 400);
    assert.deepEqual(await response.json(), {
      error: { code: 'INVALID_JSON', message: 'request body is not valid JSON' },
    });
  });
});
