import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Auth, type AuthError, type AuthInitParams, MemoryStorage } from '@portico/auth';
import { type AuthServer, startAuthServer } from '@portico/auth-server';
import { launchChromium, tempDir } from '@portico/testkit';
import type { Browser, Page } from 'playwright-core';

const CLIENT_ID = 'BPi5PB_UiIZ-cPz1GtV5i1I2iOSOHuimiXBI0e-Oe_u6X3oVAbCiAZOTEBtTXw4tsluTITPqA8zMsfxIKMjiqNQ';
// Screenshots for docs/ are written only when PORTICO_SCREENSHOTS names a folder (docs/screenshots).
const SCREENSHOTS = process.env.PORTICO_SCREENSHOTS;
const EMAIL = 'mfa-page@example.com';

// The MFA setup, backup-phrase and recovery screens of the login page, driven in Chromium
// (development login as the provider).
describe('MFA screens on the login page in Chromium', { timeout: 180_000 }, () => {
  const dir = tempDir('portico-auth-mfa-page-');
  let server: AuthServer;
  let browser: Browser;
  let page: Page;
  let key = '';
  let phrase = '';

  before(async () => {
    server = await startAuthServer({ dataDir: dir.path, masterKey: 'd'.repeat(64), devLogin: true });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 480, height: 760 } });
    if (SCREENSHOTS) mkdirSync(SCREENSHOTS, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    dir.cleanup();
  });

  const init = (defaultLanguage: 'de' | 'fr'): AuthInitParams => ({
    clientId: CLIENT_ID,
    network: 'sapphire_devnet',
    sdkUrl: server.sdkUrl,
    useCoreKitKey: true,
    whiteLabel: { appName: 'Portico Demo', defaultLanguage, mode: 'light', theme: { primary: '#E91E63' } },
    mfaSettings: {
      deviceShareFactor: { enable: true, priority: 3 },
      backUpShareFactor: { enable: true, priority: 2 },
      passwordFactor: { enable: true, priority: 1, mandatory: true },
    },
  });

  function opener(drive: (page: Page) => Promise<void>, email = EMAIL) {
    return async (url: string, redirectUrl: string) => {
      await page.goto(url);
      await page.waitForSelector('#dev-form:not([hidden])');
      await page.fill('#email', email);
      await page.click('#dev-submit');
      await drive(page);
      await page.waitForURL((u) => u.href.startsWith(redirectUrl));
      return page.url();
    };
  }

  it('setup screen: factors in priority order, mandatory locked, no skip when mandatory; phrase shown once', async () => {
    const auth = await Auth.create(init('de'), {
      storage: new MemoryStorage(),
      openUrl: opener(async (p) => {
        await p.waitForSelector('#mfa-setup:not([hidden])');
        assert.equal(await p.textContent('#mfa-setup-title'), 'Konto absichern');
        const factors = await p.$$eval('#mfa-factors input', (els) =>
          els.map((e) => [(e as HTMLInputElement).value, (e as HTMLInputElement).disabled]),
        );
        assert.deepEqual(factors, [
          ['passwordFactor', true],
          ['backUpShareFactor', false],
          ['deviceShareFactor', false],
        ]);
        assert.equal(await p.isVisible('#mfa-skip'), false, 'mfaLevel mandatory: no skip');
        const primary = await p.$eval('#mfa-enable', (el) => getComputedStyle(el).backgroundColor);
        assert.equal(primary, 'rgb(233, 30, 99)');
        await p.fill('#mfa-password', 'correct horse battery');
        if (SCREENSHOTS) await p.screenshot({ path: join(SCREENSHOTS, 'auth-mfa-setup-de.png') });
        await p.click('#mfa-enable');
        await p.waitForSelector('#mfa-phrase:not([hidden])');
        assert.equal(await p.textContent('#mfa-phrase-title'), 'Ihre Wiederherstellungsphrase');
        const words = await p.$$eval('#mfa-words li', (els) => els.map((e) => e.textContent ?? ''));
        assert.equal(words.length, 24);
        phrase = words.join(' ');
        await p.click('#mfa-phrase-done');
      }),
    });
    await auth.login({ loginProvider: 'google', mfaLevel: 'mandatory' });
    assert.equal(auth.getUserInfo().isMfaEnabled, true);
    key = auth.getPrivKey();
    assert.equal(key.length, 64);
  });

  it('optional level: the setup screen offers skip, and skipping logs in without MFA', async () => {
    const auth = await Auth.create(init('de'), {
      storage: new MemoryStorage(),
      openUrl: opener(async (p) => {
        await p.waitForSelector('#mfa-setup:not([hidden])');
        assert.equal(await p.textContent('#mfa-skip'), 'Später');
        await p.click('#mfa-skip');
      }, 'skipper@example.com'),
    });
    await auth.login({ loginProvider: 'google', mfaLevel: 'optional' });
    assert.equal(auth.getUserInfo().isMfaEnabled, false);
    assert.equal(auth.getPrivKey().length, 64);
  });

  it('recovery screen on a new device: a wrong password is refused, then the phrase rebuilds the key', async () => {
    assert.ok(phrase, 'needs the setup test');
    const storage = new MemoryStorage();
    const wrong = await Auth.create(init('fr'), {
      storage,
      openUrl: opener(async (p) => {
        await p.waitForSelector('#mfa-recover:not([hidden])');
        assert.equal(await p.textContent('#mfa-recover-title'), 'Confirmez votre identité');
        await p.click('#mfa-recover-choice button[data-factor="passwordFactor"]');
        await p.fill('#mfa-recover-password', 'not the password');
        if (SCREENSHOTS) await p.screenshot({ path: join(SCREENSHOTS, 'auth-mfa-recover-fr.png') });
        await p.click('#mfa-recover-submit');
      }),
    });
    await assert.rejects(wrong.login({ loginProvider: 'google' }), (err: unknown) => {
      assert.equal((err as AuthError).code, 'MFA_FACTOR_INVALID');
      assert.match((err as Error).message, /Wrong password/);
      return true;
    });
    // Not locked out: the same pending login takes the right factor.
    await wrong.completeMfa({ password: 'correct horse battery' });
    assert.equal(wrong.getPrivKey(), key);

    const viaPhrase = await Auth.create(init('fr'), {
      storage: new MemoryStorage(),
      openUrl: opener(async (p) => {
        await p.waitForSelector('#mfa-recover:not([hidden])');
        await p.click('#mfa-recover-choice button[data-factor="backUpShareFactor"]');
        await p.fill('#mfa-recover-phrase', phrase);
        await p.click('#mfa-recover-submit');
      }),
    });
    await viaPhrase.login({ loginProvider: 'google' });
    assert.equal(viaPhrase.getPrivKey(), key);
    assert.equal(viaPhrase.getUserInfo().isMfaEnabled, true);
  });
});
