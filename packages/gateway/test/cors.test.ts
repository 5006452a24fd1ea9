// Browsers get CORS headers (preflight and answers to requests with an Origin); server-to-server
// calls, which carry no Origin, get none.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Gateway, parseConfig, startGateway } from '@portico/gateway';
import { post, type Stack, startStack } from './harness.ts';

let stack: Stack;
before(async () => {
  stack = await startStack({ seed: false });
});
after(async () => {
  await stack?.close();
});

const body = { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] };

test('a preflight allows POST with content-type and authorization from any origin', async () => {
  const response = await fetch(stack.url(stack.key), {
    method: 'OPTIONS',
    headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
  });
  assert.equal(response.status, 204);
  assert.equal(response.headers.get('access-control-allow-origin'), '*');
  assert.match(response.headers.get('access-control-allow-headers') ?? '', /content-type/);
  assert.match(response.headers.get('access-control-allow-methods') ?? '', /POST/);
});

test('a preflight allows the solana-client header @solana/kit sends from browsers', async () => {
  const response = await fetch(stack.url(stack.key), {
    method: 'OPTIONS',
    headers: {
      origin: 'https://app.example',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type,solana-client',
    },
  });
  assert.equal(response.status, 204);
  const allowed = (response.headers.get('access-control-allow-headers') ?? '').split(/,\s*/);
  assert.ok(allowed.includes('solana-client'), `allowed: ${allowed.join(', ')}`);
  assert.ok(allowed.includes('content-type'));
});

test('an answer to a browser request exposes the credit and cache headers', async () => {
  const reply = await post(stack.url(stack.key), body, { headers: { origin: 'https://app.example' } });
  assert.equal(reply.headers.get('access-control-allow-origin'), '*');
  assert.match(reply.headers.get('access-control-expose-headers') ?? '', /x-credits-remaining/);
});

test('a server-to-server request gets no CORS headers', async () => {
  const reply = await post(stack.url(stack.key), body);
  assert.equal(reply.status, 200);
  assert.equal(reply.headers.get('access-control-allow-origin'), null);
});

// The admin API answers CORS only for the origins configured in admin.corsOrigins: a web page
// elsewhere that holds (or is handed) the admin token cannot drive it from a browser.
describe('admin API CORS', () => {
  const ADMIN_TOKEN = 'cors-admin-token-0123456789';
  const ALLOWED = 'https://ops.example.com';
  const FOREIGN = 'https://evil.example';
  let gateway: Gateway;
  before(async () => {
    gateway = await startGateway(
      parseConfig({
        port: 0,
        logLevel: 'silent',
        adminToken: ADMIN_TOKEN,
        admin: { corsOrigins: [ALLOWED] },
        networks: [{ name: 'local', chainId: 'eip155:31337', upstreams: [stack.anvil.url] }],
      }),
    );
  });
  after(async () => {
    await gateway?.close();
  });

  const preflight = (path: string, origin: string, method = 'PATCH') =>
    fetch(`${gateway.url}${path}`, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': method,
        'access-control-request-headers': 'authorization, content-type',
      },
    });
  const listKeys = (origin: string) =>
    fetch(`${gateway.url}/admin/keys`, { headers: { origin, authorization: `Bearer ${ADMIN_TOKEN}` } });

  test('a preflight from a foreign origin gets no allow-origin header and no allowed headers', async () => {
    for (const path of ['/admin/keys', '/admin/keys/key_1', '/metrics']) {
      const response = await preflight(path, FOREIGN);
      assert.equal(response.headers.get('access-control-allow-origin'), null, path);
      assert.equal(response.headers.get('access-control-allow-headers'), null, path);
    }
  });

  test('an admin request from a foreign origin gets no allow-origin header (the browser keeps the answer from the page)', async () => {
    const response = await listKeys(FOREIGN);
    await response.body?.cancel();
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('access-control-allow-origin'), null);
    const unauthorised = await fetch(`${gateway.url}/admin/keys`, { headers: { origin: FOREIGN } });
    await unauthorised.body?.cancel();
    assert.equal(unauthorised.headers.get('access-control-allow-origin'), null);
  });

  test('a configured origin gets its own origin back (never *) on the preflight and the answer', async () => {
    const response = await preflight('/admin/keys/key_1', ALLOWED);
    assert.equal(response.status, 204);
    assert.equal(response.headers.get('access-control-allow-origin'), ALLOWED);
    assert.match(response.headers.get('access-control-allow-methods') ?? '', /PATCH/);
    assert.match(response.headers.get('access-control-allow-headers') ?? '', /authorization/);
    assert.match(response.headers.get('vary') ?? '', /origin/i);
    const answer = await listKeys(ALLOWED);
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('access-control-allow-origin'), ALLOWED);
    assert.ok(Array.isArray(((await answer.json()) as { keys: unknown[] }).keys));
  });

  test('the JSON-RPC endpoint of the same gateway keeps its permissive CORS', async () => {
    const { key } = await gateway.keys.create({ name: 'cors' });
    const url = `${gateway.networks[0].baseUrl}/v3/${key}`;
    const response = await fetch(url, {
      method: 'OPTIONS',
      headers: { origin: FOREIGN, 'access-control-request-method': 'POST' },
    });
    assert.equal(response.headers.get('access-control-allow-origin'), '*');
    const reply = await post(url, body, { headers: { origin: FOREIGN } });
    assert.equal(reply.headers.get('access-control-allow-origin'), '*');
  });

  test('admin.corsOrigins takes origins only: "*", paths, other schemes and a missing admin token are refused by name', () => {
    const config =
      (admin: unknown, adminToken: string | null = ADMIN_TOKEN) =>
      () =>
        parseConfig({
          adminToken,
          admin,
          networks: [{ name: 'local', chainId: 'eip155:31337', upstreams: ['http://127.0.0.1:8545'] }],
        });
    assert.throws(config({ corsOrigins: ['*'] }), /admin\.corsOrigins\[0\]: "\*" would let any web page/);
    assert.throws(
      config({ corsOrigins: ['https://ops.example.com/'] }),
      /did you mean https:\/\/ops\.example\.com\?/,
    );
    assert.throws(
      config({ corsOrigins: ['ftp://ops.example.com'] }),
      /admin\.corsOrigins\[0\] must be an origin/,
    );
    assert.throws(config({ corsOrigins: 'https://ops.example.com' }), /admin\.corsOrigins must be a list/);
    assert.throws(config({ corsOrigin: [] }), /admin has unknown field\(s\): corsOrigin/);
    assert.throws(config({ corsOrigins: [ALLOWED] }, null), /admin\.corsOrigins needs adminToken/);
    assert.deepEqual(
      parseConfig({
        adminToken: ADMIN_TOKEN,
        networks: [{ name: 'l', chainId: 'eip155:1', upstreams: ['http://127.0.0.1:1'] }],
      }).admin,
      { corsOrigins: [] },
    );
  });
});
