// Per-key security settings: origin, user-agent, method and contract allowlists and a key secret,
// set through the admin API; a rejection is HTTP 403 with -32002 and costs nothing.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { post, remaining, rpc, type Stack, startStack } from './harness.ts';

const ADMIN_TOKEN = 'key-settings-test-token-0123456789';
let stack: Stack;

before(async () => {
  stack = await startStack({ seed: true, adminToken: ADMIN_TOKEN });
});
after(async () => {
  await stack?.close();
});

async function admin(method: string, path: string, body?: unknown) {
  const response = await fetch(`${stack.gateway.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function newKey(settings?: unknown) {
  const created = await admin('POST', '/admin/keys', { name: 'settings' });
  const key = created.body.key as string;
  const id = created.body.id as string;
  if (settings) assert.equal((await admin('PATCH', `/admin/keys/${id}`, { settings })).status, 200);
  return { key, id, url: stack.url(key) };
}

const call = (
  url: string,
  headers: Record<string, string> = {},
  method = 'eth_chainId',
  params: unknown[] = [],
) => post(url, { jsonrpc: '2.0', id: 1, method, params }, { headers });

describe('per-key security settings', () => {
  test('origin allowlist with a wildcard subdomain; other origins and no origin get 403 / -32002', async () => {
    const { url } = await newKey({ allowedOrigins: ['https://app.example.com', '*.portico.test'] });
    assert.equal((await call(url, { origin: 'https://app.example.com' })).status, 200);
    assert.equal((await call(url, { origin: 'https://shop.portico.test' })).status, 200);
    const denied = await call(url, { origin: 'https://evil.example' });
    assert.equal(denied.status, 403);
    assert.equal((denied.body as { error: { code: number } }).error.code, -32002);
    assert.match(
      (denied.body as { error: { message: string } }).error.message,
      /project ID settings.*evil\.example/,
    );
    assert.equal((await call(url)).status, 403);
  });

  test('user-agent allowlist matches a part of the header', async () => {
    const { url } = await newKey({ allowedUserAgents: ['my-backend/'] });
    assert.equal((await call(url, { 'user-agent': 'my-backend/1.2 node' })).status, 200);
    assert.equal((await call(url, { 'user-agent': 'curl/8' })).status, 403);
  });

  test('method allowlist: other methods are refused before any charge', async () => {
    const { url } = await newKey({ allowedMethods: ['eth_chainId'] });
    const allowed = await call(url);
    assert.equal(allowed.status, 200);
    const before = remaining(allowed);
    const refused = await rpc(url, 'eth_blockNumber');
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error?.code, -32002);
    const after = await call(url);
    assert.equal(remaining(after), (before ?? 0) - 80, 'only the allowed calls were charged');
  });

  test('contract allowlist applies to eth_call targets', async () => {
    const demo = stack.seed!.demoContract;
    const { url } = await newKey({ allowedContracts: [demo] });
    const ok = await call(url, {}, 'eth_call', [{ to: demo, data: '0x3fa4f245' }, 'latest']);
    assert.equal(ok.status, 200);
    const other = await call(url, {}, 'eth_call', [{ to: `0x${'12'.repeat(20)}`, data: '0x' }, 'latest']);
    assert.equal(other.status, 403);
    assert.equal(
      (await call(url, {}, 'eth_blockNumber')).status,
      200,
      'methods without a contract are not affected',
    );
  });

  test('a key secret is shown once, required with HTTP Basic, and can be removed', async () => {
    const { url, id } = await newKey();
    const made = await admin('POST', `/admin/keys/${id}/secret`);
    const secret = made.body.secret as string;
    assert.match(secret, /^[0-9a-f]{32}$/);
    assert.deepEqual((made.body.settings as { secretRequired: boolean }).secretRequired, true);
    assert.equal((await admin('GET', `/admin/keys/${id}`)).body.secret, undefined, 'never shown again');
    assert.equal((await call(url)).status, 403);
    const basic = (password: string) => ({
      authorization: `Basic ${Buffer.from(`any:${password}`).toString('base64')}`,
    });
    assert.equal((await call(url, basic('wrong-secret'))).status, 403);
    assert.equal((await call(url, basic(secret))).status, 200);
    await admin('DELETE', `/admin/keys/${id}/secret`);
    assert.equal((await call(url)).status, 200);
  });

  test('invalid settings are refused with the field named, and nothing changes', async () => {
    const { id, url } = await newKey();
    const bad = await admin('PATCH', `/admin/keys/${id}`, { settings: { allowedContracts: ['0x1234'] } });
    assert.equal(bad.status, 400);
    assert.match((bad.body.error as { message: string }).message, /allowedContracts\[0\]/);
    const unknown = await admin('PATCH', `/admin/keys/${id}`, { settings: { allowedPlanets: [] } });
    assert.equal(unknown.status, 400);
    const tooMany = await admin('PATCH', `/admin/keys/${id}`, {
      settings: { allowedMethods: Array.from({ length: 31 }, (_, i) => `m${i}`) },
    });
    assert.equal(tooMany.status, 400);
    assert.equal((await call(url)).status, 200);
  });
});
