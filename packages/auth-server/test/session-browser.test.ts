// Sessions in Chromium, with the library bundled into an app page as an app would: a reload past
// half the session's window renews it (a new sessionId in localStorage, the old one dead, the same
// key), a browser restart (same profile) and an auth service restart keep the user signed in. The
// service's clock is real time plus what the test adds.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { storeKeyOf } from '@portico/auth/protocol';
import { type AuthServer, type StartAuthServerOptions, startAuthServer } from '@portico/auth-server';
import { CHROMIUM_ARGS, CHROMIUM_PATH, tempDir } from '@portico/testkit';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { type BrowserApp, startBrowserApp } from './browser-app.ts';
import { post } from './helpers.ts';

const CLIENT_ID = 'BHr_dKcxC0ecKn_2dZQmQeNdjPgWykMkcodEHkVvPMo71qzOV6SgtoN8KCvFdLN7bf34JOm89vWQMLFmSfIo84A';
const STORAGE_KEY = `portico-auth:${CLIENT_ID}`;

// Auth.create on every page load, with a one-hour sessionTime.
const APP_JS = `
window.ready = (async () => {
  const cfg = JSON.parse(document.getElementById('cfg').textContent);
  window.auth = await PorticoAuth.Auth.create(
    { clientId: cfg.clientId, network: 'sapphire_devnet', sdkUrl: cfg.sdkUrl, sessionTime: 3600,
      redirectUrl: location.origin + '/popup-done' },
    { uxMode: 'popup' },
  );
  return { ...window.auth.state, privKey: window.auth.getPrivKey() };
})();
`;

interface PageState {
  privKey?: string;
  sessionId?: string;
}

describe('sessions in Chromium: reload renewal, browser restart, service restart', {
  timeout: 180_000,
}, () => {
  const dir = tempDir('portico-auth-session-browser-');
  let offset = 0;
  let options: StartAuthServerOptions;
  let server: AuthServer;
  let app: BrowserApp | undefined;
  let appUrl = '';
  let context: BrowserContext;
  let sdkUrl = '';

  const launch = () =>
    chromium.launchPersistentContext(`${dir.path}/profile`, {
      executablePath: CHROMIUM_PATH,
      args: CHROMIUM_ARGS,
      headless: true,
    });

  before(async () => {
    options = {
      dataDir: `${dir.path}/auth`,
      masterKey: 'e'.repeat(64),
      devLogin: true,
      clock: () => Date.now() + offset,
    };
    server = await startAuthServer(options);
    sdkUrl = server.sdkUrl;
    app = await startBrowserApp(APP_JS, () => ({ clientId: CLIENT_ID, sdkUrl }));
    appUrl = app.url;
    context = await launch();
  });
  after(async () => {
    await context?.close();
    await app?.close();
    await server?.close();
    dir.cleanup();
  });

  const ready = (page: Page) =>
    page.evaluate(() => (window as unknown as { ready: Promise<PageState> }).ready) as Promise<PageState>;
  const stored = (page: Page) => page.evaluate((key) => localStorage.getItem(key), STORAGE_KEY);
  const open = async () => {
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto(appUrl);
    return page;
  };

  it('a reload renews past half the window; a browser restart and a service restart keep the user signed in', async () => {
    let page = await open();
    assert.equal((await ready(page)).privKey, '');
    const popupPromise = page.waitForEvent('popup');
    const login = page.evaluate(() =>
      (window as unknown as { auth: { login(p: unknown): Promise<unknown> } }).auth.login({
        loginProvider: 'google',
      }),
    );
    const popup = await popupPromise;
    await popup.waitForSelector('#dev-form:not([hidden]) #email');
    await popup.fill('#email', 'renew@example.com');
    await popup.click('#dev-submit');
    await login;
    await page.reload();
    const first = await ready(page);
    assert.match(first.privKey ?? '', /^[0-9a-f]{64}$/);
    const firstId = await stored(page);
    assert.equal(firstId, first.sessionId, 'a reload before half the window keeps the session');

    offset += 40 * 60_000;
    await page.reload();
    const renewed = await ready(page);
    assert.equal(renewed.privKey, first.privKey);
    const renewedId = await stored(page);
    assert.notEqual(renewedId, firstId, 'a new sessionId in localStorage');
    assert.equal((await post(sdkUrl, '/api/session/get', { key: storeKeyOf(firstId!) })).status, 404);

    // Browser restart: the same profile, a new process.
    await context.close();
    context = await launch();
    page = await open();
    assert.equal((await ready(page)).privKey, first.privKey);

    // Auth service restart: same store, same address.
    await server.close();
    server = await startAuthServer({ ...options, port: Number(new URL(sdkUrl).port) });
    await page.reload();
    assert.equal((await ready(page)).privKey, first.privKey);
    assert.equal(await stored(page), renewedId);
  });
});
