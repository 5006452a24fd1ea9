import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { encodeB64Params, type LoginRequest } from '@portico/auth';
import { decryptJson, storeKeyOf } from '@portico/auth/protocol';
import { type AuthServer, startAuthServer } from '@portico/auth-server';
import { launchChromium, tempDir } from '@portico/testkit';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { bundleAuthClient } from './browser-app.ts';
import { post } from './helpers.ts';

const CLIENT_ID = 'BHr_dKcxC0ecKn_2dZQmQeNdjPgWykMkcodEHkVvPMo71qzOV6SgtoN8KCvFdLN7bf34JOm89vWQMLFmSfIo84A';

// The app calls Auth.create on every page load, as apps do. ?redirect=default leaves redirectUrl
// unset; ?redirect=self names this very page; otherwise a page without the library (/popup-done)
// for popups and / for redirects. Every message the page receives is recorded in window.seen.
const APP_JS = `
window.seen = [];
addEventListener('message', (e) => window.seen.push({ origin: e.origin, type: e.data && e.data.type }));
window.ready = (async () => {
  const query = new URLSearchParams(location.search);
  const mode = query.get('mode') || localStorage.getItem('mode') || 'popup';
  localStorage.setItem('mode', mode);
  const redirect = query.get('redirect');
  const redirectUrl =
    redirect === 'default' ? undefined
    : redirect === 'self' ? location.href.split('#')[0]
    : location.origin + (mode === 'popup' ? '/popup-done' : '/');
  const cfg = JSON.parse(document.getElementById('cfg').textContent);
  window.auth = await PorticoAuth.Auth.create(
    { clientId: cfg.clientId, network: 'sapphire_devnet', sdkUrl: cfg.sdkUrl, redirectUrl },
    { uxMode: mode, onWarning: (m) => (window.warnings = [...(window.warnings || []), m]) },
  );
  return window.auth.state;
})();
`;

interface App {
  url: string;
  /** How many times the app's page (which runs Auth.create) was loaded. */
  pageLoads(): number;
  close(): Promise<void>;
}

/** A tiny dapp on its own origin that uses the bundled library. */
async function startApp(sdkUrl: string, bundle: string): Promise<App> {
  let loads = 0;
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/bundle.js' || path === '/app.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      res.end(path === '/bundle.js' ? bundle : APP_JS);
      return;
    }
    if (path !== '/' && path !== '/popup-done') {
      // favicon.ico and the like: Chromium asks for them at its own moment, so they are not page loads.
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html' });
    if (path === '/popup-done') return res.end('<!doctype html><title>done</title>');
    loads += 1;
    const cfg = JSON.stringify({ clientId: CLIENT_ID, sdkUrl });
    res.end(
      `<!doctype html><title>app</title><script type="application/json" id="cfg">${cfg}</script>` +
        '<script src="/bundle.js"></script><script src="/app.js"></script>',
    );
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    pageLoads: () => loads,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}

type AppWindow = {
  ready: Promise<PageState>;
  auth: { login(p: unknown): Promise<PageState> };
  seen: { origin: string; type?: string }[];
  warnings?: string[];
  settled?: string;
};

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
  let app: App;
  /** The same app on another origin (another port): a page the login must not trust. */
  let otherOrigin: App;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  before(async () => {
    // No verifiers and no master key: the development defaults.
    server = await startAuthServer({ dataDir: dir.path, onLog: (l) => logs.push(l) });
    const bundle = await bundleAuthClient();
    app = await startApp(server.sdkUrl, bundle);
    otherOrigin = await startApp(server.sdkUrl, bundle);
    browser = await launchChromium();
    context = await browser.newContext();
    page = await context.newPage();
  });
  after(async () => {
    await browser?.close();
    await app?.close();
    await otherOrigin?.close();
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
    // The login page names the dapp after the page the library runs on.
    await popup.waitForSelector('#dev-form:not([hidden])');
    assert.equal(await popup.textContent('#title'), `Sign in to ${app.url}`);
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
        appState: 'cart=3', // v5/v6: comes back with the result
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
    assert.equal(
      await page.evaluate(() => (window as unknown as { auth: { appState?: string } }).auth.appState),
      'cart=3',
    );
  });

  /** Starts a popup login on the app page; the login's promise is left in window.settled. */
  async function startPopupLogin(p: Page): Promise<Page> {
    const popupPromise = p.waitForEvent('popup');
    await p.evaluate(() => {
      const w = window as unknown as AppWindow;
      w.settled = 'pending';
      void w.auth.login({ loginProvider: 'google' }).then(
        (state) => (w.settled = `resolved:${state.userInfo?.verifierId}`),
        (err: { code?: string }) => (w.settled = `rejected:${err.code}`),
      );
    });
    return popupPromise;
  }

  /** Resolves once the page is closed (fails the test after 20 s). */
  const closed = async (p: Page) => {
    if (!p.isClosed()) await p.waitForEvent('close', { timeout: 20_000 });
  };

  const settled = (p: Page) => p.evaluate(() => (window as unknown as AppWindow).settled);
  const waitSettled = (p: Page) =>
    p.waitForFunction(() => (window as unknown as AppWindow).settled !== 'pending', null, {
      timeout: 20_000,
    });

  /** A real session of another user (the attacker's), from a login in another browser context. */
  async function foreignSessionId(): Promise<string> {
    const other = await browser.newContext();
    try {
      const p = await other.newPage();
      await p.goto(`${app.url}/?mode=popup&redirect=default`);
      await p.evaluate(() => (window as unknown as AppWindow).ready);
      const popup = await startPopupLogin(p);
      await devLogin(popup, 'attacker@example.com');
      await waitSettled(p);
      return (await p.evaluate((k) => localStorage.getItem(k), `portico-auth:${CLIENT_ID}`)) ?? '';
    } finally {
      await other.close();
    }
  }

  it('popup mode, default redirectUrl: the popup ends on the service’s /done page, which hands the result to the app; no app page loads in the popup', async () => {
    await page.goto(`${app.url}/?mode=popup&redirect=default`);
    await page.evaluate(() => (window as unknown as AppWindow).ready);
    const loadsBefore = app.pageLoads();
    const popup = await startPopupLogin(page);
    const finalUrls: string[] = [];
    popup.on('framenavigated', (frame) => {
      if (frame === popup.mainFrame()) finalUrls.push(frame.url());
    });
    await devLogin(popup, 'default.redirect@example.com');
    await waitSettled(page);
    assert.equal(await settled(page), 'resolved:default.redirect@example.com');
    await closed(popup); // the library closes it
    assert.equal(app.pageLoads(), loadsBefore, 'the app page never loaded in the popup');
    assert.ok(finalUrls.some((u) => u.startsWith(`${server.sdkUrl}/done`)));
    // The app kept the session; a reload (Auth.create again) restores it.
    await page.reload();
    const restored = await page.evaluate(() => (window as unknown as AppWindow).ready);
    assert.equal(restored.userInfo?.verifierId, 'default.redirect@example.com');
    await page.evaluate(() => (window as unknown as { auth: { logout(): Promise<void> } }).auth.logout());
  });

  it('popup mode, the app’s own page as redirectUrl: the library in the popup hands the result to its opener before the app runs', async () => {
    await page.goto(`${app.url}/?mode=popup&redirect=self`);
    await page.evaluate(() => (window as unknown as AppWindow).ready);
    const loadsBefore = app.pageLoads();
    const popup = await startPopupLogin(page);
    await devLogin(popup, 'self.redirect@example.com');
    await waitSettled(page);
    assert.equal(await settled(page), 'resolved:self.redirect@example.com');
    await closed(popup);
    assert.equal(app.pageLoads(), loadsBefore + 1, 'the popup loaded the app page once');
    const stored = await page.evaluate((k) => localStorage.getItem(k), `portico-auth:${CLIENT_ID}`);
    const state = await page.evaluate(() => (window as unknown as { auth: { state: PageState } }).auth.state);
    assert.equal(stored, state.sessionId, 'the opener holds the session');
    await page.evaluate(() => (window as unknown as { auth: { logout(): Promise<void> } }).auth.logout());
  });

  it('redirect mode, default redirectUrl: leaves for the login page and comes back to the same page logged in', async () => {
    await page.goto(`${app.url}/?mode=redirect&redirect=default`);
    await page.evaluate(() => (window as unknown as AppWindow).ready);
    await page.evaluate(() => {
      void (window as unknown as AppWindow).auth.login({ loginProvider: 'google' });
    });
    await page.waitForURL((u) => u.href.startsWith(`${server.sdkUrl}/start`));
    await devLogin(page, 'back.home@example.com');
    await page.waitForURL((u) => u.href.startsWith(`${app.url}/?mode=redirect&redirect=default`));
    const state = await page.evaluate(() => (window as unknown as AppWindow).ready);
    assert.equal(state.userInfo?.verifierId, 'back.home@example.com');
    assert.deepEqual(
      Object.keys(await storedValues()).sort(),
      ['mode', `portico-auth:${CLIENT_ID}`],
      'the login state was used once and removed',
    );
    await page.evaluate(() => (window as unknown as { auth: { logout(): Promise<void> } }).auth.logout());
  });

  it('popup mode: a result from another window, from another origin or without the login’s state is ignored; the login resolves with its own user', async () => {
    const attacker = await foreignSessionId();
    assert.match(attacker, /^[0-9a-f]{64}$/);
    await page.goto(`${app.url}/?mode=popup&redirect=default`);
    await page.evaluate(() => (window as unknown as AppWindow).ready);
    const popup = await startPopupLogin(page);
    await popup.waitForSelector('#dev-form:not([hidden])');
    const loginUrl = popup.url();
    // The test reads the login's state from the parked request (an attacker cannot): so each check
    // below is shown to hold on its own, not only because a forged result lacks the state.
    const loginId = new URL(loginUrl).hash.match(/b64Params=([^&]+)/)?.[1] ?? '';
    const { loginId: id } = JSON.parse(Buffer.from(loginId, 'base64url').toString()) as { loginId: string };
    const parked = await post(server.sdkUrl, '/api/session/get', { key: storeKeyOf(id) });
    const { state } = decryptJson<LoginRequest>(id, parked.body.data);
    assert.match(state ?? '', /^[0-9a-f]{32}$/);
    const forged = (fields: Record<string, unknown>) => encodeB64Params({ sessionId: attacker, ...fields });
    const appOrigin = encodeURIComponent(app.url);
    const seenCount = () => page.evaluate(() => (window as unknown as AppWindow).seen.length);

    // (a) Right state and origin (the service's /done page), but another window than the popup.
    let before = await seenCount();
    await page.evaluate(
      (url) => void window.open(url, 'other'),
      `${server.sdkUrl}/done#b64Params=${forged({ state, popup: true })}&origin=${appOrigin}`,
    );
    await page.waitForFunction((n) => (window as unknown as AppWindow).seen.length > n, before);
    assert.equal(await settled(page), 'pending');

    // (b) The popup itself on the service's /done page, but with another state.
    before = await seenCount();
    await popup.goto(
      `${server.sdkUrl}/done#b64Params=${forged({ state: 'f'.repeat(32), popup: true })}&origin=${appOrigin}`,
    );
    await page.waitForFunction((n) => (window as unknown as AppWindow).seen.length > n, before);
    assert.equal(await settled(page), 'pending');

    // (c) The popup, the right state, but a page on another origin posting it.
    before = await seenCount();
    await popup.goto(`${otherOrigin.url}/popup-done`);
    await popup.evaluate(
      (b64Params) => window.opener.postMessage({ type: 'portico-auth:result', b64Params }, '*'),
      forged({ state, popup: true }),
    );
    await page.waitForFunction((n) => (window as unknown as AppWindow).seen.length > n, before);
    assert.equal(await settled(page), 'pending');
    assert.ok(
      (await page.evaluate(() => (window as unknown as AppWindow).seen)).every(
        (m) => m.type === 'portico-auth:result',
      ),
      'each forged result reached the app',
    );

    // The real login, back in the same popup, still resolves — as its own user.
    await popup.goto(loginUrl);
    await devLogin(popup, 'real.user@example.com');
    await waitSettled(page);
    assert.equal(await settled(page), 'resolved:real.user@example.com');
    const stored = await page.evaluate((k) => localStorage.getItem(k), `portico-auth:${CLIENT_ID}`);
    assert.notEqual(stored, attacker);
    await page.evaluate(() => (window as unknown as { auth: { logout(): Promise<void> } }).auth.logout());
  });

  it('redirect mode: a login result in a link, for a login this device never started, is ignored', async () => {
    const attacker = await foreignSessionId();
    await page.goto(`${app.url}/?mode=redirect&redirect=default`);
    await page.evaluate(() => (window as unknown as AppWindow).ready);
    for (const result of [{ sessionId: attacker }, { sessionId: attacker, state: 'a'.repeat(32) }]) {
      await page.goto('about:blank'); // a full load, not a fragment change
      await page.goto(`${app.url}/?mode=redirect&redirect=default#b64Params=${encodeB64Params(result)}`);
      const state = await page.evaluate(() => (window as unknown as AppWindow).ready);
      assert.deepEqual(state, {});
      assert.equal(new URL(page.url()).hash, '', 'the result is removed from the address bar');
      assert.ok(
        (await page.evaluate(() => (window as unknown as AppWindow).warnings ?? [])).some((w) =>
          w.includes('no login on this device started'),
        ),
      );
      assert.equal(await page.evaluate((k) => localStorage.getItem(k), `portico-auth:${CLIENT_ID}`), null);
    }
  });
});
