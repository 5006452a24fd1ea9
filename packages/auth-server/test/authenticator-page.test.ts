// The authenticator-app factor on the login page in Chromium: the setup screen shows the QR code and
// the otpauth:// link of a new secret and takes the app's code; the recovery screen of a new device
// takes a later code. Codes come from the independent TOTP of helpers.ts; the service's clock is
// the test's (real time plus steps the test adds, so no test waits for a new 30 s step).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Auth, type AuthInitParams, MemoryStorage } from '@portico/auth';
import { type AuthServer, startAuthServer } from '@portico/auth-server';
import { launchChromium, tempDir } from '@portico/testkit';
import type { Browser, Page } from 'playwright-core';
import { base32, CLIENT_ID, totp } from './helpers.ts';

describe('authenticator factor on the login page in Chromium', { timeout: 180_000 }, () => {
  const dir = tempDir('portico-auth-totp-page-');
  let server: AuthServer;
  let browser: Browser;
  let page: Page;
  let offset = 0;
  const now = () => Date.now() + offset;

  before(async () => {
    server = await startAuthServer({
      dataDir: dir.path,
      masterKey: 'c'.repeat(64),
      devLogin: true,
      clock: now,
    });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 480, height: 900 } });
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    dir.cleanup();
  });

  const init = (): AuthInitParams => ({
    clientId: CLIENT_ID,
    network: 'sapphire_devnet',
    sdkUrl: server.sdkUrl,
    useCoreKitKey: true,
    whiteLabel: { appName: 'Portico Demo' },
    mfaSettings: {
      deviceShareFactor: { enable: true, priority: 1 },
      authenticatorFactor: { enable: true, priority: 2, mandatory: true },
    },
  });

  const opener = (drive: (page: Page) => Promise<void>) => async (url: string, redirectUrl: string) => {
    await page.goto(url);
    await page.waitForSelector('#dev-form:not([hidden])');
    await page.fill('#email', 'totp-page@example.com');
    await page.click('#dev-submit');
    await drive(page);
    await page.waitForURL((u) => u.href.startsWith(redirectUrl));
    return page.url();
  };

  it('sets up with the QR code’s secret and recovers a new device with a later code', async () => {
    let secret: Buffer = Buffer.alloc(0);
    const auth = await Auth.create(init(), {
      storage: new MemoryStorage(),
      onWarning: () => {},
      openUrl: opener(async (p) => {
        await p.waitForSelector('#mfa-setup:not([hidden])');
        const box = '#mfa-factors input[value="authenticatorFactor"]';
        assert.equal(await p.isChecked(box), true);
        assert.equal(await p.isDisabled(box), true, 'mandatory');
        await p.waitForFunction(
          () => (document.getElementById('mfa-authenticator-uri') as HTMLInputElement).value,
        );
        const uri = await p.inputValue('#mfa-authenticator-uri');
        assert.match(uri, /^otpauth:\/\/totp\/Portico%20Demo:totp-page%40example\.com\?/);
        // The QR code is an image the browser decoded (an SVG of the URI).
        const qr = await p.$eval('#mfa-authenticator-qr', (img) => ({
          width: (img as HTMLImageElement).naturalWidth,
          src: (img as HTMLImageElement).src.slice(0, 26),
        }));
        assert.equal(qr.src, 'data:image/svg+xml;base64,');
        assert.ok(qr.width > 0);
        secret = base32(new URL(uri).searchParams.get('secret')!);
        await p.fill('#mfa-authenticator-code', '000000');
        await p.click('#mfa-enable');
        await p.waitForSelector('#mfa-setup-error:not([hidden])');
        assert.match((await p.textContent('#mfa-setup-error')) ?? '', /Wrong authenticator code/);
        await p.fill('#mfa-authenticator-code', totp(secret, now()));
        await p.click('#mfa-enable');
      }),
    });
    await auth.login({ loginProvider: 'google', mfaLevel: 'mandatory' });
    assert.equal(auth.getUserInfo().isMfaEnabled, true);
    const key = auth.getPrivKey();

    offset += 30_000; // the next step: the setup's code is never accepted again
    const phone = await Auth.create(init(), {
      storage: new MemoryStorage(),
      onWarning: () => {},
      openUrl: opener(async (p) => {
        await p.waitForSelector('#mfa-recover:not([hidden])');
        await p.click('#mfa-recover-choice button[data-factor="authenticatorFactor"]');
        assert.equal(await p.isVisible('#mfa-recover-password'), false);
        await p.fill('#mfa-recover-code', totp(secret, now()));
        await p.click('#mfa-recover-submit');
      }),
    });
    await phone.login({ loginProvider: 'google' });
    assert.equal(phone.getPrivKey(), key);
  });
});
