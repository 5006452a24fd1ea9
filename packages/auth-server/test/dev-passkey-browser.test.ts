// Passkeys on an auth service set up as `portico dev` sets it up (no verifiers: the development
// login; on 127.0.0.1, published as `localhost` by `publicHost`), in Chromium with the DevTools
// protocol's virtual authenticator. WebAuthn takes no IP address as RP ID: on the default public
// URL (`http://127.0.0.1:<port>`) the browser refuses to make a passkey at all, so the dev login
// page's passkey factor needs the name.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type AuthServer, startAuthServer } from '@portico/auth-server';
import { CHROMIUM_ARGS, CHROMIUM_PATH, tempDir } from '@portico/testkit';
import { type Browser, chromium } from 'playwright-core';
import { type BrowserApp, startBrowserApp } from './browser-app.ts';
import { virtualAuthenticator } from './virtual-authenticator.ts';

const CLIENT_ID = 'BHr_dKcxC0ecKn_2dZQmQeNdjPgWykMkcodEHkVvPMo71qzOV6SgtoN8KCvFdLN7bf34JOm89vWQMLFmSfIo84A';

const APP_JS = `
window.ready = (async () => {
  const cfg = JSON.parse(document.getElementById('cfg').textContent);
  window.auth = await PorticoAuth.Auth.create(
    { clientId: cfg.clientId, network: 'sapphire_devnet', sdkUrl: cfg.sdkUrl,
      redirectUrl: location.origin + '/popup-done',
      mfaSettings: { deviceShareFactor: { enable: true, priority: 1, mandatory: true },
        passkeysFactor: { enable: true, priority: 2, mandatory: true },
        backUpShareFactor: { enable: false }, passwordFactor: { enable: false },
        socialBackupFactor: { enable: false } } },
    { uxMode: 'popup' },
  );
})();
`;

describe('passkeys on the development auth service in Chromium', { timeout: 180_000 }, () => {
  const dir = tempDir('portico-auth-dev-passkey-');
  let named: AuthServer;
  let numeric: AuthServer;
  let app: BrowserApp | undefined;
  let browser: Browser;

  before(async () => {
    named = await startAuthServer({ dataDir: `${dir.path}/named`, publicHost: 'localhost' });
    numeric = await startAuthServer({ dataDir: `${dir.path}/numeric` });
    app = await startBrowserApp(APP_JS, () => ({ clientId: CLIENT_ID, sdkUrl: named.sdkUrl }));
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true });
  });
  after(async () => {
    await browser?.close();
    await app?.close();
    await named?.close();
    await numeric?.close();
    dir.cleanup();
  });

  it('the default public URL names 127.0.0.1, where the browser makes no passkey', async () => {
    assert.match(numeric.sdkUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${numeric.sdkUrl}/account`);
    await virtualAuthenticator(page);
    // What the setup screen asks for there: the service's host name as RP ID.
    const refusal = await page.evaluate(async () => {
      try {
        await navigator.credentials.create({
          publicKey: {
            rp: { id: location.hostname, name: 'Portico' },
            user: { id: new Uint8Array(16), name: 'dev', displayName: 'dev' },
            challenge: new Uint8Array(32),
            pubKeyCredParams: [{ type: 'public-key', alg: -7 }],
            timeout: 5000,
          },
        });
        return 'created';
      } catch (err) {
        return (err as Error).name;
      }
    });
    assert.equal(refusal, 'SecurityError');
    await page.context().close();
  });

  it('published as localhost, the dev login page sets up the passkey factor', async () => {
    assert.match(named.sdkUrl, /^http:\/\/localhost:\d+$/);
    const page = await (await browser.newContext()).newPage();
    await page.goto(app!.url);
    await page.evaluate(() => (window as unknown as { ready: Promise<void> }).ready);
    const popupPromise = page.waitForEvent('popup');
    const done = page.evaluate("window.auth.login({ loginProvider: 'google', mfaLevel: 'mandatory' })");
    const popup = await popupPromise;
    assert.equal(new URL(popup.url()).hostname, 'localhost');
    await popup.waitForSelector('#dev-form:not([hidden]) #email');
    await popup.fill('#email', 'dev-passkey@example.com');
    await popup.click('#dev-submit');
    await popup.waitForSelector('#mfa-setup:not([hidden]) #mfa-passkey:not([hidden]) #mfa-passkey-create');
    await virtualAuthenticator(popup);
    await popup.click('#mfa-passkey-create');
    await popup.waitForSelector('#mfa-passkey-create:disabled');
    await popup.click('#mfa-enable');
    await done;
    const privKey = await page.evaluate(() =>
      (window as unknown as { auth: { getPrivKey(): string } }).auth.getPrivKey(),
    );
    assert.match(privKey, /^[0-9a-f]{64}$/);
    const mfa = await page.evaluate(
      () =>
        (window as unknown as { auth: { getUserInfo(): { isMfaEnabled: boolean } } }).auth.getUserInfo()
          .isMfaEnabled,
    );
    assert.equal(mfa, true);
    await page.context().close();
  });
});
