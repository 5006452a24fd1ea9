// The account page in Chromium, on a real auth service, with the library bundled into an app page
// on another origin: the app opens the page (`auth.openAccountPage()`), the user sees the devices
// of two sign-ins and ends the other one; sees a passkey linked with Chrome's virtual WebAuthn
// authenticator (DevTools protocol) and removes it; the last passkey of a passkey-only account is
// refused; the passkey of a user's two-step verification (the MFA factor) is listed apart, with
// when it was last used, and offers no removal; the devices holding a share of the key are listed and
// a lost one is revoked, after which its share opens nothing. The service's public URL is
// `http://localhost:<port>` (WebAuthn's secure context).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type AuthServer, startAuthServer } from '@portico/auth-server';
import { CHROMIUM_ARGS, CHROMIUM_PATH, freePort, tempDir } from '@portico/testkit';
import { type Browser, chromium, type Page } from 'playwright-core';
import { type BrowserApp, startBrowserApp } from './browser-app.ts';
import { virtualAuthenticator } from './virtual-authenticator.ts';

const CLIENT_ID = 'BHr_dKcxC0ecKn_2dZQmQeNdjPgWykMkcodEHkVvPMo71qzOV6SgtoN8KCvFdLN7bf34JOm89vWQMLFmSfIo84A';
const ADMIN = 'admin-token-for-the-account-page-test';
const PASSWORD = 'correct horse battery';

// ?device=<name>: the sessions' device name. ?mfa=passkey|password: the app enables the device
// factor and that one.
const APP_JS = `
window.ready = (async () => {
  const cfg = JSON.parse(document.getElementById('cfg').textContent);
  const mfa = new URLSearchParams(location.search).get('mfa');
  const second = (on) => (on ? { enable: true, priority: 2, mandatory: true } : { enable: false });
  const mfaSettings = mfa
    ? { deviceShareFactor: { enable: true, priority: 1, mandatory: true },
        passkeysFactor: second(mfa === 'passkey'), passwordFactor: second(mfa === 'password'),
        backUpShareFactor: { enable: false }, socialBackupFactor: { enable: false } }
    : undefined;
  window.auth = await PorticoAuth.Auth.create(
    { clientId: cfg.clientId, network: 'sapphire_devnet', sdkUrl: cfg.sdkUrl,
      redirectUrl: location.origin + '/popup-done', mfaSettings },
    { uxMode: 'popup', deviceName: new URLSearchParams(location.search).get('device') ?? undefined },
  );
})();
`;

interface AuditEntry {
  event: string;
  detail: { outcome?: string; credential?: string; reason?: string; deviceId?: string; by?: string };
}

describe('the account page in Chromium', { timeout: 180_000 }, () => {
  const dir = tempDir('portico-auth-account-page-');
  let server: AuthServer;
  let app: BrowserApp | undefined;
  let appUrl = '';
  let browser: Browser;

  before(async () => {
    const port = await freePort();
    server = await startAuthServer({
      port,
      publicUrl: `http://localhost:${port}`,
      dataDir: `${dir.path}/auth`,
      masterKey: 'd'.repeat(64),
      devLogin: true,
      adminToken: ADMIN,
      verifiers: { passkey: { type: 'passkey' } },
    });
    app = await startBrowserApp(APP_JS, () => ({ clientId: CLIENT_ID, sdkUrl: server.sdkUrl }));
    appUrl = app.url;
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true });
  });
  after(async () => {
    await browser?.close();
    await app?.close();
    await server?.close();
    dir.cleanup();
  });

  /** A new device (browser context) on the app page (`mfa`: an app that enables that factor and the device's). */
  async function device(name: string, mfa?: 'passkey' | 'password'): Promise<Page> {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${appUrl}/?device=${name}${mfa ? `&mfa=${mfa}` : ''}`);
    await page.evaluate(() => (window as unknown as { ready: Promise<void> }).ready);
    return page;
  }

  /** Runs `call` in the app and hands the popup it opens to `inPopup`. */
  async function withPopup(page: Page, call: string, inPopup: (popup: Page) => Promise<void>) {
    const popupPromise = page.waitForEvent('popup');
    const done = page.evaluate(call);
    const popup = await popupPromise;
    await inPopup(popup);
    await done;
  }

  async function devLogin(page: Page, email: string): Promise<void> {
    await withPopup(page, "window.auth.login({ loginProvider: 'google' })", async (popup) => {
      await popup.waitForSelector('#dev-form:not([hidden]) #email');
      await popup.fill('#email', email);
      await popup.click('#dev-submit');
    });
  }

  /** Opens the account page from the app; resolves with the popup once it shows the account. */
  async function openAccount(page: Page): Promise<Page> {
    const popupPromise = page.waitForEvent('popup');
    await page.evaluate('window.auth.openAccountPage()');
    const popup = await popupPromise;
    await popup.waitForSelector('#account:not([hidden])');
    return popup;
  }

  const sessionRows = (popup: Page) =>
    popup.$$eval('#sessions li', (lis) =>
      lis.map((li) => ({ text: li.textContent ?? '', current: li.classList.contains('current') })),
    );

  async function audit(event: string): Promise<AuditEntry[]> {
    const res = await fetch(`${server.sdkUrl}/admin/audit?event=${event}`, {
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    return ((await res.json()) as { entries: AuditEntry[] }).entries;
  }

  it('lists the devices of two sign-ins, marks this one, and ends the other', async () => {
    const laptop = await device('laptop');
    const phone = await device('phone');
    await devLogin(laptop, 'account-page@example.com');
    await devLogin(phone, 'account-page@example.com');

    const popup = await openAccount(laptop);
    // The ticket left the address bar at once, and the page never keeps a handle to the app.
    assert.equal(new URL(popup.url()).hash, '');
    assert.equal(await popup.evaluate(() => window.opener), null);
    const rows = await sessionRows(popup);
    assert.equal(rows.length, 2, JSON.stringify(rows));
    const mine = rows.find((r) => r.current);
    assert.ok(mine?.text.includes('laptop'), JSON.stringify(rows));
    assert.ok(rows.find((r) => !r.current)?.text.includes('phone'), JSON.stringify(rows));

    await popup.click('#sessions li:not(.current) button.end');
    await popup.waitForFunction(() => document.querySelectorAll('#sessions li').length === 1);
    assert.ok((await sessionRows(popup))[0]?.current);

    // The phone's session is gone on the service: its library learns it at its next call.
    const phoneList = await phone.evaluate(() =>
      (window as unknown as { auth: { listSessions(): Promise<unknown> } }).auth.listSessions().then(
        () => 'listed',
        (err: { code?: string }) => err.code,
      ),
    );
    assert.equal(phoneList, 'SESSION_EXPIRED');
    const laptopList = await laptop.evaluate(() =>
      (window as unknown as { auth: { listSessions(): Promise<unknown[]> } }).auth.listSessions(),
    );
    assert.equal(laptopList.length, 1);
    assert.ok((await audit('account.opened')).length >= 1);
    await laptop.context().close();
    await phone.context().close();
  });

  it('opens once per ticket; a copied link shows the page as expired', async () => {
    const page = await device('tab');
    await devLogin(page, 'account-ticket@example.com');
    const url = await page.evaluate(() =>
      (window as unknown as { auth: { accountPageUrl(): Promise<string> } }).auth.accountPageUrl(),
    );
    const first = await page.context().newPage();
    await first.goto(url);
    await first.waitForSelector('#account:not([hidden])');
    // A reload keeps the page (its token stays in the tab's sessionStorage on the service origin).
    await first.reload();
    await first.waitForSelector('#account:not([hidden])');
    const copy = await (await browser.newContext()).newPage();
    await copy.goto(url);
    await copy.waitForSelector('#message:not([hidden])');
    assert.match((await copy.textContent('#message-text')) ?? '', /expired/);
    // Signing out in the app ends the page's rights too.
    await page.evaluate(() => (window as unknown as { auth: { logout(): Promise<void> } }).auth.logout());
    await first.reload();
    await first.waitForSelector('#message:not([hidden])');
    await copy.context().close();
    await page.context().close();
  });

  it('lists a linked passkey and removes it (audited)', async () => {
    const page = await device('desk');
    await devLogin(page, 'account-passkey@example.com');
    await withPopup(page, 'window.auth.linkPasskey()', async (popup) => {
      await popup.waitForSelector('#passkey:not([hidden]) #passkey-create:not([hidden])');
      await virtualAuthenticator(popup);
      await popup.click('#passkey-create');
    });
    const popup = await openAccount(page);
    const ids = await popup.$$eval('#passkeys li', (lis) => lis.map((li) => li.getAttribute('data-id')));
    assert.equal(ids.length, 1);
    assert.match((await popup.textContent('#passkeys li')) ?? '', /internal/);
    assert.equal(await popup.isHidden('#no-passkeys'), true);

    await popup.click('#passkeys li button.remove');
    await popup.waitForSelector('#no-passkeys:not([hidden])');
    assert.equal(await popup.$$eval('#passkeys li', (lis) => lis.length), 0);
    const removed = await audit('passkey.removed');
    assert.deepEqual(
      removed.map((e) => [e.detail.outcome, e.detail.credential]),
      [['success', ids[0]]],
    );
    // The Google-style account still signs in without it: nothing was refused.
    await page.context().close();
  });

  it('refuses to remove the last passkey of an account that signs in only with passkeys', async () => {
    const page = await device('key');
    await withPopup(page, "window.auth.login({ loginProvider: 'passkey' })", async (popup) => {
      await popup.waitForSelector('#passkey:not([hidden]) #passkey-create:not([hidden])');
      await virtualAuthenticator(popup);
      await popup.fill('#passkey-name', 'Key Only');
      await popup.click('#passkey-create');
    });
    const popup = await openAccount(page);
    assert.equal(await popup.$$eval('#passkeys li', (lis) => lis.length), 1);
    await popup.click('#passkeys li button.remove');
    await popup.waitForSelector('#account-error:not([hidden])');
    assert.match((await popup.textContent('#account-error')) ?? '', /only way to sign in/);
    assert.equal(await popup.$$eval('#passkeys li', (lis) => lis.length), 1);
    const refused = (await audit('passkey.removed')).filter((e) => e.detail.outcome === 'refused');
    assert.equal(refused.length, 1);
    await page.context().close();
  });

  it('lists the passkey of two-step verification apart, with when it was last used, without removal', async () => {
    const email = 'account-mfa-passkey@example.com';
    const login = "window.auth.login({ loginProvider: 'google', mfaLevel: 'mandatory' })";
    // The first device sets up MFA: the setup screen makes the passkey.
    const first = await device('first', 'passkey');
    let credential: Record<string, unknown> | undefined;
    await withPopup(first, login, async (popup) => {
      await popup.waitForSelector('#dev-form:not([hidden]) #email');
      await popup.fill('#email', email);
      await popup.click('#dev-submit');
      await popup.waitForSelector('#mfa-setup:not([hidden]) #mfa-passkey:not([hidden]) #mfa-passkey-create');
      const { cdp } = await virtualAuthenticator(popup);
      cdp.on('WebAuthn.credentialAdded', (event) => {
        credential = event.credential as unknown as Record<string, unknown>;
      });
      await popup.click('#mfa-passkey-create');
      await popup.waitForSelector('#mfa-passkey-create:disabled');
      await popup.click('#mfa-enable');
    });
    assert.ok(credential, 'the setup screen made a passkey');
    const before = await openAccount(first);
    assert.equal(await before.isVisible('#mfa-passkeys-part'), true);
    const made = (await before.textContent('#mfa-passkeys li')) ?? '';
    assert.match(made, /not used yet/);
    assert.equal(await before.$$eval('#mfa-passkeys li button', (b) => b.length), 0, 'no removal offered');
    assert.match((await before.textContent('#mfa-passkeys-note')) ?? '', /cannot be removed here/);
    // It is not one of the account's sign-in passkeys.
    assert.equal(await before.$$eval('#passkeys li', (lis) => lis.length), 0);
    assert.equal(await before.isVisible('#no-passkeys'), true);

    // A second device answers the recovery step with the passkey: the page shows it used.
    const second = await device('second', 'passkey');
    await withPopup(second, login, async (popup) => {
      await popup.waitForSelector('#dev-form:not([hidden]) #email');
      await popup.fill('#email', email);
      await popup.click('#dev-submit');
      await popup.waitForSelector('#mfa-recover:not([hidden]) [data-factor="passkeysFactor"]');
      const { cdp, authenticatorId } = await virtualAuthenticator(popup);
      await cdp.send('WebAuthn.addCredential', { authenticatorId, credential: credential as never });
      await popup.click('#mfa-recover-submit');
    });
    const after = await openAccount(second);
    const ids = await after.$$eval('#mfa-passkeys li', (lis) => lis.map((li) => li.getAttribute('data-id')));
    assert.equal(ids.length, 1);
    // DevTools gives the id in base64, WebAuthn in base64url.
    const madeId = Buffer.from(String(credential.credentialId), 'base64').toString('base64url');
    assert.equal(ids[0], madeId, 'the credential the setup screen made');
    const used = (await after.textContent('#mfa-passkeys li')) ?? '';
    assert.match(used, /last used/);
    assert.doesNotMatch(used, /not used yet/);
    await first.context().close();
    await second.context().close();
  });

  it('lists the devices of two-step verification and revokes a lost one: its share opens nothing more', async () => {
    const email = 'account-mfa-devices@example.com';
    const login = "window.auth.login({ loginProvider: 'google', mfaLevel: 'mandatory' })";
    const deviceId = (page: Page) => page.evaluate('window.auth.mfaDeviceId()') as Promise<string>;
    /** The login popup, signed in as the user: resolves once it shows `screen`. */
    const signIn = async (popup: Page, screen: string) => {
      await popup.waitForSelector('#dev-form:not([hidden]) #email');
      await popup.fill('#email', email);
      await popup.click('#dev-submit');
      await popup.waitForSelector(`${screen}:not([hidden])`);
    };
    /** Answers the recovery step with the password. */
    const recover = async (popup: Page) => {
      await signIn(popup, '#mfa-recover');
      await popup.click('#mfa-recover-choice button[data-factor="passwordFactor"]');
      await popup.fill('#mfa-recover-password', PASSWORD);
      await popup.click('#mfa-recover-submit');
    };
    // The lost device set MFA up (its share made then); the kept one recovered with the password.
    const lost = await device('lost', 'password');
    await withPopup(lost, login, async (popup) => {
      await signIn(popup, '#mfa-setup');
      await popup.fill('#mfa-password', PASSWORD);
      await popup.click('#mfa-enable');
    });
    const kept = await device('kept', 'password');
    await withPopup(kept, login, recover);
    const lostId = await deviceId(lost);
    const keptId = await deviceId(kept);
    assert.ok(lostId && keptId && lostId !== keptId);

    const popup = await openAccount(kept);
    const rows = () =>
      popup.$$eval('#mfa-devices li', (lis) =>
        lis.map((li) => ({
          id: li.getAttribute('data-id'),
          text: li.textContent ?? '',
          revoked: li.classList.contains('revoked'),
          button: li.querySelector('button.revoke') !== null,
        })),
      );
    assert.equal(await popup.isVisible('#mfa-devices-part'), true);
    assert.match((await popup.textContent('#mfa-devices-note')) ?? '', /share of your key/);
    const listed = await rows();
    assert.deepEqual(
      listed.map((r) => [r.id, r.revoked, r.button]),
      [
        [lostId, false, true],
        [keptId, false, true],
      ],
    );
    assert.match(listed[0]?.text ?? '', new RegExp(`Device ${lostId.slice(0, 8)}…Added `));

    await popup.click(`#mfa-devices li[data-id="${lostId}"] button.revoke`);
    await popup.waitForSelector(`#mfa-devices li.revoked[data-id="${lostId}"]`);
    const after = await rows();
    assert.deepEqual(
      after.map((r) => [r.id, r.revoked, r.button]),
      [
        [keptId, false, true],
        [lostId, true, false],
      ],
    );
    assert.match(after[1]?.text ?? '', /, revoked /);
    assert.equal(await popup.isHidden('#account-error'), true);
    assert.deepEqual(
      (await audit('mfa.device.revoked')).map((e) => [e.detail.outcome, e.detail.deviceId, e.detail.by]),
      [['success', lostId, 'user']],
    );

    // The lost device's share opens nothing more: signing in there again takes the recovery step,
    // and gives the device a new share.
    await lost.evaluate('window.auth.logout()');
    await withPopup(lost, login, recover);
    const renewed = await deviceId(lost);
    assert.ok(renewed && renewed !== lostId);
    await lost.context().close();
    await kept.context().close();
  });
});
