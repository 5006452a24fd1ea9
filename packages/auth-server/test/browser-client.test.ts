import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { type AuthServer, startAuthServer } from '@portico/auth-server';
import { launchChromium, tempDir } from '@portico/testkit';
import { build } from 'esbuild';
import type { Browser, BrowserContext, Page } from 'playwright-core';

const CLIENT_ID = 'BHr_dKcxC0ecKn_2dZQmQeNdjPgWykMkcodEHkVvPMo71qzOV6SgtoN8KCvFdLN7bf34JOm89vWQMLFmSfIo84A';

/** The client library bundled for browsers as an app would (no Node polyfills). */
async function bundleClient(): Promise<string> {
  const out = await build({
    entryPoints: [new URL('../../auth/src/index.ts', import.meta.url).pathname],
    bundle: true,
    format: 'iife',
    globalName: 'PorticoAuth',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  return out.outputFiles[0].text;
}

const APP_JS = `
window.ready = (async () => {
  const mode = new URLSearchParams(location.search).get('mode') || localStorage.getItem('mode') || 'popup';
  localStorage.setItem('mode', mode);
  const cfg = JSON.parse(document.getElementById('cfg').textContent);
  window.auth = await PorticoAuth.Auth.create(
    { clientId: cfg.clientId, network: 'sapphire_devnet', sdkUrl: cfg.sdkUrl,
      redirectUrl: location.origin + (mode === 'popup' ? '/popup-done' : '/') },
    { uxMode: mode },
  );
  return window.auth.state;
})();
`;

/** A tiny dapp on its own origin that uses the bundled library. */
async function startApp(sdkUrl: string, bundle: string): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/bundle.js' || path === '/app.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      res.end(path === '/bundle.js' ? bundle : APP_JS);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html' });
    if (path === '/popup-done') return res.end('<!doctype html><title>done</title>');
    const cfg = JSON.stringify({ clientId: CLIENT_ID, sdkUrl });
    res.end(
      `<!doctype html><title>app</title><script type="application/json" id="cfg">${cfg}</script>` +
        '<script src="/bundle.js"></script><script src="/app.js"></script>',
    );
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}

interface PageState {
  privKey?: string;
  coreKitKey?: string;
  sessionId?: string;
  userInfo?: { verifierId: string; verifier: string };
}

describe('the client library in a browser (zero-config dev service)', { timeout: 180_000 }, () => {
  const dir = tempDir('portico-auth-browser-');
  const logs: string[] = [];
  let server: AuthServer;
  let app: { url: string; close(): Promise<void> };
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  before(async () => {
    // No verifiers and no master key: the development defaults.
    server = await startAuthServer({ dataDir: dir.path, onLog: (l) => logs.push(l) });
    app = await startApp(server.sdkUrl, await bundleClient());
    browser = await launchChromium();
    context = await browser.newContext();
    page = await context.newPage();
  });
  after(async () => {
    await browser?.close();
    await app?.close();
    await server?.close();
    dir.cleanup();
  });

  async function devLogin(p: Page, email: string): Promise<void> {
    await p.waitForSelector('#dev-form:not([hidden]) #email');
    await p.fill('#email', email);
    await p.click('#dev-submit');
  }

  async function storedValues(): Promise<Record<string, string>> {
    return page.evaluate(() => ({ ...localStorage }));
  }

  it('runs with no configuration: dev login on, dev master key generated, both reported', () => {
    assert.ok(logs.some((l) => l.includes('development login enabled')));
    assert.ok(logs.some((l) => l.includes('generated a development key')));
  });

  it('popup mode: logs in through a popup and keeps only the sessionId in localStorage', async () => {
    await page.goto(`${app.url}/?mode=popup`);
    assert.deepEqual(await page.evaluate(() => (window as unknown as { ready: Promise<unknown> }).ready), {});
    const popupPromise = page.waitForEvent('popup');
    const login = page.evaluate(() =>
      (window as unknown as { auth: { login(p: unknown): Promise<unknown> } }).auth.login({
        loginProvider: 'google',
      }),
    );
    const popup = await popupPromise;
    await devLogin(popup, 'Popup.User@example.com');
    const state = (await login) as PageState;
    assert.match(state.privKey ?? '', /^[0-9a-f]{64}$/);
    assert.equal(state.userInfo?.verifierId, 'popup.user@example.com');
    assert.equal(state.userInfo?.verifier, 'google');
    const stored = await storedValues();
    assert.deepEqual(Object.keys(stored).sort(), ['mode', `portico-auth:${CLIENT_ID}`]);
    assert.equal(stored[`portico-auth:${CLIENT_ID}`], state.sessionId);
    for (const value of Object.values(stored)) assert.equal(value.includes(state.privKey!), false);

    // A reload restores the session from the service.
    await page.reload();
    const restored = (await page.evaluate(
      () => (window as unknown as { ready: Promise<unknown> }).ready,
    )) as PageState;
    assert.equal(restored.privKey, state.privKey);
    await page.evaluate(() => (window as unknown as { auth: { logout(): Promise<void> } }).auth.logout());
    assert.deepEqual(Object.keys(await storedValues()), ['mode']);
  });

  it('popup mode: closing the popup rejects with USER_CANCELLED', async () => {
    await page.goto(`${app.url}/?mode=popup`);
    await page.evaluate(() => (window as unknown as { ready: Promise<unknown> }).ready);
    const popupPromise = page.waitForEvent('popup');
    const login = page.evaluate(() =>
      (window as unknown as { auth: { login(p: unknown): Promise<unknown> } }).auth
        .login({ loginProvider: 'google' })
        .then(
          () => 'resolved',
          (err: { code?: string }) => err.code,
        ),
    );
    const popup = await popupPromise;
    await popup.waitForSelector('#dev-form:not([hidden])');
    await popup.close();
    assert.equal(await login, 'USER_CANCELLED');
  });

  it('redirect mode: leaves for the login page and comes back logged in', async () => {
    await page.goto(`${app.url}/?mode=redirect`);
    await page.evaluate(() => (window as unknown as { ready: Promise<unknown> }).ready);
    await page.evaluate(() => {
      void (window as unknown as { auth: { login(p: unknown): Promise<unknown> } }).auth.login({
        loginProvider: 'discord',
      });
    });
    await page.waitForURL((u) => u.href.startsWith(`${server.sdkUrl}/start`));
    await devLogin(page, 'redirect@example.com');
    await page.waitForURL((u) => u.href.startsWith(app.url));
    const state = (await page.evaluate(
      () => (window as unknown as { ready: Promise<unknown> }).ready,
    )) as PageState;
    assert.equal(state.userInfo?.verifierId, 'redirect@example.com');
    assert.equal(state.userInfo?.verifier, 'discord');
    assert.match(state.coreKitKey ?? '', /^[0-9a-f]{64}$/);
    assert.equal(new URL(page.url()).hash, '', 'the result is removed from the address bar');
  });
});
