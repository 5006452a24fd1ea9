import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { type Anvil, startAnvil } from '@portico/devchain';
import { type Gateway, parseConfig, startGateway } from '@portico/gateway';
import { assertAccessible, launchChromium } from '@portico/testkit';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { createDashboardHandler } from '../src/index.ts';

// Real parts only: anvil behind the gateway, the gateway's admin API, Debian Chromium.
// Screenshots are written only when PORTICO_SCREENSHOTS names a folder (docs/screenshots).

const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';
const SCREENSHOTS = process.env.PORTICO_SCREENSHOTS ? resolve(process.env.PORTICO_SCREENSHOTS) : undefined;

let anvil: Anvil;
let gateway: Gateway;
let browser: Browser;
let dashboardUrl: string;
const contexts: BrowserContext[] = [];

before(async () => {
  anvil = await startAnvil();
  gateway = await startGateway(
    parseConfig({
      port: 0,
      adminToken: ADMIN_TOKEN,
      logLevel: 'silent',
      networks: [{ name: 'local', chainId: 'eip155:31337', upstreams: [anvil.url] }],
    }),
    { extraHandlers: [createDashboardHandler({})] },
  );
  dashboardUrl = `${gateway.url}/dashboard/`;
  // A key in another project, so the keys page shows the grouping.
  await gateway.keys.create({ name: 'dev', project: 'default' });
  browser = await launchChromium();
  if (SCREENSHOTS) mkdirSync(SCREENSHOTS, { recursive: true });
});

after(async () => {
  for (const context of contexts) await context.close().catch(() => {});
  await browser?.close();
  await gateway?.close();
  await anvil?.stop();
});

/** A fresh page (own sessionStorage) that fails the test on any script error in the dashboard. */
async function openPage(viewport = { width: 1100, height: 900 }): Promise<{ page: Page; errors: string[] }> {
  // bypassCSP lets the test inject axe-core; the page itself runs under its own strict CSP.
  const context = await browser.newContext({ viewport, deviceScaleFactor: 1, bypassCSP: true });
  contexts.push(context);
  context.setDefaultTimeout(10_000);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  await page.goto(dashboardUrl);
  return { page, errors };
}

async function screenshot(page: Page, name: string, part?: Locator) {
  if (!SCREENSHOTS) return;
  const path = join(SCREENSHOTS, `dashboard-${name}.png`);
  if (part) await part.screenshot({ path });
  else await page.screenshot({ path, fullPage: true });
}

async function signIn(page: Page, token = ADMIN_TOKEN) {
  await page.getByLabel('Admin token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

async function rpc(url: string, body: unknown) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as unknown };
}

test('the handler serves the page and uPlot under its base path and leaves other paths to the gateway', async () => {
  const redirect = await fetch(`${gateway.url}/dashboard`, { redirect: 'manual' });
  assert.equal(redirect.status, 308);
  assert.equal(redirect.headers.get('location'), '/dashboard/');

  const page = await fetch(dashboardUrl);
  assert.equal(page.status, 200);
  assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
  assert.match(page.headers.get('content-security-policy') ?? '', /default-src 'none'/);
  assert.match(await page.text(), /<script type="module" src="app.js">/);

  const uplot = await fetch(`${dashboardUrl}vendor/uPlot.esm.js`);
  assert.equal(uplot.status, 200);
  assert.match(uplot.headers.get('content-type') ?? '', /^text\/javascript/);
  assert.match(await uplot.text(), /export \{ uPlot as default \}|export default uPlot/);

  assert.equal((await fetch(`${dashboardUrl}nothing.js`)).status, 404);
  assert.equal((await fetch(dashboardUrl, { method: 'POST' })).status, 405);

  const elsewhere = await fetch(`${gateway.url}/elsewhere`);
  assert.equal(elsewhere.status, 404);
  assert.match(await elsewhere.text(), /no network at \/elsewhere/);
  assert.equal((await fetch(`${gateway.url}/healthz`)).status, 200);
});

test('under another base path the handler serves only that path, and a bad base path is refused', async () => {
  const handler = createDashboardHandler({ basePath: '/ops/dash/' });
  const server = createServer((request, response) => {
    if (!handler(request, response)) response.writeHead(418).end();
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  try {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    assert.equal((await fetch(`${base}/ops/dash/`)).status, 200);
    assert.equal(
      (await fetch(`${base}/ops/dash/style.css`)).headers.get('content-type'),
      'text/css; charset=utf-8',
    );
    assert.equal(
      (await fetch(`${base}/ops/dash`, { redirect: 'manual' })).headers.get('location'),
      '/ops/dash/',
    );
    assert.equal((await fetch(`${base}/dashboard/`)).status, 418);
    assert.equal((await fetch(`${base}/ops/dashboard`)).status, 418);
    const head = await fetch(`${base}/ops/dash/app.js`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(await head.text(), '');
  } finally {
    await new Promise((done) => server.close(done));
  }
  assert.throws(() => createDashboardHandler({ basePath: 'dashboard' }), RangeError);
  assert.throws(() => createDashboardHandler({ basePath: '/' }), RangeError);
});

test('a wrong admin token is refused with a message saying so, and nothing is stored', async () => {
  const { page, errors } = await openPage();
  await page.getByLabel('Admin token').waitFor();
  await assertAccessible(page, 'sign-in');
  await screenshot(page, 'signin');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByText('Enter the admin token.').first().waitFor();

  await signIn(page, 'not-the-token');
  const message = page.locator('#token-error');
  await message.waitFor();
  assert.match(await message.innerText(), /did not accept this admin token/);
  assert.equal(await page.getByLabel('Admin token').getAttribute('aria-invalid'), 'true');
  assert.equal(await page.evaluate(() => sessionStorage.length), 0);
  assert.deepEqual(
    errors.filter((e) => !e.includes('401')),
    [],
  );
});

test('sign in, create a key, call its endpoint, see usage move, revoke it and get 401', async () => {
  const { page, errors } = await openPage();
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await signIn(page);
  await page.getByRole('heading', { name: 'API keys' }).waitFor();

  // Create a key in a new project.
  await page.getByRole('link', { name: 'Create key' }).click();
  await page.getByLabel('Name', { exact: true }).fill('checkout app');
  await page.getByLabel('Project').fill('shop');
  await page.getByLabel('Daily credit cap').fill('1,000,000');
  await page.getByLabel('Per-second cap (optional)').fill('5000');
  await page.getByRole('button', { name: 'Create key' }).click();
  await page.getByRole('heading', { name: 'Key created: checkout app' }).waitFor();

  const key = await page.locator('#new-key').innerText();
  assert.match(key, /^[A-Za-z0-9_-]{16,128}$/);
  const endpoint = await page.locator('[data-network="local"] .endpoint-url').innerText();
  assert.equal(endpoint, `${gateway.url}/local/v3/${key}`);
  assert.match(await page.locator('[data-network="local"] .curl').innerText(), /eth_blockNumber/);

  await assertAccessible(page, 'new key');
  await page.getByRole('button', { name: 'Copy local endpoint' }).click();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), endpoint);
  await screenshot(page, 'new-key');

  // The keys page shows it under its project.
  await page.getByRole('link', { name: 'Done, back to keys' }).click();
  const card = page.locator('section[data-project="shop"] .key-card', { hasText: 'checkout app' });
  await card.waitFor();
  assert.match(await card.innerText(), /0 of 1,000,000 credits/);
  await assertAccessible(page, 'keys');
  await screenshot(page, 'keys');

  // Usage of the new key: nothing yet.
  await card.getByRole('link', { name: 'Usage of checkout app' }).click();
  const summary = page.locator('#usage-summary');
  await summary.waitFor();
  assert.equal(await summary.getAttribute('data-total-credits'), '0');
  assert.match(await page.locator('#methods-table').innerText(), /No requests yet/);

  // Use the endpoint (curl-equivalent JSON-RPC requests against anvil behind the gateway).
  const blockNumber = await rpc(endpoint, { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] });
  assert.equal(blockNumber.status, 200);
  assert.match((blockNumber.body as { result: string }).result, /^0x[0-9a-f]+$/);
  const batch = await rpc(endpoint, [
    { jsonrpc: '2.0', id: 2, method: 'eth_chainId', params: [] },
    {
      jsonrpc: '2.0',
      id: 3,
      method: 'eth_getBalance',
      params: ['0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266', 'latest'],
    },
    { jsonrpc: '2.0', id: 4, method: 'eth_blockNumber', params: [] },
  ]);
  assert.equal(batch.status, 200);
  assert.equal((batch.body as { result: string }[])[0].result, '0x7a69');
  // Refused by the node for its parameters: free, and counted apart from the charged calls.
  const badAddress = await rpc(endpoint, {
    jsonrpc: '2.0',
    id: 6,
    method: 'eth_getBalance',
    params: ['0x12', 'latest'],
  });
  assert.equal((badAddress.body as { error: { code: number } }).error.code, -32602);
  const unknown = await rpc(endpoint, { jsonrpc: '2.0', id: 5, method: 'eth_noSuchMethod', params: [] });
  assert.equal((unknown.body as { error: { code: number } }).error.code, -32601);

  // After a reload the chart's data, the tables and the balance have moved.
  await page.reload();
  await summary.waitFor();
  const credits = Number(await summary.getAttribute('data-total-credits'));
  assert.ok(credits > 0, `credits after requests: ${credits}`);
  assert.equal(await summary.getAttribute('data-total-requests'), '6');
  const methods = await page.locator('#methods-table').innerText();
  assert.match(methods, /eth_blockNumber\s+\d+\s+2\b/);
  // Credits, requests, refused, and the average of an 80-credit method over its charged calls: 80.
  assert.match(methods, /eth_getBalance\s+80\s+2\s+1\s+80\b/);
  assert.match(await page.locator('#errors-table').innerText(), /-32601/);
  assert.match(await page.locator('#remaining-today').innerText(), /^[\d,]+$/);
  assert.notEqual(await page.locator('#remaining-today').innerText(), '1,000,000');
  assert.equal(await page.locator('#chart-days canvas').count(), 1);
  assert.equal(await page.locator('#chart-methods canvas').count(), 1);
  await assertAccessible(page, 'usage');
  await screenshot(page, 'usage');

  // Project scope sums the project's keys.
  await page.getByLabel('Show usage for').selectOption({ label: 'Project shop (all its keys)' });
  await page.getByRole('heading', { name: 'Today’s balance, project shop' }).waitFor();
  assert.equal(Number(await summary.getAttribute('data-total-credits')), credits);

  // Revoke through the page, with confirmation; the key then gets 401.
  await page.getByRole('link', { name: 'Keys' }).click();
  await page.getByRole('link', { name: 'Manage checkout app' }).click();
  await page.getByRole('button', { name: 'Revoke key…' }).click();
  const dialog = page.getByRole('dialog');
  // The dialog opens on its safe choice, and Escape backs out (keyboard users).
  assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Cancel');
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'hidden' });
  assert.equal(
    (await rpc(endpoint, { jsonrpc: '2.0', id: 6, method: 'eth_chainId', params: [] })).status,
    200,
  );
  await page.getByRole('button', { name: 'Revoke key…' }).click();
  await dialog.getByRole('button', { name: 'Revoke key' }).click();
  await page.getByText('checkout app is revoked').waitFor();
  await assertAccessible(page, 'revoked key');
  const refused = await rpc(endpoint, { jsonrpc: '2.0', id: 7, method: 'eth_chainId', params: [] });
  assert.equal(refused.status, 401);
  assert.deepEqual(errors, []);
});

async function createKeyThroughApi(body: Record<string, unknown>) {
  const response = await fetch(`${gateway.url}/admin/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  assert.equal(response.status, 201);
  return (await response.json()) as { id: string; key: string; endpoints: { url: string }[] };
}

test('rename a key, change its caps and rotate it: the old key text gets 401, the new one works', async () => {
  const created = await createKeyThroughApi({ name: 'batch job', project: 'ops', creditsPerSecond: 100 });
  const { page, errors } = await openPage();
  await signIn(page);
  await page.getByRole('link', { name: 'Manage batch job' }).click();
  await page.getByRole('heading', { name: 'batch job' }).waitFor();

  await page.getByLabel('Name', { exact: true }).fill('nightly batch');
  await page.getByLabel('Daily credit cap').fill('2000000');
  await page.getByLabel('Per-second cap (optional)').fill('');
  await assertAccessible(page, 'key');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page
    .getByText('Saved: nightly batch may spend 2,000,000 credits per day with no per-second cap.')
    .waitFor();
  const stored = await gateway.keys.get(created.id);
  assert.deepEqual(
    [stored?.name, stored?.dailyCredits, stored?.creditsPerSecond],
    ['nightly batch', 2_000_000, null],
  );

  await page.getByRole('button', { name: 'Rotate key…' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Rotate key' }).click();
  await page.getByRole('heading', { name: 'New key text for nightly batch' }).waitFor();
  await assertAccessible(page, 'rotated key');
  const newEndpoint = await page.locator('.endpoint-url').first().innerText();
  // A read that goes upstream (eth_chainId is answered by the gateway itself).
  const call = {
    jsonrpc: '2.0',
    id: 1,
    method: 'eth_getBalance',
    params: ['0x00000000000000000000000000000000000000cc', 'latest'],
  };
  assert.equal((await rpc(created.endpoints[0].url, call)).status, 401);
  assert.equal((await rpc(newEndpoint, call)).status, 200);
  assert.deepEqual(errors, []);
});

test('the key form says what is wrong with what was typed, from the page and from the gateway', async () => {
  const { page, errors } = await openPage();
  await signIn(page);
  await page.getByRole('heading', { name: 'API keys' }).waitFor();
  await page.goto(`${dashboardUrl}#/keys/new`);
  await page.getByRole('heading', { name: 'Create a key' }).waitFor();

  // Checked in the page: nothing is sent.
  await page.getByLabel('Daily credit cap').fill('12.5');
  await page.getByLabel('Per-second cap (optional)').fill('0');
  await page.getByRole('button', { name: 'Create key' }).click();
  assert.match(await page.locator('#new-name-error').innerText(), /Name is required/);
  assert.match(await page.locator('#new-daily-error').innerText(), /"12.5" has a fraction/);
  assert.match(await page.locator('#new-per-second-error').innerText(), /at least 1; leave it empty/);
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'new-name');
  assert.match(await page.locator('#form-problems').innerText(), /There are problems/);
  await assertAccessible(page, 'create form with errors');

  // Checked by the gateway: its message lands beside the field.
  await page.getByLabel('Name', { exact: true }).fill('bad project');
  await page.getByLabel('Project').fill('my/project');
  await page.getByLabel('Daily credit cap').fill('100');
  await page.getByLabel('Per-second cap (optional)').fill('');
  await page.getByRole('button', { name: 'Create key' }).click();
  const projectError = page.locator('#new-project-error');
  await projectError.waitFor();
  assert.match(await projectError.innerText(), /The gateway says: project must be 1-64 characters/);
  assert.equal(await page.getByLabel('Project').getAttribute('aria-invalid'), 'true');
  assert.deepEqual(
    errors.filter((e) => !e.includes('400')),
    [],
  );
});

type RpcAnswer = { result?: string; error?: { code: number; message: string } };

/** One JSON-RPC call to a key's endpoint with the headers a browser or a server would send. */
async function call(endpoint: string, method: string, headers: Record<string, string> = {}) {
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] }),
  });
  return { status: response.status, body: (await response.json()) as RpcAnswer };
}

const basic = (secret: string) => `Basic ${Buffer.from(`:${secret}`).toString('base64')}`;

test('allowlists and a key secret set in the page are enforced by the gateway; a refused entry keeps what was typed', async () => {
  const created = await createKeyThroughApi({ name: 'storefront', project: 'shop' });
  const endpoint = created.endpoints[0].url;
  const { page, errors } = await openPage();
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await signIn(page);
  const card = page.locator('.key-card', { hasText: 'storefront' });
  await card.waitFor();
  assert.equal(await card.locator('.badge').count(), 0);
  await card.getByRole('link', { name: 'Manage storefront' }).click();
  const panel = page.locator('#security');
  await panel.waitFor();
  assert.match(await page.locator('#security-summary').innerText(), /^Anyone with the key may use it/);

  // An entry the gateway refuses: its rule beside the list, the line selected, nothing typed lost.
  const origins = page.getByLabel('Allowed origins');
  const methods = page.getByLabel('Allowed methods');
  const typedOrigins = 'https://app.example.com\n\nftp://files.example.com';
  await origins.fill(typedOrigins);
  await methods.fill('eth_chainId\neth_blockNumber');
  await page.getByRole('button', { name: 'Save allowlists' }).click();
  const originsError = page.locator('#security-origins-error');
  await originsError.waitFor();
  assert.equal(
    await originsError.innerText(),
    'Allowed origins, line 3 ("ftp://files.example.com"): the gateway says it must be an origin such as https://app.example.com or *.example.com.',
  );
  assert.match(await page.locator('#security-problems').innerText(), /There is a problem/);
  assert.equal(await origins.inputValue(), typedOrigins);
  assert.equal(await methods.inputValue(), 'eth_chainId\neth_blockNumber');
  assert.equal(await origins.getAttribute('aria-invalid'), 'true');
  assert.deepEqual(
    await origins.evaluate((t: HTMLTextAreaElement) => [
      document.activeElement === t,
      t.value.slice(t.selectionStart, t.selectionEnd),
    ]),
    [true, 'ftp://files.example.com'],
  );
  assert.deepEqual((await gateway.keys.get(created.id))?.settings.allowedOrigins, []);
  await assertAccessible(page, 'security settings with an error');

  // Corrected: saved as the gateway stores it (origins in lower case).
  await origins.fill('https://app.example.com\n*.Portico.test');
  await page.getByRole('button', { name: 'Save allowlists' }).click();
  await page.locator('#security-saved', { hasText: 'Saved.' }).waitFor();
  assert.equal(await origins.inputValue(), 'https://app.example.com\n*.portico.test');
  assert.equal(await origins.getAttribute('aria-invalid'), null);
  assert.equal(
    await page.locator('#security-summary').innerText(),
    'Requests must come from one of 2 allowed origins and call one of 2 allowed methods; any other request gets HTTP 403 and costs nothing.',
  );
  assert.deepEqual(await page.locator('#key-badges .badge').allInnerTexts(), ['restricted']);
  const stored = (await gateway.keys.get(created.id))?.settings;
  assert.deepEqual(
    [stored?.allowedOrigins, stored?.allowedMethods, stored?.allowedUserAgents, stored?.allowedContracts],
    [['https://app.example.com', '*.portico.test'], ['eth_chainId', 'eth_blockNumber'], [], []],
  );

  // Real calls: the allowed origins pass, others and other methods get 403 / -32002.
  const allowed = await call(endpoint, 'eth_chainId', { origin: 'https://app.example.com' });
  assert.deepEqual([allowed.status, allowed.body.result], [200, '0x7a69']);
  const subdomain = await call(endpoint, 'eth_blockNumber', { origin: 'https://shop.portico.test' });
  assert.equal(subdomain.status, 200);
  assert.match(subdomain.body.result ?? '', /^0x[0-9a-f]+$/);
  const otherOrigin = await call(endpoint, 'eth_chainId', { origin: 'https://evil.example' });
  assert.equal(otherOrigin.status, 403);
  assert.deepEqual(otherOrigin.body.error, {
    code: -32002,
    message: 'rejected due to project ID settings: origin https://evil.example is not allowed',
  });
  assert.equal((await call(endpoint, 'eth_chainId')).status, 403, 'a call without an Origin header');
  const otherMethod = await call(endpoint, 'eth_gasPrice', { origin: 'https://app.example.com' });
  assert.equal(otherMethod.status, 403);
  assert.deepEqual(otherMethod.body.error, {
    code: -32002,
    message: 'rejected due to project ID settings: method eth_gasPrice is not allowed',
  });

  // Require a secret: shown once, with a copy button and a curl example using HTTP Basic.
  await page.getByRole('button', { name: 'Require a secret…' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Require a secret' }).click();
  const secretBox = page.locator('#key-secret');
  await secretBox.waitFor();
  const secret = await secretBox.innerText();
  assert.match(secret, /^[A-Za-z0-9_-]{16,128}$/);
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'new-secret-title');
  const curl = await page.locator('#secret-curl').innerText();
  assert.ok(curl.includes(` -u ':${secret}' `), curl);
  assert.ok(curl.includes(`'${gateway.url}/local/v3/YOUR_API_KEY'`), curl);
  await page.getByRole('button', { name: 'Copy key secret' }).click();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), secret);
  assert.deepEqual(await page.locator('#key-badges .badge').allInnerTexts(), [
    'restricted',
    'secret required',
  ]);
  await assertAccessible(page, 'security settings with a new secret');
  await screenshot(page, 'security', panel);

  const fromApp = { origin: 'https://app.example.com' };
  const withoutSecret = await call(endpoint, 'eth_chainId', fromApp);
  assert.equal(withoutSecret.status, 403);
  assert.match(
    withoutSecret.body.error?.message ?? '',
    /^rejected due to project ID settings: this key requires its secret/,
  );
  assert.equal(
    (await call(endpoint, 'eth_chainId', { ...fromApp, authorization: basic('wrong') })).status,
    403,
  );
  const withSecret = await call(endpoint, 'eth_chainId', { ...fromApp, authorization: basic(secret) });
  assert.deepEqual([withSecret.status, withSecret.body.result], [200, '0x7a69']);

  // The key list shows both at a glance; the other keys show neither.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Keys' }).click();
  await card.waitFor();
  assert.deepEqual(await card.locator('.badge').allInnerTexts(), ['restricted', 'secret required']);
  assert.equal(
    await page
      .locator('.key-card')
      .filter({ has: page.getByRole('link', { name: 'dev', exact: true }) })
      .locator('.badge')
      .count(),
    0,
  );

  // Remove the secret, after a confirmation that Escape backs out of.
  await card.getByRole('link', { name: 'Manage storefront' }).click();
  await page.getByRole('button', { name: 'Remove secret…' }).click();
  const dialog = page.getByRole('dialog');
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'hidden' });
  assert.equal((await call(endpoint, 'eth_chainId', fromApp)).status, 403);
  await page.getByRole('button', { name: 'Remove secret…' }).click();
  await dialog.getByRole('button', { name: 'Remove secret' }).click();
  await page.getByRole('button', { name: 'Require a secret…' }).waitFor();
  assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Require a secret…');
  assert.deepEqual(await page.locator('#key-badges .badge').allInnerTexts(), ['restricted']);
  assert.equal((await call(endpoint, 'eth_chainId', fromApp)).status, 200);
  await assertAccessible(page, 'security settings without a secret');
  assert.deepEqual(
    errors.filter((e) => !e.includes('400')),
    [],
  );
});

test('a list longer than the gateway allows is refused in the page, and the page has the gateway’s limit', async () => {
  const created = await createKeyThroughApi({ name: 'many methods', project: 'ops' });
  const { page, errors } = await openPage();
  await signIn(page);
  await page.getByRole('heading', { name: 'API keys' }).waitFor();
  await page.goto(`${dashboardUrl}#/keys/${created.id}`);
  const methods = page.getByLabel('Allowed methods');
  await methods.waitFor();
  const limit = await page.evaluate(
    async () => (await import(new URL('allowlists.js', location.href).href)).MAX_ENTRIES as number,
  );
  const names = Array.from({ length: limit + 1 }, (_, i) => `eth_method${i}`);

  await methods.fill(names.join('\n'));
  await page.getByRole('button', { name: 'Save allowlists' }).click();
  assert.equal(
    await page.locator('#security-methods-error').innerText(),
    `Allowed methods has ${limit + 1} entries; at most ${limit} are allowed. Remove 1.`,
  );
  assert.equal(await methods.inputValue(), names.join('\n'));
  assert.deepEqual((await gateway.keys.get(created.id))?.settings.allowedMethods, []);

  // The gateway takes exactly that many and refuses one more.
  await methods.fill(names.slice(0, limit).join('\n'));
  await page.getByRole('button', { name: 'Save allowlists' }).click();
  await page.locator('#security-saved', { hasText: 'Saved.' }).waitFor();
  assert.equal((await gateway.keys.get(created.id))?.settings.allowedMethods.length, limit);
  const tooMany = await fetch(`${gateway.url}/admin/keys/${created.id}`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ settings: { allowedMethods: names } }),
  });
  assert.equal(tooMany.status, 400);
  assert.deepEqual(await tooMany.json(), {
    error: {
      code: 'INVALID_INPUT',
      message: `settings.allowedMethods must be a list of at most ${limit} entries`,
    },
  });
  assert.deepEqual(errors, []);
});

test('a failing admin API call shows the error view with what failed and a way back', async () => {
  const { page } = await openPage();
  await signIn(page);
  await page.getByRole('heading', { name: 'API keys' }).waitFor();
  await page.goto(`${dashboardUrl}#/keys/no-such-key`);
  await page.getByRole('heading', { name: 'The admin API request failed' }).waitFor();
  const detail = await page.locator('#error-detail').innerText();
  await assertAccessible(page, 'error');
  assert.match(
    detail,
    /GET \/admin\/keys\/no-such-key failed \(HTTP 404, KEY_NOT_FOUND\): no key with id no-such-key/,
  );
  await page.getByRole('link', { name: 'Back to keys' }).click();
  await page.getByRole('heading', { name: 'API keys' }).waitFor();
});

test('on a 375 px wide screen the pages fit without sideways scrolling', async () => {
  const { page, errors } = await openPage({ width: 375, height: 740 });
  const created = await createKeyThroughApi({ name: 'mobile app', project: 'shop' });
  for (const method of ['eth_blockNumber', 'eth_gasPrice', 'eth_blockNumber'])
    await rpc(created.endpoints[0].url, { jsonrpc: '2.0', id: 1, method, params: [] });
  await signIn(page);
  await page.getByRole('heading', { name: 'API keys' }).waitFor();
  const fits = () => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
  assert.ok(await fits(), 'keys page wider than the screen');
  await page.goto(`${dashboardUrl}#/usage?key=${created.id}`);
  await page.locator('#chart-methods canvas').waitFor();
  assert.ok(await fits(), 'usage page wider than the screen');
  await assertAccessible(page, 'narrow usage');
  await screenshot(page, 'narrow');
  await page.goto(`${dashboardUrl}#/keys/new`);
  await page.getByRole('heading', { name: 'Create a key' }).waitFor();
  assert.ok(await fits(), 'create form wider than the screen');
  await page.goto(`${dashboardUrl}#/keys/${created.id}`);
  await page.getByLabel('Allowed origins').waitFor();
  assert.ok(await fits(), 'key page with its security settings wider than the screen');
  await assertAccessible(page, 'narrow key');
  assert.deepEqual(errors, []);
});

test('when the gateway stops answering, the page says so and offers to try again', async () => {
  // A second gateway of its own, so stopping it leaves the other tests alone; no RPC goes upstream.
  const doomed = await startGateway(
    parseConfig({
      port: 0,
      adminToken: ADMIN_TOKEN,
      logLevel: 'silent',
      networks: [{ name: 'local', chainId: 'eip155:31337', upstreams: [anvil.url] }],
    }),
    { extraHandlers: [createDashboardHandler({})] },
  );
  const { page } = await openPage();
  await page.goto(`${doomed.url}/dashboard/`);
  await signIn(page);
  await page.getByRole('heading', { name: 'API keys' }).waitFor();
  await doomed.close();
  await page.getByRole('link', { name: 'Usage', exact: true }).click();
  await page.getByRole('heading', { name: 'The admin API request failed' }).waitFor();
  assert.match(await page.locator('#error-detail').innerText(), /failed \(no answer, UNREACHABLE\)/);
  assert.match(await page.locator('main').innerText(), /Check that the gateway is running/);
  await page.getByRole('button', { name: 'Try again' }).waitFor();
});

test('the upstreams page cordons a node and puts it back; while cordoned the gateway sends it no calls, free of charge', async () => {
  const { page, errors } = await openPage();
  await signIn(page);
  await page.getByRole('heading', { name: 'API keys' }).waitFor();
  await page.getByRole('link', { name: 'Upstreams' }).click();
  await page.getByRole('heading', { name: 'Upstream nodes' }).waitFor();
  const row = page.locator('tr[data-upstream="local/0"]');
  assert.equal(await row.locator('td.status').innerText(), 'in service');
  // anvil serves its WebSocket on its HTTP address: its heads are pushed by default.
  assert.match(await row.locator('td.head').innerText(), /^\d[\d,]*\s+pushed$/);
  await assertAccessible(page, 'upstreams');
  await screenshot(page, 'upstreams');

  const { key, record } = await gateway.keys.create({ name: 'cordon check', dailyCredits: 10_000 });
  const endpoint = `${gateway.networks[0].baseUrl}/v3/${key}`;
  // A read that goes upstream (eth_chainId is answered by the gateway itself).
  const call = {
    jsonrpc: '2.0',
    id: 1,
    method: 'eth_getBalance',
    params: ['0x00000000000000000000000000000000000000cc', 'latest'],
  };

  await page.getByRole('button', { name: /^Cordon 0 \(127\.0\.0\.1:\d+\) on local$/ }).click();
  await page.getByText('is cordoned: no new calls reach it').first().waitFor();
  assert.equal(await row.locator('td.status').innerText(), 'cordoned, drained');
  const refused = await rpc(endpoint, call);
  assert.equal(refused.status, 502);
  assert.equal((refused.body as { error: { code: number } }).error.code, -32603);
  assert.equal(await gateway.ledger.spent(record.id), 0, 'a call no upstream could take costs nothing');

  await page.getByRole('button', { name: /^Uncordon 0 / }).click();
  await page.getByText('is back in service').first().waitFor();
  assert.equal(await row.locator('td.status').innerText(), 'in service');
  assert.deepEqual((await rpc(endpoint, call)).body, { jsonrpc: '2.0', id: 1, result: '0x0' });
  assert.deepEqual(errors, []);
});
