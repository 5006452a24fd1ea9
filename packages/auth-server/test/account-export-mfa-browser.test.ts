// Key export on the account page for a user WITH MFA, in Chromium, on a real auth service restarted
// under each export policy (same data and master key, so the same user has the same key): under
// `app` the user sets MFA up (device and password) on the login page and the app reads the key;
// under `user` the app reads nothing, the login page's confirmation step takes the password (so the
// app may open the account page), and the account page asks for the password again for the export: a wrong one is refused in the page's words, the right one shows the same key
// the app read under `app`, once, on the page only, never in the app's window.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KeyExportPolicy } from '@portico/auth';
import { type AuthServer, startAuthServer } from '@portico/auth-server';
import { CHROMIUM_ARGS, CHROMIUM_PATH, tempDir } from '@portico/testkit';
import { type Browser, chromium, type Page } from 'playwright-core';
import { type BrowserApp, startBrowserApp } from './browser-app.ts';

const CLIENT_ID = 'BHr_dKcxC0ecKn_2dZQmQeNdjPgWykMkcodEHkVvPMo71qzOV6SgtoN8KCvFdLN7bf34JOm89vWQMLFmSfIo84A';
const ADMIN = 'admin-token-for-the-account-export-mfa-browser-test';
const EMAIL = 'export-mfa-user@example.com';
const PASSWORD = 'correct horse battery';

// The app enables the device factor and the password, both mandatory.
const APP_JS = `
window.ready = (async () => {
  const cfg = JSON.parse(document.getElementById('cfg').textContent);
  const on = (priority) => ({ enable: true, priority, mandatory: true });
  window.auth = await PorticoAuth.Auth.create(
    { clientId: cfg.clientId, network: 'sapphire_devnet', sdkUrl: cfg.sdkUrl,
      redirectUrl: location.origin + '/popup-done',
      mfaSettings: { deviceShareFactor: on(1), passwordFactor: on(2),
        backUpShareFactor: { enable: false }, socialBackupFactor: { enable: false } } },
    { uxMode: 'popup' },
  );
})();
`;

describe('key export for an MFA user on the account page in Chromium', { timeout: 600_000 }, () => {
  const dir = tempDir('portico-auth-account-export-mfa-');
  let server: AuthServer | undefined;
  let app: BrowserApp | undefined;
  let appUrl = '';
  let browser: Browser;

  const start = async (policy: KeyExportPolicy) => {
    await server?.close();
    server = await startAuthServer({
      dataDir: `${dir.path}/auth`,
      masterKey: 'e'.repeat(64),
      devLogin: true,
      adminToken: ADMIN,
      exportPolicy: { [CLIENT_ID]: policy },
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

  /** A new device signed in with the development login; `inPopup` finishes the login popup. */
  async function signedIn(inPopup: (popup: Page) => Promise<void> = async () => {}): Promise<Page> {
    const page = await (await browser.newContext()).newPage();
    await page.goto(appUrl);
    await page.evaluate(() => (window as unknown as { ready: Promise<void> }).ready);
    const popupPromise = page.waitForEvent('popup');
    const done = page.evaluate("window.auth.login({ loginProvider: 'google', mfaLevel: 'mandatory' })");
    const popup = await popupPromise;
    await popup.waitForSelector('#dev-form:not([hidden]) #email');
    await popup.fill('#email', EMAIL);
    await popup.click('#dev-submit');
    await inPopup(popup);
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
  const exportedAudit = async () => {
    const res = await fetch(`${server!.sdkUrl}/admin/audit?event=key.exported`, {
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    return ((await res.json()) as { entries: { detail: { outcome: string; factor?: string } }[] }).entries;
  };

  it('user: the page takes the password and shows the key the app read under app', async () => {
    // `app`: MFA set up on the login page (device and password); the app reads the key.
    await start('app');
    const appPage = await signedIn(async (popup) => {
      await popup.waitForSelector('#mfa-setup:not([hidden])');
      await popup.fill('#mfa-password', PASSWORD);
      await popup.click('#mfa-enable');
    });
    const appKey = await getPrivKey(appPage);
    assert.match(appKey, /^[0-9a-f]{64}$/);
    await appPage.context().close();

    // `user`: the app reads nothing; the login page's confirmation step takes the password.
    await start('user');
    const userPage = await signedIn(async (popup) => {
      await popup.waitForSelector('#mfa-recover:not([hidden])');
      await popup.click('#mfa-recover-choice button[data-factor="passwordFactor"]');
      await popup.fill('#mfa-recover-password', PASSWORD);
      await popup.click('#mfa-recover-submit');
    });
    assert.equal(await getPrivKey(userPage), '');
    const account = await openAccount(userPage);
    assert.match((await account.textContent('#export-note')) ?? '', /enter one of your second factors/);
    assert.equal(await account.isHidden('#export-choice'), true, 'one factor: no choice to make');
    assert.equal(await account.textContent('#export-factor-label'), 'Password');
    assert.equal(await account.getAttribute('#export-factor', 'type'), 'password');
    assert.equal(await account.isVisible('#export-show'), true);

    // A wrong password: refused in the page's words, the field emptied, no key.
    await account.fill('#export-factor', 'not the password');
    await account.click('#export-show');
    await account.waitForSelector('#account-error:not([hidden])');
    assert.match((await account.textContent('#account-error')) ?? '', /not right/);
    assert.equal(await account.inputValue('#export-factor'), '');
    assert.equal(await account.isHidden('#export-key'), true);

    // The right one: the key, once; the field and the button go.
    await account.fill('#export-factor', PASSWORD);
    await account.press('#export-factor', 'Enter');
    await account.waitForSelector('#export-key:not([hidden])');
    assert.equal(await account.textContent('#export-key'), appKey);
    assert.equal(await account.isHidden('#export-factor'), true);
    assert.equal(await account.isHidden('#export-show'), true);
    assert.equal(await account.isHidden('#account-error'), true);
    // Never in the app's window: not its DOM, storage or state.
    const appSide = await userPage.evaluate(
      () =>
        document.documentElement.outerHTML +
        JSON.stringify({ ...localStorage }) +
        JSON.stringify({ ...sessionStorage }) +
        JSON.stringify((window as unknown as { auth: { state: unknown } }).auth.state),
    );
    assert.equal(appSide.includes(appKey), false);
    assert.equal(appSide.includes(PASSWORD), false);
    assert.deepEqual(
      (await exportedAudit()).map((e) => [e.detail.outcome, e.detail.factor]),
      [
        ['refused', undefined],
        ['success', 'password'],
      ],
    );
    await userPage.context().close();
  });
});
