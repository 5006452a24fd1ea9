import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { errorText, failedLogin, ServiceClient, serviceError } from './service-client.ts';

test("the auth service's error envelope is read for its code and message", () => {
  const body = { error: { code: 'LOGIN_FAILED', message: 'Invalid token signature' } };
  assert.deepEqual(serviceError(body), { code: 'LOGIN_FAILED', message: 'Invalid token signature' });
  assert.equal(errorText({ status: 401, body }), 'Invalid token signature');
  assert.deepEqual(failedLogin({ status: 401, body }), {
    error: 'Invalid token signature',
    code: 'LOGIN_FAILED',
  });
  // Anything else says the status: no envelope, an old-style string, a field of the wrong type.
  for (const other of [{}, null, 'text', { error: 'Wrong password' }, { error: { code: 5, message: [] } }]) {
    assert.equal(errorText({ status: 502, body: other }), 'status 502', JSON.stringify(other));
  }
});

test('a non-JSON answer becomes the message of an envelope', async () => {
  const server = createServer((_req, res) => res.writeHead(502).end('Bad gateway from the proxy'));
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()));
  try {
    const client = new ServiceClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, fetch);
    const res = await client.post('/api/session/get', {});
    assert.equal(res.status, 502);
    assert.equal(errorText(res), 'Bad gateway from the proxy');
  } finally {
    server.close();
  }
});
