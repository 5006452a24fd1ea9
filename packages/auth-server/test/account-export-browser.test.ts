// Key export on the account page in Chromium, on a real auth service restarted under each export
// policy (same data and master key, so the same user has the same key): under `app` the app reads
// the key and the page offers no export; under `user` the app reads nothing, and the page shows
// the same key after a fresh sign-in, never in the app's window; past 5 minutes it asks for a new
// sign-in; under `off` nothing is offered. The service's clock is real time plus what the test adds.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KeyExportPolicy } from '@portico/auth';
import { type AuthServer, startAuthServer } from '@portico/auth-server';
import { CHROMIUM_ARGS, CHROMIUM_PATH, tempDir } from '@portico/testkit';
import { type Browser, chromium, type Page } from 'playwright-core';
import { type BrowserApp, startBrowserApp } from './browser-app.ts';
import { post } from './helpers.ts';

const CLIENT_ID = 'BHr_dKcxC0ecKn_2dZQmQeNdjPgWykMkcodEHkVvPMo71qzOV6SgtoN8KCvFdLN7bf34JOm89vWQMLFmSfIo84A';
const ADMIN = 'admin-token-for-the-account-export-test';
const EMAIL = 'export-user@example.com';

const APP_JS = `
window.ready = (async () => {
  const cfg = JSON.parse(document.getElementById('cfg').textContent);
  window.auth = await PorticoAuth.Auth.create(
    { clientId: cfg.clientId, network: 'sapphire_devnet', sdkUrl: cfg.sdkUrl,
      redirectUrl: location.origin + '/popup-done' },
    { uxMode: 'popup' },
  );
})();
`;

describe('key export on the account page in Chromium', { timeout: 180_000 }, () => {
  const dir = tempDir('portico-auth-account-export-');
  let offset = 0;
  let server: AuthServer | undefined;
  let app: BrowserApp | undefined;
  let appUrl = '';
  let browser: Browser;

  const start = async (policy: KeyExportPolicy) => {
    await server?.close();
    server = await startAuthServer({
      dataDir: `${dir.path}/auth`,
      masterKey: 'f'.repeat(64),
      devLogin: true,
      adminToken: ADMIN,
      exportPolicy: { [CLIENT_ID]: policy },
      clock: () => Date.now() + offset,
    });
  };

  before(async () => {
    app = await startBrowserApp(APP_JS, () => ({ clientId: CLIENT_ID, sdkUrl: server?.sdkUrl }));
    appUrl = app.url;
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true });
  });
  after(async () => {
    await browser?.close();
    await app?.close();
    await server?.close();
    dir.cleanup();
  });

  /** A new device signed in with the development login; its app page. */
  async function signedIn(): Promise<Page> {
    const page = await (await browser.newContext()).newPage();
    await page.goto(appUrl);
    await page.evaluate(() => (window as unknown as { ready: Promise<void> }).ready);
    const popupPromise = page.waitForEvent('popup');
    const done = page.evaluate("window.auth.login({ loginProvider: 'google' })");
    const popup = await popupPromise;
    await popup.waitForSelector('#dev-form:not([hidden]) #email');
    await popup.fill('#email', EMAIL);
    await popup.click('#dev-submit');
    await done;
    return page;
  }

  async function openAccount(page: Page): Promise<Page> {
    const popupPromise = page.waitForEvent('popup');
    await page.evaluate('window.auth.openAccountPage()');
    const popup = await popupPromise;
    await popup.waitForSelector('#account:not([hidden])');
    return popup;
  }

  const getPrivKey = (page: Page) =>
    page.evaluate(() => (window as unknown as { auth: { getPrivKey(): string } }).auth.getPrivKey());
  /** The page's own export call, with its token (as the page's button makes it). */
  const exportCall = async (popup: Page) =>
    post(server!.sdkUrl, '/api/account/export', {
      token: await popup.evaluate(() => sessionStorage.getItem('portico-account-token')),
    });
  const exportedAudit = async () => {
    const res = await fetch(`${server!.sdkUrl}/admin/audit?event=key.exported`, {
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    return ((await res.json()) as { entries: { detail: { outcome: string; reason?: string } }[] }).entries;
  };

  it('app, user and off: the same key exported only under user, only on the page', async () => {
    // `app`: the app reads the key; the page offers no export.
    await start('app');
    const appPage = await signedIn();
    const appKey = await getPrivKey(appPage);
    assert.match(appKey, /^[0-9a-f]{64}$/);
    const appAccount = await openAccount(appPage);
    assert.equal(await appAccount.isHidden('#export-show'), true);
    assert.match((await appAccount.textContent('#export-note')) ?? '', /does not offer/);
    assert.equal((await exportCall(appAccount)).status, 403);
    await appPage.context().close();

    // `user`: the app reads nothing; the page shows the same key after a fresh sign-in.
    await start('user');
    const userPage = await signedIn();
    assert.equal(await getPrivKey(userPage), '');
    const account = await openAccount(userPage);
    assert.equal(await account.isVisible('#export-show'), true);
    await account.click('#export-show');
    await account.waitForSelector('#export-key:not([hidden])');
    assert.equal(await account.textContent('#export-key'), appKey);
    // Never in the app's window: not its DOM, storage or state.
    const appSide = await userPage.evaluate(
      () =>
        document.documentElement.outerHTML +
        JSON.stringify({ ...localStorage }) +
        JSON.stringify({ ...sessionStorage }) +
        JSON.stringify((window as unknown as { auth: { state: unknown } }).auth.state),
    );
    assert.equal(appSide.includes(appKey), false);
    assert.deepEqual(
      (await exportedAudit()).map((e) => e.detail.outcome),
      ['refused', 'success'],
    );

    // Past 5 minutes since the sign-in: a new sign-in first.
    offset += 6 * 60 * 1000;
    await account.reload();
    await account.waitForSelector('#account:not([hidden])');
    assert.equal(await account.isHidden('#export-show'), true);
    assert.match((await account.textContent('#export-note')) ?? '', /sign in again/);
    const stale = await exportCall(account);
    assert.equal(stale.status, 403);
    assert.equal(stale.error.code, 'EXPORT_NEEDS_FRESH_LOGIN');
    await userPage.context().close();

    // `off`: nothing to export, nowhere.
    await start('off');
    const offPage = await signedIn();
    assert.equal(await getPrivKey(offPage), '');
    const offAccount = await openAccount(offPage);
    assert.equal(await offAccount.isHidden('#export-show'), true);
    assert.match((await offAccount.textContent('#export-note')) ?? '', /does not offer/);
    const refused = await exportCall(offAccount);
    assert.equal(refused.error.code, 'EXPORT_NOT_OFFERED');
    await offPage.context().close();
  });
});
