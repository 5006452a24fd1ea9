import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { Auth, AuthError, type AuthInitParams, AuthValidationError, MemoryStorage } from '@portico/auth';
import { type AuthServer, startAuthServer } from '@portico/auth-server';
import { launchChromium, tempDir } from '@portico/testkit';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { CLIENT_ID } from './helpers.ts';

const LOGO =
  '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><rect width="40" height="40" fill="#e91e63"/></svg>';

// The login page as an app outside a browser (no page origin) shows it, driven in Chromium.
describe('login page defaults: the app’s name and address, v6 white labels, logos', {
  timeout: 120_000,
}, () => {
  const dir = tempDir('portico-auth-page-');
  let server: AuthServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  before(async () => {
    server = await startAuthServer({
      dataDir: dir.path,
      masterKey: '6'.repeat(64),
      devLogin: true,
      allowedRedirects: { [CLIENT_ID]: ['com.example.app://auth', 'https://app.example'] },
    });
    browser = await launchChromium();
    context = await browser.newContext();
  });
  beforeEach(async () => {
    await page?.close();
    page = await context.newPage();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    dir.cleanup();
  });

  /** Shows the login page for `init`, lets `look` inspect it, then closes it like a user would. */
  async function showPage(init: Partial<AuthInitParams>, look: (p: Page) => Promise<void>): Promise<void> {
    const auth = await Auth.create(
      { clientId: CLIENT_ID, network: 'sapphire_mainnet', sdkUrl: server.sdkUrl, ...init },
      {
        storage: new MemoryStorage(),
        openUrl: async (url) => {
          // A new tab per login: the page is one document, a new fragment alone would not reload it.
          await page.close();
          page = await context.newPage();
          await page.goto(url);
          await page.waitForSelector('#dev-form:not([hidden])');
          await look(page);
          throw AuthError.userCancelled();
        },
      },
    );
    await assert.rejects(auth.login({ loginProvider: 'google' }), /User cancelled/);
  }

  const title = (p: Page) => p.textContent('#title');
  const link = (p: Page) => p.$eval('#app-url', (el) => el.textContent ?? '');

  it('outside a browser the app is named after the redirectUrl’s origin', async () => {
    await showPage({ redirectUrl: 'https://app.example/auth/done' }, async (p) => {
      assert.equal(await title(p), 'Sign in to https://app.example');
      assert.equal(await link(p), 'app.example');
    });
  });

  it('a native app is named after its scheme; with no redirectUrl the page says just "Sign in", never the service', async () => {
    await showPage({ redirectUrl: 'com.example.app://auth' }, async (p) => {
      assert.equal(await title(p), 'Sign in to com.example.app');
      assert.equal(await link(p), '');
    });
    await showPage({}, async (p) => {
      assert.equal(await title(p), 'Sign in');
      assert.equal(await link(p), '');
      const text = await p.textContent('body');
      assert.equal(text?.includes(new URL(server.sdkUrl).host), false);
    });
  });

  it('a v6 whiteLabel without dark is light even on a dark system, and "it" falls back to English', async () => {
    await page.emulateMedia({ colorScheme: 'dark' });
    const warnings: string[] = [];
    const auth = await Auth.create(
      {
        clientId: CLIENT_ID,
        network: 'sapphire_mainnet',
        sdkUrl: server.sdkUrl,
        whiteLabel: { name: 'Vecchia', defaultLanguage: 'it' },
      } as unknown as AuthInitParams,
      {
        storage: new MemoryStorage(),
        onWarning: (m) => warnings.push(m),
        openUrl: async (url) => {
          await page.goto(url);
          await page.waitForSelector('#dev-form:not([hidden])');
          assert.equal(await title(page), 'Sign in to Vecchia');
          assert.equal(await page.getAttribute('html', 'lang'), 'en');
          assert.equal(await page.getAttribute('html', 'data-theme'), 'light');
          const bg = await page.$eval('body', (el) => getComputedStyle(el).backgroundColor);
          assert.equal(bg, 'rgb(244, 246, 251)');
          throw AuthError.userCancelled();
        },
      },
    );
    await assert.rejects(auth.login({ loginProvider: 'google' }), /User cancelled/);
    assert.equal(warnings.length, 3, warnings.join('\n'));
  });

  it('shows an https: logo (the CSP allows it) and refuses an http: one at init', async () => {
    const blocked: string[] = [];
    await context.route('https://cdn.example/**', (route) =>
      route.fulfill({ contentType: 'image/svg+xml', body: LOGO }),
    );
    context.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) blocked.push(m.text());
    });
    await showPage({ whiteLabel: { logoDark: 'https://cdn.example/logo.svg', mode: 'light' } }, async (p) => {
      await p.waitForFunction(() => (document.getElementById('logo') as HTMLImageElement).naturalWidth > 0);
      assert.equal(await p.getAttribute('#logo', 'src'), 'https://cdn.example/logo.svg');
    });
    assert.deepEqual(blocked, []);
    for (const logoDark of ['http://cdn.example/logo.svg', '/logo.svg', 'javascript:alert(1)']) {
      await assert.rejects(
        Auth.create(
          {
            clientId: CLIENT_ID,
            network: 'sapphire_mainnet',
            sdkUrl: server.sdkUrl,
            whiteLabel: { logoDark },
          },
          { storage: new MemoryStorage() },
        ),
        (err: unknown) =>
          err instanceof AuthValidationError &&
          err.field === 'whiteLabel.logoDark' &&
          /https: URL or a data:image\/ URL/.test(err.message),
      );
    }
  });
});
