// Every HTTP API of Portico that is not JSON-RPC answers its errors in one envelope
// (docs/http-errors.md): `{ "error": { "code", "message", ... } }`, `code` UPPER_SNAKE and listed in
// the API's section of that page. Real servers on loopback ports: the gateway (admin API, /metrics,
// the dashboard and the dev faucet as `portico dev` mounts them), the auth service, the wallet.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type AuthServer, startAuthServer } from '@portico/auth-server';
import { createDashboardHandler } from '@portico/dashboard';
import { createDevFaucet, createFaucetHandler } from '@portico/devchain';
import { type Gateway, parseConfig, startGateway } from '@portico/gateway';
import { tempDir } from '@portico/testkit';
import { startWallet, type Wallet } from '@portico/wallet';

const ADMIN_TOKEN = 'envelope-gateway-admin-0123456789abcdef';
const AUTH_ADMIN_TOKEN = 'envelope-auth-admin-0123456789abcdef';
const UPPER_SNAKE = /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/;

type Api = 'gateway' | 'dashboard' | 'faucet' | 'auth' | 'wallet';

/** The heading of each API's section in docs/http-errors.md. */
const SECTIONS: Record<Api, string> = {
  gateway: "## The gateway's admin API",
  dashboard: "## The dashboard's audit API",
  faucet: '## The dev faucet',
  auth: '## The auth service',
  wallet: "## The wallet's approval API",
};

const doc = readFileSync(new URL('../../../docs/http-errors.md', import.meta.url), 'utf8');

function codesListed(api: Api): Set<string> {
  const start = doc.indexOf(`\n${SECTIONS[api]}`);
  assert.ok(start >= 0, `docs/http-errors.md has a section "${SECTIONS[api]}"`);
  const end = doc.indexOf('\n## ', start + 1);
  const section = doc.slice(start, end === -1 ? undefined : end);
  return new Set([...section.matchAll(/^\| `([A-Z0-9_]+)` \|/gm)].map((m) => m[1]));
}

const dir = tempDir('portico-error-envelope-');
let gateway: Gateway;
let gatewayWithoutAdmin: Gateway;
let auth: AuthServer;
let wallet: Wallet;
let walletToken: string;
let walletBase: string;
const servers: Server[] = [];

/** A plain Node server around a handler of the gateway's `extraHandlers` kind. */
async function serve(handler: (request: IncomingMessage, response: ServerResponse) => boolean) {
  const server = createServer((request, response) => {
    if (!handler(request, response)) response.writeHead(500).end();
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

let dashboardOff: string;
let dashboardNoAuth: string;
let dashboardWrongAuth: string;
let dashboardAuthDown: string;

before(async () => {
  auth = await startAuthServer({
    dataDir: join(dir.path, 'auth'),
    masterKey: 'e'.repeat(64),
    adminToken: AUTH_ADMIN_TOKEN,
  });
  const faucet = await createDevFaucet({});
  const config = {
    port: 0,
    logLevel: 'silent',
    // No node answers here: the admin API's errors need none.
    networks: [{ name: 'local', chainId: 'eip155:31337', upstreams: ['http://127.0.0.1:9'] }],
  };
  gateway = await startGateway(
    parseConfig({ ...config, adminToken: ADMIN_TOKEN, metrics: { requireAdminToken: true } }),
    {
      extraHandlers: [
        createFaucetHandler(faucet),
        createDashboardHandler({
          adminToken: ADMIN_TOKEN,
          authAdmin: () => ({ url: auth.sdkUrl, adminToken: AUTH_ADMIN_TOKEN }),
        }),
      ],
    },
  );
  gatewayWithoutAdmin = await startGateway(parseConfig(config));
  dashboardOff = await serve(createDashboardHandler({}));
  dashboardNoAuth = await serve(createDashboardHandler({ adminToken: ADMIN_TOKEN }));
  dashboardWrongAuth = await serve(
    createDashboardHandler({ adminToken: ADMIN_TOKEN, authAdmin: { url: auth.sdkUrl, adminToken: 'wrong' } }),
  );
  dashboardAuthDown = await serve(
    createDashboardHandler({
      adminToken: ADMIN_TOKEN,
      authAdmin: { url: 'http://127.0.0.1:9', adminToken: 'x' },
    }),
  );
  wallet = await startWallet({ chains: [], devAccounts: false, initialAccounts: 'none' });
  [walletBase, walletToken] = wallet.approvalUrl.split('/approve#token=');
});

after(async () => {
  await wallet?.close();
  for (const server of servers) await new Promise((resolve) => server.close(resolve));
  await gateway?.close();
  await gatewayWithoutAdmin?.close();
  await auth?.close();
  dir.cleanup();
});

type Case = {
  api: Api;
  code: string;
  url: () => string;
  method?: string;
  token?: () => string;
  body?: string;
};

const admin = () => ADMIN_TOKEN;
const json = (value: unknown) => JSON.stringify(value);
const big = 'x'.repeat(70 * 1024);

const CASES: Case[] = [
  // The gateway's admin API and /metrics.
  { api: 'gateway', code: 'ADMIN_API_OFF', url: () => `${gatewayWithoutAdmin.url}/admin/keys` },
  { api: 'gateway', code: 'ADMIN_TOKEN_REQUIRED', url: () => `${gateway.url}/admin/keys` },
  { api: 'gateway', code: 'ADMIN_TOKEN_REQUIRED', url: () => `${gateway.url}/metrics` },
  { api: 'gateway', code: 'NOT_FOUND', url: () => `${gateway.url}/admin/nothing`, token: admin },
  { api: 'gateway', code: 'KEY_NOT_FOUND', url: () => `${gateway.url}/admin/keys/key_none`, token: admin },
  {
    api: 'gateway',
    code: 'NETWORK_NOT_FOUND',
    url: () => `${gateway.url}/admin/upstreams/elsewhere/0/cordon`,
    method: 'POST',
    token: admin,
  },
  {
    api: 'gateway',
    code: 'UPSTREAM_NOT_FOUND',
    url: () => `${gateway.url}/admin/upstreams/local/nobody/cordon`,
    method: 'POST',
    token: admin,
  },
  {
    api: 'gateway',
    code: 'INVALID_JSON',
    url: () => `${gateway.url}/admin/keys`,
    method: 'POST',
    token: admin,
    body: '{',
  },
  {
    api: 'gateway',
    code: 'INVALID_INPUT',
    url: () => `${gateway.url}/admin/keys`,
    method: 'POST',
    token: admin,
    body: json({ name: 'a', colour: 'red' }),
  },
  { api: 'gateway', code: 'INVALID_INPUT', url: () => `${gateway.url}/admin/usage?from=today`, token: admin },
  {
    api: 'gateway',
    code: 'BODY_TOO_LARGE',
    url: () => `${gateway.url}/admin/keys`,
    method: 'POST',
    token: admin,
    body: big,
  },
  // The dashboard's audit API.
  { api: 'dashboard', code: 'ADMIN_API_OFF', url: () => `${dashboardOff}/dashboard/api/audit` },
  { api: 'dashboard', code: 'ADMIN_TOKEN_REQUIRED', url: () => `${gateway.url}/dashboard/api/audit` },
  {
    api: 'dashboard',
    code: 'METHOD_NOT_ALLOWED',
    url: () => `${gateway.url}/dashboard/api/audit`,
    method: 'POST',
    token: admin,
  },
  {
    api: 'dashboard',
    code: 'AUTH_NOT_CONFIGURED',
    url: () => `${dashboardNoAuth}/dashboard/api/audit`,
    token: admin,
  },
  {
    api: 'dashboard',
    code: 'INVALID_QUERY',
    url: () => `${gateway.url}/dashboard/api/audit?limit=lots`,
    token: admin,
  },
  {
    api: 'dashboard',
    code: 'AUTH_REFUSED',
    url: () => `${dashboardWrongAuth}/dashboard/api/audit`,
    token: admin,
  },
  {
    api: 'dashboard',
    code: 'AUTH_UNREACHABLE',
    url: () => `${dashboardAuthDown}/dashboard/api/audit`,
    token: admin,
  },
  // The dev faucet.
  { api: 'faucet', code: 'METHOD_NOT_ALLOWED', url: () => `${gateway.url}/dev/fund` },
  {
    api: 'faucet',
    code: 'INVALID_REQUEST',
    url: () => `${gateway.url}/dev/fund`,
    method: 'POST',
    body: '[1]',
  },
  {
    api: 'faucet',
    code: 'INVALID_ADDRESS',
    url: () => `${gateway.url}/dev/fund`,
    method: 'POST',
    body: '{}',
  },
  {
    api: 'faucet',
    code: 'INVALID_AMOUNT',
    url: () => `${gateway.url}/dev/fund`,
    method: 'POST',
    body: json({ address: `0x${'1'.repeat(40)}`, amount: 'lots' }),
  },
  {
    api: 'faucet',
    code: 'NO_CHAIN',
    url: () => `${gateway.url}/dev/fund`,
    method: 'POST',
    body: json({ address: `0x${'1'.repeat(40)}` }),
  },
  // The auth service.
  { api: 'auth', code: 'NOT_FOUND', url: () => `${auth.sdkUrl}/api/nothing`, method: 'POST', body: '{}' },
  { api: 'auth', code: 'ADMIN_TOKEN_REQUIRED', url: () => `${auth.sdkUrl}/admin/audit` },
  { api: 'auth', code: 'INVALID_BODY', url: () => `${auth.sdkUrl}/api/session`, method: 'POST', body: '[1]' },
  { api: 'auth', code: 'BODY_TOO_LARGE', url: () => `${auth.sdkUrl}/api/session`, method: 'POST', body: big },
  // The wallet's approval API.
  { api: 'wallet', code: 'APPROVAL_TOKEN_REQUIRED', url: () => `${walletBase}/api/approvals` },
  { api: 'wallet', code: 'NOT_FOUND', url: () => `${walletBase}/api/nothing`, token: () => walletToken },
  {
    api: 'wallet',
    code: 'METHOD_NOT_ALLOWED',
    url: () => `${walletBase}/api/approvals`,
    method: 'PUT',
    token: () => walletToken,
  },
  {
    api: 'wallet',
    code: 'INVALID_BODY',
    url: () => `${walletBase}/api/sessions/revoke`,
    method: 'POST',
    token: () => walletToken,
    body: '{',
  },
  {
    api: 'wallet',
    code: 'INVALID_BODY',
    url: () => `${walletBase}/api/sessions/revoke`,
    method: 'POST',
    token: () => walletToken,
    body: '{}',
  },
  {
    api: 'wallet',
    code: 'BODY_TOO_LARGE',
    url: () => `${walletBase}/api/login`,
    method: 'POST',
    token: () => walletToken,
    body: big,
  },
  {
    api: 'wallet',
    code: 'APPROVAL_NOT_FOUND',
    url: () => `${walletBase}/api/approvals/nothing-pending`,
    method: 'POST',
    token: () => walletToken,
    body: json({ approved: false }),
  },
  {
    api: 'wallet',
    code: 'LOGIN_OFF',
    url: () => `${walletBase}/api/login`,
    method: 'POST',
    token: () => walletToken,
  },
  {
    api: 'wallet',
    code: 'DEV_ACCOUNTS_OFF',
    url: () => `${walletBase}/api/accounts/dev`,
    method: 'POST',
    token: () => walletToken,
  },
  {
    api: 'wallet',
    code: 'FUND_OFF',
    url: () => `${walletBase}/api/fund`,
    method: 'POST',
    token: () => walletToken,
    body: json({ namespace: 'eip155', address: `0x${'1'.repeat(40)}` }),
  },
];

test('every error answer of every non-JSON-RPC HTTP API is the one envelope with an UPPER_SNAKE code the docs list', async () => {
  const wrong: string[] = [];
  for (const { api, code, url, method = 'GET', token, body } of CASES) {
    const what = `${api}: ${method} ${new URL(url()).pathname} (expected ${code})`;
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (token) headers.authorization = `Bearer ${token()}`;
    const response = await fetch(url(), { method, headers, body });
    const text = await response.text();
    let answer: unknown;
    try {
      answer = JSON.parse(text);
    } catch {
      wrong.push(`${what}: not JSON (HTTP ${response.status}): ${text.slice(0, 80)}`);
      continue;
    }
    const error = (answer as { error?: unknown }).error;
    const shapeOk =
      response.status >= 400 &&
      /^application\/json/.test(response.headers.get('content-type') ?? '') &&
      Object.keys(answer as object).length === 1 &&
      typeof error === 'object' &&
      error !== null &&
      typeof (error as { code?: unknown }).code === 'string' &&
      typeof (error as { message?: unknown }).message === 'string' &&
      (error as { message: string }).message.length > 0;
    if (!shapeOk) {
      wrong.push(`${what}: not the envelope (HTTP ${response.status}): ${text.slice(0, 120)}`);
      continue;
    }
    const answered = (error as { code: string }).code;
    if (!UPPER_SNAKE.test(answered)) wrong.push(`${what}: code ${answered} is not UPPER_SNAKE`);
    else if (answered !== code) wrong.push(`${what}: answered ${answered}`);
    else if (!codesListed(api).has(answered))
      wrong.push(`${what}: ${answered} is not in docs/http-errors.md's section for this API`);
  }
  assert.deepEqual(wrong, []);
});

test("docs/http-errors.md's sections list only UPPER_SNAKE codes, each once", () => {
  for (const api of Object.keys(SECTIONS) as Api[]) {
    const start = doc.indexOf(`\n${SECTIONS[api]}`);
    const end = doc.indexOf('\n## ', start + 1);
    const section = doc.slice(start, end === -1 ? undefined : end);
    const rows = [...section.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1]);
    assert.ok(rows.length > 0, api);
    assert.deepEqual(
      rows.filter((code) => !UPPER_SNAKE.test(code)),
      [],
      api,
    );
    assert.equal(new Set(rows).size, rows.length, `${api}: a code listed twice`);
  }
});
