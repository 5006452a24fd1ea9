// The MFA passkey confirmed for an app that never holds the key (export policy `user`), in Chromium
// with the library bundled into an app page on another origin and Chrome's virtual WebAuthn
// authenticator (DevTools protocol). The user sets up MFA (device, passkey) from an `app` app;
// then, signing in to the `user` app through the login page, (1) the page's confirmation step takes
// the passkey and the app's session has the confirmed rights at once (the account page link, with
// no `confirmSecondFactor`), nothing of the key or a share on the way; (2) after skipping that
// step, `auth.confirmSecondFactor({ passkey: true })` opens the service's confirmation page in a
// popup (ticket out of the address bar, no opener), the passkey answers there, and the call
// resolves once the service marked the sign-in; a popup closed first rejects `USER_CANCELLED`, a
// blocked one `NO_BROWSER`. The service's public URL is `http://localhost:<port>` (WebAuthn's
// secure context).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type AuthServer, startAuthServer } from '@portico/auth-server';
import { CHROMIUM_ARGS, CHROMIUM_PATH, freePort, tempDir } from '@portico/testkit';
import { type Browser, chromium, type Page } from 'playwright-core';
import { type BrowserApp, startBrowserApp } from './browser-app.ts';
import { virtualAuthenticator } from './virtual-authenticator.ts';

const APP_CLIENT = 'BHr_dKcxC0ecKn_2dZQmQeNdjPgWykMkcodEHkVvPMo71qzOV6SgtoN8KCvFdLN7bf34JOm89vWQMLFmSfIo84A';
const USER_CLIENT = 'user-mode-app';
const EMAIL = 'confirm-passkey@example.com';

// ?client=user: the app whose export policy is `user`; else the `app` one. Both enable the device
// and passkey factors.
const APP_JS = `
window.ready = (async () => {
  const cfg = JSON.parse(document.getElementById('cfg').textContent);
  const user = new URLSearchParams(location.search).get('client') === 'user';
  window.auth = await PorticoAuth.Auth.create(
    { clientId: user ? cfg.userClient : cfg.appClient, network: 'sapphire_devnet', sdkUrl: cfg.sdkUrl,
      redirectUrl: location.origin + '/popup-done',
      mfaSettings: { deviceShareFactor: { enable: true, priority: 1, mandatory: true },
        passkeysFactor: { enable: true, priority: 2, mandatory: true },
        backUpShareFactor: { enable: false }, passwordFactor: { enable: false },
        socialBackupFactor: { enable: false } } },
    { uxMode: 'popup' },
  );
})();
window.outcome = (promise) => promise.then((v) => ({ ok: v ?? true }), (e) => ({ code: e.code, message: e.message }));
`;

type Credential = Record<string, unknown>;
type Outcome = { ok?: unknown; code?: string; message?: string };

describe('confirming the MFA passkey for an app that never holds the key, in Chromium', {
  timeout: 600_000,
}, () => {
  const dir = tempDir('portico-auth-confirm-browser-');
  let server: AuthServer;
  let app: BrowserApp | undefined;
  let browser: Browser;
  /** The MFA passkey, as the last authenticator that used it left it (its counter moves on). */
  let passkey: Credential;

  before(async () => {
    const port = await freePort();
    server = await startAuthServer({
      port,
      publicUrl: `http://localhost:${port}`,
      dataDir: `${dir.path}/auth`,
      masterKey: 'd'.repeat(64),
      devLogin: true,
      exportPolicy: { [USER_CLIENT]: 'user' },
    });
    app = await startBrowserApp(APP_JS, () => ({
      appClient: APP_CLIENT,
      userClient: USER_CLIENT,
      sdkUrl: server.sdkUrl,
    }));
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true });
    passkey = await setUpMfa();
  });
  after(async () => {
    await browser?.close();
    await app?.close();
    await server?.close();
    dir.cleanup();
  });

  /** A new device (browser context) on the app page of `client`. */
  async function device(client: 'app' | 'user'): Promise<Page> {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${app!.url}/?client=${client}`);
    await page.evaluate(() => (window as unknown as { ready: Promise<void> }).ready);
    return page;
  }

  /** Runs `call` in the app and hands the popup it opens to `inPopup`; resolves with the call's outcome. */
  async function withPopup(
    page: Page,
    call: string,
    inPopup: (popup: Page) => Promise<void>,
  ): Promise<Outcome> {
    const popupPromise = page.waitForEvent('popup');
    const done = page.evaluate(`window.outcome(${call})`) as Promise<Outcome>;
    const popup = await popupPromise;
    await inPopup(popup);
    return done;
  }

  /** Signs in on the login page with the dev form; `then` runs on the page after it. */
  function login(page: Page, then: (popup: Page) => Promise<void>): Promise<Outcome> {
    return withPopup(
      page,
      "window.auth.login({ loginProvider: 'google', mfaLevel: 'mandatory' })",
      async (popup) => {
        await popup.waitForSelector('#dev-form:not([hidden]) #email');
        await popup.fill('#email', EMAIL);
        await popup.click('#dev-submit');
        await then(popup);
      },
    );
  }

  /** MFA on from the `app` app: the setup screen makes the passkey; answers the credential. */
  async function setUpMfa(): Promise<Credential> {
    const page = await device('app');
    let made: Credential | undefined;
    const done = await login(page, async (popup) => {
      await popup.waitForSelector('#mfa-setup:not([hidden]) #mfa-passkey:not([hidden]) #mfa-passkey-create');
      const { cdp } = await virtualAuthenticator(popup);
      cdp.on('WebAuthn.credentialAdded', (event) => {
        made = event.credential as unknown as Credential;
      });
      await popup.click('#mfa-passkey-create');
      await popup.waitForSelector('#mfa-passkey-create:disabled');
      await popup.click('#mfa-enable');
    });
    assert.ok(done.ok, JSON.stringify(done));
    assert.ok(made, 'the setup screen made a passkey');
    await page.context().close();
    return made;
  }

  /** The passkey on a new virtual authenticator of `popup`, answering once in `use`. */
  async function answerWithPasskey(popup: Page, use: () => Promise<void>): Promise<void> {
    const { cdp, authenticatorId } = await virtualAuthenticator(popup);
    await cdp.send('WebAuthn.addCredential', { authenticatorId, credential: passkey as never });
    await use();
    // The authenticator counted the answer (the service refuses a counter that does not move).
    passkey = { ...passkey, signCount: Number(passkey.signCount ?? 0) + 1 };
  }

  /** Signs in to the `user` app and skips the login page's confirmation step. */
  async function skippedSignIn(): Promise<Page> {
    const page = await device('user');
    const done = await login(page, async (popup) => {
      await popup.waitForSelector('#mfa-recover:not([hidden]) #mfa-recover-later:not([hidden])');
      await popup.click('#mfa-recover-later');
    });
    assert.ok(done.ok, JSON.stringify(done));
    return page;
  }

  const accountLink = (page: Page) =>
    page.evaluate('window.outcome(window.auth.accountPageUrl())') as Promise<Outcome>;

  it('the login page’s confirmation step takes the passkey: the session is confirmed from the start', async () => {
    const page = await device('user');
    // Every answer of the service to the login page (its popup is in this context).
    const answers: string[] = [];
    await page.context().route(`${server.sdkUrl}/api/**`, async (route) => {
      const res = await route.fetch();
      answers.push(`${new URL(route.request().url()).pathname} ${await res.text()}`);
      await route.fulfill({ response: res });
    });
    const done = await login(page, async (popup) => {
      await popup.waitForSelector('#mfa-recover:not([hidden]) [data-factor="passkeysFactor"]');
      assert.match((await popup.textContent('#mfa-recover-title')) ?? '', /Confirm it is you/);
      await popup.click('[data-factor="passkeysFactor"]');
      await answerWithPasskey(popup, async () => {
        const closed = popup.waitForEvent('close');
        await popup.click('#mfa-recover-submit');
        await closed;
      });
    });
    assert.ok(done.ok, JSON.stringify(done));
    assert.equal(await page.evaluate('window.auth.getPrivKey()'), '');
    assert.equal(await page.evaluate('window.auth.keyExport'), 'user');
    const state = (await page.evaluate('JSON.stringify(window.auth.state)')) as string;
    assert.doesNotMatch(state, /"mfa"|deviceKey|coreKitKey/);
    assert.ok(
      answers.some((a) => a.startsWith('/api/mfa/confirm/login ')),
      JSON.stringify(answers),
    );
    for (const text of answers) assert.doesNotMatch(text, /"share"|privKey|coreKitKey/, text);
    // The account page opens without confirmSecondFactor: the login marked the sign-in.
    const link = await accountLink(page);
    assert.match(String(link.ok), /\/account#ticket=[0-9a-f]{64}$/, JSON.stringify(link));
    await page.context().close();
  });

  it('after a skipped step, confirmSecondFactor({ passkey: true }) answers on the service’s page', async () => {
    const page = await skippedSignIn();
    const before = await accountLink(page);
    assert.equal(before.code, 'SERVICE_ERROR');
    assert.match(before.message ?? '', /second factor/);
    const done = await withPopup(
      page,
      'window.auth.confirmSecondFactor({ passkey: true, lang: "de" })',
      async (popup) => {
        await popup.waitForSelector('#confirm:not([hidden])');
        // The ticket left the address bar at once, and the page keeps no handle to the app.
        assert.equal(new URL(popup.url()).hash, '');
        assert.equal(new URL(popup.url()).pathname, '/confirm');
        assert.equal(await popup.evaluate(() => window.opener), null);
        assert.equal(await popup.textContent('#confirm-passkey'), 'Meinen Passkey verwenden');
        await answerWithPasskey(popup, async () => {
          const closed = popup.waitForEvent('close');
          await popup.click('#confirm-passkey');
          await closed;
        });
      },
    );
    assert.deepEqual(done, { ok: true });
    const after = await accountLink(page);
    assert.match(String(after.ok), /\/account#ticket=/, JSON.stringify(after));
    await page.context().close();
  });

  it('rejects when the popup is closed before the passkey answers, or is blocked', async () => {
    const page = await skippedSignIn();
    const closed = await withPopup(
      page,
      'window.auth.confirmSecondFactor({ passkey: true })',
      async (popup) => {
        await popup.waitForSelector('#confirm:not([hidden])');
        await popup.close();
      },
    );
    assert.equal(closed.code, 'USER_CANCELLED', JSON.stringify(closed));
    assert.match(closed.message ?? '', /closed before the passkey answered/);
    // Chromium answers a blocked popup with null from window.open (headless runs allow popups, so
    // the test gives that answer itself).
    const blocked = (await page.evaluate(`(() => {
      window.open = () => null;
      return window.outcome(window.auth.confirmSecondFactor({ passkey: true }));
    })()`)) as Outcome;
    assert.equal(blocked.code, 'NO_BROWSER', JSON.stringify(blocked));
    assert.match(blocked.message ?? '', /blocked/);
    assert.equal((await accountLink(page)).code, 'SERVICE_ERROR', 'still not confirmed');
    await page.context().close();
  });
});
