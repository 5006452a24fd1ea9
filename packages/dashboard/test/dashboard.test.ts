import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { type Anvil, startAnvil } from '@portico/devchain';
import { type Gateway, parseConfig, startGateway } from '@portico/gateway';
import { launchChromium } from '@portico/testkit';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createDashboardHandler } from '../src/index.ts';

// Real parts only: anvil behind the gateway, the gateway's admin API, Debian Chromium.
// Screenshots are written only when PORTICO_SCREENSHOTS names a folder (docs/screenshots).

const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
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

type AxeResults = { violations: { id: string; help: string; nodes: { target: unknown[] }[] }[] };

/** axe-core's WCAG 2.1 A/AA rules (labels, contrast, names, landmarks) must find nothing. */
async function assertAccessible(page: Page, screen: string) {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ content: AXE_SOURCE });
  const results = (await page.evaluate(() =>
    (
      window as unknown as { axe: { run: (context: Document, options: unknown) => Promise<unknown> } }
    ).axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } }),
  )) as AxeResults;
  const found = results.violations.map(
    (v) => `${v.id}: ${v.help} (${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')})`,
  );
  assert.deepEqual(found, [], `accessibility problems on the ${screen} screen`);
}

async function screenshot(page: Page, name: string) {
  if (!SCREENSHOTS) return;
  await page.screenshot({ path: join(SCREENSHOTS, `dashboard-${name}.png`), fullPage: true });
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
  const unknown = await rpc(endpoint, { jsonrpc: '2.0', id: 5, method: 'eth_noSuchMethod', params: [] });
  assert.equal((unknown.body as { error: { code: number } }).error.code, -32601);

  // After a reload the chart's data, the tables and the balance have moved.
  await page.reload();
  await summary.waitFor();
  const credits = Number(await summary.getAttribute('data-total-credits'));
  assert.ok(credits > 0, `credits after requests: ${credits}`);
  assert.equal(await summary.getAttribute('data-total-requests'), '5');
  const methods = await page.locator('#methods-table').innerText();
  assert.match(methods, /eth_blockNumber\s+\d+\s+2\b/);
  assert.match(methods, /eth_getBalance/);
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
  const call = { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] };
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
    /GET \/admin\/keys\/no-such-key failed \(HTTP 404, not_found\): no key with id no-such-key/,
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
  assert.match(await page.locator('#error-detail').innerText(), /failed \(no answer, unreachable\)/);
  assert.match(await page.locator('main').innerText(), /Check that the gateway is running/);
  await page.getByRole('button', { name: 'Try again' }).waitFor();
});
