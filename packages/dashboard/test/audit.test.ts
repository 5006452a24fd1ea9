// The Audit page: a real auth service (SQLite store, development JWT verifier, its admin API on),
// a real gateway serving the dashboard, Debian Chromium. Logins through the Auth library write the
// entries; the page reads them through the dashboard handler, which calls the auth service's admin
// API server-side with the auth service's token.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { Auth, MemoryStorage } from '@portico/auth';
import { type AuthServer, loadDevJwtKey, startAuthServer } from '@portico/auth-server';
import { type Anvil, startAnvil } from '@portico/devchain';
import { type Gateway, parseConfig, startGateway } from '@portico/gateway';
import { assertAccessible, launchChromium, tempDir } from '@portico/testkit';
import Database from 'libsql';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createDashboardHandler } from '../src/index.ts';

const ADMIN_TOKEN = 'audit-page-gateway-admin-0123456789abcdef';
const AUTH_ADMIN_TOKEN = 'audit-page-auth-admin-0123456789abcdef';
const CLIENT_ID = 'BPi5PB_UiIZ-cPz1GtV5i1I2iOSOHuimiXBI0e-Oe_u6X3oVAbCiAZOTEBtTXw4tsluTITPqA8zMsfxIKMjiqNQ';

const dir = tempDir('portico-dashboard-audit-');
/** Screenshots are written only when PORTICO_SCREENSHOTS names a folder (docs/screenshots). */
const SCREENSHOTS = process.env.PORTICO_SCREENSHOTS ? resolve(process.env.PORTICO_SCREENSHOTS) : undefined;
let anvil: Anvil;
let auth: AuthServer;
let gateway: Gateway;
let browser: Browser;
let dashboardUrl: string;
const contexts: BrowserContext[] = [];
/** Every token, session id and key the logins handled: none may reach the page or the API answer. */
const secrets: string[] = [];

async function devToken(sub: string): Promise<string> {
  const response = await fetch(`${auth.sdkUrl}/dev/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ sub }),
  });
  const idToken = ((await response.json()) as { id_token: string }).id_token;
  secrets.push(idToken);
  return idToken;
}

async function login(idToken: string): Promise<Auth> {
  const client = await Auth.create(
    { clientId: CLIENT_ID, network: 'sapphire_devnet', sdkUrl: auth.sdkUrl },
    { storage: new MemoryStorage() },
  );
  await client.login({
    loginProvider: 'jwt',
    extraLoginOptions: { id_token: idToken, verifierIdField: 'sub' },
  });
  secrets.push(client.state.sessionId ?? '', client.state.privKey ?? '', client.state.coreKitKey ?? '');
  return client;
}

before(async () => {
  auth = await startAuthServer({
    dataDir: join(dir.path, 'auth'),
    masterKey: 'e'.repeat(64),
    devJwt: { key: await loadDevJwtKey(join(dir.path, 'dev-jwt-key.json')) },
    adminToken: AUTH_ADMIN_TOKEN,
  });
  anvil = await startAnvil();
  gateway = await startGateway(
    parseConfig({
      port: 0,
      adminToken: ADMIN_TOKEN,
      logLevel: 'silent',
      networks: [{ name: 'local', chainId: 'eip155:31337', upstreams: [anvil.url] }],
    }),
    {
      extraHandlers: [
        createDashboardHandler({
          adminToken: ADMIN_TOKEN,
          authAdmin: () => ({ url: auth.sdkUrl, adminToken: AUTH_ADMIN_TOKEN }),
        }),
      ],
    },
  );
  dashboardUrl = `${gateway.url}/dashboard/`;

  // A successful login (alice), then bob's: his token used once (success) and replayed (refused).
  const alice = await login(await devToken('alice'));
  const bobToken = await devToken('bob');
  await login(bobToken);
  await assert.rejects(login(bobToken), /Duplicate token found/);
  await alice.logout();
  browser = await launchChromium();
});

after(async () => {
  for (const context of contexts) await context.close().catch(() => {});
  await browser?.close();
  await gateway?.close();
  await anvil?.stop();
  await auth?.close();
  dir.cleanup();
});

async function openSignedIn(url = dashboardUrl): Promise<{ page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 }, bypassCSP: true });
  contexts.push(context);
  context.setDefaultTimeout(10_000);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(url);
  await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'API keys' }).waitFor();
  return { page, errors };
}

/** The rows of the audit table as [event, outcome text]. */
async function rows(page: Page): Promise<string[][]> {
  await page.locator('#audit-table').waitFor();
  return page
    .locator('#audit-table tbody tr')
    .evaluateAll((trs) =>
      trs.map((tr) => [
        tr.getAttribute('data-event') ?? '',
        (tr.children[5] as HTMLElement).innerText.trim(),
      ]),
    );
}

/** Waits until the view drawn is the one for the current route, whose hash contains `hashPart`. */
async function waitForRoute(page: Page, hashPart: string) {
  await page.waitForFunction(
    (part) =>
      location.hash.includes(part) &&
      document.getElementById('audit-entries')?.getAttribute('data-route') === location.hash,
    hashPart,
  );
}

test('the audit API of the dashboard refuses a request without the gateway admin token', async () => {
  const url = `${dashboardUrl}api/audit`;
  const none = await fetch(url);
  assert.equal(none.status, 401);
  assert.deepEqual(((await none.json()) as { error: { code: string } }).error.code, 'ADMIN_TOKEN_REQUIRED');
  for (const token of ['wrong-token', AUTH_ADMIN_TOKEN]) {
    const refused = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(refused.status, 401, `token ${token}`);
    assert.doesNotMatch(await refused.text(), /event|seq/);
  }
  assert.equal((await fetch(`${url}/verify`)).status, 401);

  const allowed = await fetch(url, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  assert.equal(allowed.status, 200);
  const text = await allowed.text();
  const body = JSON.parse(text) as { entries: Array<{ event: string; detail: { outcome?: string } }> };
  assert.deepEqual(
    body.entries.map((e) => [e.event, e.detail.outcome]),
    [
      ['login', 'success'],
      ['login', 'success'],
      ['login', 'failure'],
      ['session.revoked', 'success'],
    ],
  );
  for (const secret of secrets) if (secret) assert.equal(text.includes(secret), false);
  assert.equal(text.includes(AUTH_ADMIN_TOKEN), false);

  const posted = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  assert.equal(posted.status, 405);
  const badFilter = await fetch(`${url}?since=yesterday`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  assert.equal(badFilter.status, 400);
  assert.match(((await badFilter.json()) as { error: { message: string } }).error.message, /since must be/);
});

test('the Audit page lists the entries, filters them, pages through them and verifies the chain', async () => {
  const { page, errors } = await openSignedIn();
  await page.getByRole('link', { name: 'Audit' }).click();
  await page.getByRole('heading', { name: 'Audit trail' }).waitFor();
  assert.deepEqual(await rows(page), [
    ['login', 'success'],
    ['login', 'success'],
    ['login', 'failure Duplicate token found'],
    ['session.revoked', 'success'],
  ]);
  const pageText = await page.locator('main').innerText();
  assert.match(pageText, /verifier jwt, client BPi5PB_UiIZ-…/);
  for (const secret of secrets) if (secret) assert.equal(pageText.includes(secret), false);
  await assertAccessible(page, 'audit');

  // By user: alice's login and logout (a refused JWT login names no user; a logout names the
  // session's user, kept with its chain).
  const alice = await page.locator('#audit-table tbody tr[data-seq="1"] .user-id').innerText();
  await page.getByLabel('User id').fill(alice);
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await waitForRoute(page, 'user=');
  assert.deepEqual(await rows(page), [
    ['login', 'success'],
    ['session.revoked', 'success'],
  ]);
  assert.deepEqual(
    await page
      .locator('#audit-table tbody tr')
      .evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-seq'))),
    ['1', '4'],
  );

  // By event, with the user filter cleared.
  await page.getByRole('link', { name: 'Clear' }).click();
  await waitForRoute(page, '#/audit');
  await page.getByLabel('Event').selectOption('session.revoked');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await waitForRoute(page, 'event=session.revoked');
  assert.deepEqual(await rows(page), [['session.revoked', 'success']]);

  // By time: an hour from now on, nothing; from an hour ago, everything.
  const utcField = (ms: number) => new Date(ms).toISOString().slice(0, 16);
  await page.getByRole('link', { name: 'Clear' }).click();
  await waitForRoute(page, '#/audit');
  await page.getByLabel('From (UTC)').fill(utcField(Date.now() + 3_600_000));
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await waitForRoute(page, 'since=');
  assert.match(await page.locator('#audit-table').innerText(), /No audit entries match/);
  await page.getByLabel('From (UTC)').fill(utcField(Date.now() - 3_600_000));
  await page.getByLabel('Until (UTC)').fill(utcField(Date.now() + 3_600_000));
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await page.waitForFunction(() => document.querySelectorAll('#audit-table tbody tr').length === 4);

  // Paging, two entries a page.
  await page.goto(`${dashboardUrl}#/audit?limit=2`);
  await waitForRoute(page, 'limit=2');
  assert.deepEqual((await rows(page)).length, 2);
  await page.getByRole('link', { name: 'Next page' }).click();
  await waitForRoute(page, 'after=2');
  assert.deepEqual(await rows(page), [
    ['login', 'failure Duplicate token found'],
    ['session.revoked', 'success'],
  ]);
  assert.match(await page.locator('#audit-range').innerText(), /Entries 3 to 4/);
  await page.getByRole('link', { name: 'First page' }).click();
  await waitForRoute(page, 'limit=2');
  assert.deepEqual((await rows(page))[0], ['login', 'success']);

  await page.getByRole('link', { name: 'Audit' }).click();
  await waitForRoute(page, '#/audit');
  assert.equal((await rows(page)).length, 4);
  await page.getByRole('button', { name: 'Verify chain' }).click();
  const verdict = page.locator('#verify-result [data-verdict]');
  await verdict.waitFor();
  assert.equal(await verdict.getAttribute('data-verdict'), 'intact');
  assert.match(await verdict.innerText(), /intact: 4 entries/);
  if (SCREENSHOTS) await page.screenshot({ path: join(SCREENSHOTS, 'dashboard-audit.png'), fullPage: true });
  await assertAccessible(page, 'audit verified');
  assert.deepEqual(errors, []);
});

test('Verify chain names the first broken entry after a row is edited in the auth service’s store', async () => {
  const { page } = await openSignedIn();
  await page.getByRole('link', { name: 'Audit' }).click();
  await waitForRoute(page, '#/audit');
  const db = new Database(join(dir.path, 'auth', 'auth.db'));
  try {
    const { detail } = db.prepare('SELECT detail FROM auth_audit WHERE seq = 3').get() as { detail: string };
    db.prepare('UPDATE auth_audit SET detail = ? WHERE seq = 3').run(detail.replace('failure', 'success'));
    try {
      await page.getByRole('button', { name: 'Verify chain' }).click();
      const verdict = page.locator('#verify-result [data-verdict]');
      await verdict.waitFor();
      assert.equal(await verdict.getAttribute('data-verdict'), 'broken');
      assert.equal(await verdict.getAttribute('data-seq'), '3');
      assert.match(await verdict.innerText(), /broken at entry 3: entry 3 was changed after it was written/);
    } finally {
      db.prepare('UPDATE auth_audit SET detail = ? WHERE seq = 3').run(detail);
    }
  } finally {
    db.close();
  }
});

test('without an auth service the Audit page says so', async () => {
  const handler = createDashboardHandler({ adminToken: ADMIN_TOKEN });
  const server = createServer((request, response) => {
    if (handler(request, response)) return;
    // The gateway's admin API as far as signing in needs it: the token check and the networks.
    const ok = request.headers.authorization === `Bearer ${ADMIN_TOKEN}`;
    response.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify(
        ok ? { networks: [], keys: [] } : { error: { code: 'ADMIN_TOKEN_REQUIRED', message: 'no' } },
      ),
    );
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  try {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/dashboard/`;
    const api = await fetch(`${base}api/audit`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    assert.equal(api.status, 404);
    assert.equal(((await api.json()) as { error: { code: string } }).error.code, 'AUTH_NOT_CONFIGURED');
    assert.equal((await fetch(`${base}api/audit`)).status, 401);

    const { page } = await openSignedIn(base);
    await page.getByRole('link', { name: 'Audit' }).click();
    const notice = page.locator('#audit-off');
    await notice.waitFor();
    assert.match(await notice.innerText(), /No auth service is connected/);
  } finally {
    await new Promise((done) => server.close(done));
  }
});
