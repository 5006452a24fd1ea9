// Passkeys in Chromium with Chrome's virtual WebAuthn authenticator (DevTools protocol: a CTAP2
// authenticator with resident keys and user verification, the user verified). The library is
// bundled into an app page on another origin, as an app would ship it: the user signs in with the
// development login, links a passkey (`auth.linkPasskey()`: the login page's passkey screen,
// `navigator.credentials.create`), logs out, then signs in with only the passkey
// (`login({ loginProvider: 'passkey' })`, `navigator.credentials.get`) and gets the same key. A
// passkey made as a new account gets another key. The passkey MFA factor: set up on the setup
// screen, then on a new device the passkey answers the recovery screen and the key is the same.
// The service's public URL is `http://localhost:<port>`: WebAuthn takes localhost as a secure
// context and RP ID, never an IP.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type AuthServer, startAuthServer } from '@portico/auth-server';
import { CHROMIUM_ARGS, CHROMIUM_PATH, freePort, tempDir } from '@portico/testkit';
import { type Browser, chromium, type Page } from 'playwright-core';
import { type BrowserApp, startBrowserApp } from './browser-app.ts';
import { park, post } from './helpers.ts';
import { virtualAuthenticator } from './virtual-authenticator.ts';

const CLIENT_ID = 'BHr_dKcxC0ecKn_2dZQmQeNdjPgWykMkcodEHkVvPMo71qzOV6SgtoN8KCvFdLN7bf34JOm89vWQMLFmSfIo84A';

const APP_JS = `
window.ready = (async () => {
  const cfg = JSON.parse(document.getElementById('cfg').textContent);
  // ?mfa: the app enables the device and passkey factors.
  const mfaSettings = new URLSearchParams(location.search).has('mfa')
    ? { deviceShareFactor: { enable: true, priority: 1, mandatory: true },
        passkeysFactor: { enable: true, priority: 2, mandatory: true },
        backUpShareFactor: { enable: false }, passwordFactor: { enable: false },
        socialBackupFactor: { enable: false } }
    : undefined;
  window.auth = await PorticoAuth.Auth.create(
    { clientId: cfg.clientId, network: 'sapphire_devnet', sdkUrl: cfg.sdkUrl,
      redirectUrl: location.origin + '/popup-done', mfaSettings },
    { uxMode: 'popup' },
  );
  window.keys = () => ({ privKey: window.auth.getPrivKey(), user: window.auth.getUserInfo() });
})();
`;

interface Keys {
  privKey: string;
  user: { verifier: string; verifierId: string; typeOfLogin: string; aggregateVerifier: string };
}

interface VirtualCredential {
  credentialId: string;
  isResidentCredential: boolean;
  rpId?: string;
  privateKey: string;
  userHandle?: string;
  signCount: number;
}

/** A port free a moment ago (the service's public URL must name it before it listens). */

describe('passkeys in Chromium (virtual WebAuthn authenticator)', { timeout: 180_000 }, () => {
  const dir = tempDir('portico-auth-passkey-browser-');
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
      masterKey: 'c'.repeat(64),
      devLogin: true,
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

  const keys = (page: Page) => page.evaluate(() => (window as unknown as { keys(): Keys }).keys());
  /** Runs `call` in the app (it opens the login popup) and hands the popup to `inPopup`. */
  async function withPopup(page: Page, call: string, inPopup: (popup: Page) => Promise<void>) {
    const popupPromise = page.waitForEvent('popup');
    const done = page.evaluate(call);
    const popup = await popupPromise;
    await inPopup(popup);
    await done;
  }

  it('links a passkey after a login, then signs in with only the passkey and gets the same key', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(appUrl);
    await page.evaluate(() => (window as unknown as { ready: Promise<void> }).ready);

    // 1. An ordinary login (the development login stands in for Google).
    await withPopup(page, "window.auth.login({ loginProvider: 'google' })", async (popup) => {
      await popup.waitForSelector('#dev-form:not([hidden]) #email');
      await popup.fill('#email', 'passkey-user@example.com');
      await popup.click('#dev-submit');
    });
    const first = await keys(page);
    assert.match(first.privKey, /^[0-9a-f]{64}$/);
    assert.equal(first.user.verifier, 'google');

    // 2. Link a passkey: the login page asks the device to create one for this account.
    let credential: VirtualCredential | undefined;
    await withPopup(page, 'window.auth.linkPasskey()', async (popup) => {
      await popup.waitForSelector('#passkey:not([hidden]) #passkey-create:not([hidden])');
      assert.equal(await popup.isHidden('#passkey-signin'), true, 'a link offers only to create one');
      const device = await virtualAuthenticator(popup);
      // The credential the device makes, as the protocol reports it (the popup closes with the result).
      device.cdp.on('WebAuthn.credentialAdded', (event) => {
        credential = event.credential as VirtualCredential;
      });
      await popup.click('#passkey-create');
    });
    assert.ok(credential, 'the virtual authenticator holds the new passkey');
    assert.equal(credential.isResidentCredential, true);
    assert.equal(credential.rpId, 'localhost');
    const linked = await keys(page);
    assert.equal(linked.privKey, first.privKey, 'linking signs in again to the same account');

    // 3. Log out; sign in with only the passkey (the same device: its credential in a new popup).
    await page.evaluate(() => (window as unknown as { auth: { logout(): Promise<void> } }).auth.logout());
    assert.equal((await keys(page).catch(() => ({ privKey: '' }))).privKey, '');
    await withPopup(page, "window.auth.login({ loginProvider: 'passkey' })", async (popup) => {
      await popup.waitForSelector('#passkey:not([hidden]) #passkey-signin:not([hidden])');
      const device = await virtualAuthenticator(popup);
      await device.cdp.send('WebAuthn.addCredential', {
        authenticatorId: device.authenticatorId,
        credential: credential!,
      });
      await popup.click('#passkey-signin');
    });
    const viaPasskey = await keys(page);
    assert.equal(
      viaPasskey.privKey,
      first.privKey,
      'the passkey gives the key of the account it was linked to',
    );
    assert.equal(viaPasskey.user.verifier, 'google');
    assert.equal(viaPasskey.user.verifierId, 'passkey-user@example.com');
    assert.equal(viaPasskey.user.typeOfLogin, 'passkey');

    // 4. A passkey made as a new account on the login page is another account (another key).
    await page.evaluate(() => (window as unknown as { auth: { logout(): Promise<void> } }).auth.logout());
    await withPopup(page, "window.auth.login({ loginProvider: 'passkey' })", async (popup) => {
      await popup.waitForSelector('#passkey:not([hidden]) #passkey-create:not([hidden])');
      await virtualAuthenticator(popup);
      await popup.fill('#passkey-name', 'Fresh Person');
      await popup.click('#passkey-create');
    });
    const fresh = await keys(page);
    assert.match(fresh.privKey, /^[0-9a-f]{64}$/);
    assert.notEqual(fresh.privKey, first.privKey);
    assert.equal(fresh.user.verifier, 'passkey');
    await context.close();
  });

  it('the passkey MFA factor: set up on the setup screen, then on a new device the passkey rebuilds the same key', async () => {
    const email = 'passkey-mfa@example.com';
    const login = "window.auth.login({ loginProvider: 'google', mfaLevel: 'mandatory' })";
    // The first device: a login that must set up MFA; the setup screen makes the passkey.
    const first = await browser.newContext();
    const page = await first.newPage();
    await page.goto(`${appUrl}/?mfa`);
    await page.evaluate(() => (window as unknown as { ready: Promise<void> }).ready);
    let credential: VirtualCredential | undefined;
    await withPopup(page, login, async (popup) => {
      await popup.waitForSelector('#dev-form:not([hidden]) #email');
      await popup.fill('#email', email);
      await popup.click('#dev-submit');
      await popup.waitForSelector('#mfa-setup:not([hidden]) #mfa-passkey:not([hidden]) #mfa-passkey-create');
      const device = await virtualAuthenticator(popup);
      device.cdp.on('WebAuthn.credentialAdded', (event) => {
        credential = event.credential as VirtualCredential;
      });
      await popup.click('#mfa-passkey-create');
      await popup.waitForSelector('#mfa-passkey-create:disabled');
      await popup.click('#mfa-enable');
    });
    const enabled = await keys(page);
    assert.match(enabled.privKey, /^[0-9a-f]{64}$/);
    assert.ok(credential, 'the setup screen made a passkey');
    await first.close();

    // A new device (another browser profile: no device share): the recovery screen asks for the
    // passkey; the same device's credential answers, and the app's library rebuilds the key.
    const second = await browser.newContext();
    const other = await second.newPage();
    await other.goto(`${appUrl}/?mfa`);
    await other.evaluate(() => (window as unknown as { ready: Promise<void> }).ready);
    await withPopup(other, login, async (popup) => {
      await popup.waitForSelector('#dev-form:not([hidden]) #email');
      await popup.fill('#email', email);
      await popup.click('#dev-submit');
      await popup.waitForSelector('#mfa-recover:not([hidden]) [data-factor="passkeysFactor"]');
      const device = await virtualAuthenticator(popup);
      await device.cdp.send('WebAuthn.addCredential', {
        authenticatorId: device.authenticatorId,
        credential: credential!,
      });
      await popup.click('#mfa-recover-submit');
    });
    const recovered = await keys(other);
    assert.equal(recovered.privKey, enabled.privKey, 'the passkey factor rebuilds the same key');
    await second.close();
  });

  it('with the development login on, the page lists it beside the passkey', async () => {
    const base = `http://127.0.0.1:${new URL(server.sdkUrl).port}`;
    const loginId = await park(base, {}, {});
    const view = await post(base, '/api/login/request', { loginId });
    assert.deepEqual(
      (view.body as unknown as { providers: Array<{ id: string }> }).providers.map((p) => p.id),
      ['passkey', 'portico-dev'],
    );
  });

  it('a cancelled passkey dialog (no authenticator answers) leaves the page on the passkey screen with the reason', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(appUrl);
    await page.evaluate(() => (window as unknown as { ready: Promise<void> }).ready);
    const popupPromise = page.waitForEvent('popup');
    void page
      .evaluate(() =>
        (window as unknown as { auth: { login(p: unknown): Promise<unknown> } }).auth
          .login({ loginProvider: 'passkey' })
          .catch(() => {}),
      )
      .catch(() => {});
    const popup = await popupPromise;
    await popup.waitForSelector('#passkey:not([hidden]) #passkey-signin:not([hidden])');
    // A device with no passkey for this site: the browser's request ends in NotAllowedError.
    const device = await virtualAuthenticator(popup);
    await device.cdp.send('WebAuthn.setUserVerified', {
      authenticatorId: device.authenticatorId,
      isUserVerified: false,
    });
    await popup.click('#passkey-signin');
    await popup.waitForSelector('#passkey-error:not([hidden])', { timeout: 60_000 });
    assert.match((await popup.textContent('#passkey-error')) ?? '', /cancelled or timed out/);
    assert.equal(await popup.isVisible('#passkey-signin'), true, 'the user can try again');
    await context.close();
  });
});
