import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Auth, AuthError, type AuthInitParams, FileStorage, MemoryStorage } from '@portico/auth/node';
import { getAppScopedKey } from '@portico/auth/protocol';
import { type AuthServer, startAuthServer } from '@portico/auth-server';
import { launchChromium, tempDir } from '@portico/testkit';
import Provider from 'oidc-provider';
import type { Browser, Page } from 'playwright-core';

const CLIENT_ID = 'BPi5PB_UiIZ-cPz1GtV5i1I2iOSOHuimiXBI0e-Oe_u6X3oVAbCiAZOTEBtTXw4tsluTITPqA8zMsfxIKMjiqNQ';
// Screenshots for docs/ are written only when PORTICO_SCREENSHOTS names a folder (docs/screenshots).
const SCREENSHOTS = process.env.PORTICO_SCREENSHOTS;
const svg = (fill: string) =>
  `data:image/svg+xml,${encodeURIComponent(`<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><circle cx="32" cy="32" r="30" fill="${fill}"/></svg>`)}`;
const LOGO_FOR_DARK = svg('#ffd54f');
const LOGO_FOR_LIGHT = svg('#37474f');

interface OpenIdProvider {
  issuer: string;
  /** The query of every authorization request the provider received, in order. */
  authorizationRequests: URLSearchParams[];
  close(): Promise<void>;
}

/** A real OpenID provider (oidc-provider) with its development login and consent screens. */
async function startOpenIdProvider(redirectUris: () => string[]): Promise<OpenIdProvider> {
  const http: Server = createServer();
  await new Promise<void>((ok) => http.listen(0, '127.0.0.1', () => ok()));
  const issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const authorizationRequests: URLSearchParams[] = [];
  let provider: Provider | undefined;
  http.on('request', (req, res) => {
    const url = new URL(req.url ?? '/', issuer);
    if (url.pathname === '/auth' && url.searchParams.has('client_id'))
      authorizationRequests.push(url.searchParams);
    if (!provider) {
      provider = new Provider(issuer, {
        clients: [
          {
            client_id: 'portico-login',
            client_secret: 'portico-login-secret-for-tests-only',
            redirect_uris: redirectUris(),
            grant_types: ['authorization_code'],
            response_types: ['code'],
          },
        ],
        pkce: { required: () => true },
        cookies: { keys: ['test-cookie-key'] },
        claims: {
          openid: ['sub'],
          email: ['email', 'email_verified'],
          profile: ['name', 'preferred_username'],
        },
        findAccount: async (_ctx, id) => ({
          accountId: id,
          claims: async () => ({
            sub: id,
            email: id,
            email_verified: true,
            name: 'Alice Example',
            preferred_username: id.split('@')[0],
          }),
        }),
      });
    }
    provider.callback()(req, res);
  });
  return {
    issuer,
    authorizationRequests,
    close: () =>
      new Promise<void>((ok) => {
        http.closeAllConnections();
        http.close(() => ok());
      }),
  };
}

describe('OIDC login through the login page in Chromium', { timeout: 240_000 }, () => {
  const dir = tempDir('portico-auth-oidc-');
  let op: OpenIdProvider;
  /** Another address of the auth service's callback (same server, another host name). */
  let altCallback = '';
  let server: AuthServer;
  let browser: Browser;
  let page: Page;

  before(async () => {
    let sdkUrl = '';
    const redirectUris: string[] = [];
    op = await startOpenIdProvider(() => [`${sdkUrl}/callback`, altCallback]);
    server = await startAuthServer({
      dataDir: dir.path,
      masterKey: 'c'.repeat(64),
      verifiers: {
        'portico-oidc': {
          type: 'oidc',
          issuer: op.issuer,
          clientId: 'portico-login',
          clientSecret: 'portico-login-secret-for-tests-only',
          verifierIdField: 'email',
          verifierIdFields: ['preferred_username'],
          name: 'Portico ID',
          redirectUris,
        },
      },
    });
    sdkUrl = server.sdkUrl;
    altCallback = `http://localhost:${new URL(sdkUrl).port}/callback`;
    redirectUris.push(altCallback); // known once the service listens; the verifier reads the list per login
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 480, height: 640 } });
    if (SCREENSHOTS) mkdirSync(SCREENSHOTS, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    await op?.close();
    dir.cleanup();
  });

  function init(whiteLabel: AuthInitParams['whiteLabel']): AuthInitParams {
    return {
      clientId: CLIENT_ID,
      network: 'sapphire_devnet',
      sdkUrl: server.sdkUrl,
      whiteLabel,
      loginConfig: {
        portico: {
          verifier: 'portico-oidc',
          typeOfLogin: 'google',
          clientId: 'portico-login',
          name: 'Portico ID',
        },
        other: { verifier: 'portico-oidc', typeOfLogin: 'github', clientId: 'portico-login', name: 'GitHub' },
      },
    };
  }

  /** Plays the system browser: shows the page, lets `drive` act on it, returns the final URL. */
  function opener(drive: (page: Page) => Promise<void>) {
    return async (url: string, redirectUrl: string) => {
      await page.goto(url);
      await drive(page);
      await page.waitForURL((u) => u.href.startsWith(redirectUrl));
      return page.url();
    };
  }

  async function style(selector: string, property: string): Promise<string> {
    return page.$eval(selector, (el, p) => getComputedStyle(el).getPropertyValue(p), property);
  }

  it('logs in end to end: login() → login page → OpenID provider → state with keys', async () => {
    const storage = new FileStorage(join(dir.path, 'app-storage.json'));
    const params = init({
      appName: 'Portico Demo',
      mode: 'dark',
      theme: { primary: '#E91E63' },
      defaultLanguage: 'ja',
      appUrl: 'https://demo.portico.test',
      logoLight: LOGO_FOR_DARK,
      logoDark: LOGO_FOR_LIGHT,
    });
    const auth = await Auth.create(params, {
      storage,
      openUrl: opener(async (p) => {
        await p.waitForSelector('#providers button');
        // White label: Japanese strings, dark theme, the primary colour on the main button.
        assert.equal(await p.textContent('#title'), 'Portico Demo にログイン');
        assert.equal(await p.textContent('#providers button.main'), 'Portico ID で続行');
        assert.equal(await style('button.main', 'background-color'), 'rgb(233, 30, 99)');
        assert.equal(await style('body', 'background-color'), 'rgb(14, 17, 24)');
        assert.equal(await p.textContent('#app-url a'), 'demo.portico.test');
        assert.equal(await p.getAttribute('#logo', 'src'), LOGO_FOR_DARK);
        if (SCREENSHOTS) await p.screenshot({ path: join(SCREENSHOTS, 'auth-login-dark-ja.png') });
        await p.click('button[data-provider="portico"]');
        // The provider's own (development) login and consent screens.
        await p.waitForSelector('input[name="login"]');
        await p.fill('input[name="login"]', 'alice@example.com');
        await p.fill('input[name="password"]', 'any password');
        await p.click('button[type="submit"]');
        await p.waitForSelector('button[type="submit"]:has-text("Continue")');
        await p.click('button[type="submit"]:has-text("Continue")');
      }),
    });
    const state = await auth.login({});
    assert.match(state.coreKitKey ?? '', /^[0-9a-f]{64}$/);
    assert.equal(state.privKey, getAppScopedKey(state.coreKitKey!, CLIENT_ID));
    assert.equal(state.ed25519PrivKey?.length, 128);
    const user = auth.getUserInfo();
    assert.equal(user.verifier, 'portico-oidc');
    assert.equal(user.verifierId, 'alice@example.com');
    assert.equal(user.name, 'Alice Example');
    assert.equal(user.typeOfLogin, 'google');
    assert.ok(user.oAuthIdToken && user.oAuthAccessToken && user.idToken);

    // The app restarts: the stored sessionId (and nothing else) brings the keys back.
    const restarted = await Auth.create(params, { storage });
    assert.equal(restarted.getPrivKey(), state.privKey);
    assert.equal(restarted.getUserInfo().verifierId, 'alice@example.com');
    await restarted.logout();
    assert.deepEqual((await Auth.create(params, { storage })).state, {});
  });

  it('goes straight to the provider named by loginProvider and gives the same user the same key', async () => {
    const first = await Auth.create(init(undefined), { storage: new MemoryStorage() });
    let sawProviderList = false;
    const auth = await Auth.create(init(undefined), {
      storage: new MemoryStorage(),
      openUrl: opener(async (p) => {
        // The provider remembers the browser session: no login form this time, maybe consent.
        await p.waitForURL((u) => !u.href.includes('/start'));
        sawProviderList = await p.isVisible('#providers button').catch(() => false);
        const consent = p.locator('button[type="submit"]:has-text("Continue")');
        if (await consent.isVisible().catch(() => false)) await consent.click();
      }),
    });
    await auth.login({ loginProvider: 'other' });
    assert.equal(sawProviderList, false);
    assert.equal(auth.getUserInfo().verifierId, 'alice@example.com');
    assert.equal(auth.getUserInfo().typeOfLogin, 'github');
    assert.deepEqual(first.state, {});
  });

  it('renders the white label in light mode, German, another colour, with the logo loader', async () => {
    const auth = await Auth.create(
      init({
        appName: 'Beispiel',
        mode: 'light',
        theme: { primary: '#0A7D32' },
        defaultLanguage: 'de',
        useLogoLoader: true,
        appUrl: 'https://beispiel.portico.test',
        logoLight: LOGO_FOR_DARK,
        logoDark: LOGO_FOR_LIGHT,
      }),
      {
        storage: new MemoryStorage(),
        openUrl: opener(async (p) => {
          await p.waitForSelector('#providers button');
          assert.equal(await p.textContent('#title'), 'Bei Beispiel anmelden');
          assert.equal(await p.textContent('#providers button.main'), 'Weiter mit Portico ID');
          assert.equal(await style('button.main', 'background-color'), 'rgb(10, 125, 50)');
          assert.equal(await style('body', 'background-color'), 'rgb(244, 246, 251)');
          assert.equal(await p.getAttribute('html', 'lang'), 'de');
          assert.equal(await p.getAttribute('#logo', 'src'), LOGO_FOR_LIGHT);
          // The logo loader replaces the spinner.
          assert.equal(await p.isHidden('#spinner'), true);
          if (SCREENSHOTS) await p.screenshot({ path: join(SCREENSHOTS, 'auth-login-light-de.png') });
          await p.click('#cancel');
        }),
      },
    );
    await assert.rejects(
      auth.login(),
      (err: unknown) => err instanceof AuthError && err.code === 'USER_CANCELLED',
    );
    assert.deepEqual(auth.state, {});
  });

  it('follows the system colour scheme in auto mode and defaults to English and #0364FF', async () => {
    await page.emulateMedia({ colorScheme: 'dark' });
    const auth = await Auth.create(init({ appName: 'Auto App', appUrl: 'https://auto.portico.test' }), {
      storage: new MemoryStorage(),
      openUrl: opener(async (p) => {
        await p.waitForSelector('#providers button');
        assert.equal(await p.textContent('#title'), 'Sign in to Auto App');
        assert.equal(await style('button.main', 'background-color'), 'rgb(3, 100, 255)');
        assert.equal(await style('body', 'background-color'), 'rgb(14, 17, 24)');
        if (SCREENSHOTS) await p.screenshot({ path: join(SCREENSHOTS, 'auth-login-auto-en.png') });
        await p.click('#cancel');
      }),
    });
    await assert.rejects(auth.login(), /cancelled/i);
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('reports USER_CANCELLED when the user cancels at the OpenID provider', async () => {
    const auth = await Auth.create(init(undefined), {
      storage: new MemoryStorage(),
      openUrl: opener(async (p) => {
        await p.waitForURL((u) => u.href.startsWith(op.issuer));
        await p.click('a:has-text("Cancel")');
      }),
    });
    await assert.rejects(
      auth.login({ loginProvider: 'portico', extraLoginOptions: { prompt: 'login' } }),
      (err: unknown) => err instanceof AuthError && err.code === 'USER_CANCELLED',
    );
  });

  it('speaks all nine languages', async () => {
    const titles = new Map<string, string>();
    for (const lang of ['en', 'de', 'ja', 'ko', 'zh', 'es', 'fr', 'pt', 'nl'] as const) {
      const auth = await Auth.create(init({ appName: 'Zeta', defaultLanguage: lang }), {
        storage: new MemoryStorage(),
        openUrl: opener(async (p) => {
          await p.waitForSelector('#providers button');
          assert.equal(await p.getAttribute('html', 'lang'), lang);
          const title = (await p.textContent('#title')) ?? '';
          assert.ok(title.includes('Zeta'), title);
          titles.set(lang, `${title}|${await p.textContent('#cancel')}|${await p.textContent('#powered')}`);
          await p.click('#cancel');
        }),
      });
      await assert.rejects(auth.login(), /cancelled/i);
    }
    assert.equal(new Set(titles.values()).size, 9, [...titles.values()].join('\n'));
  });

  /** Plays the system browser through the provider's screens, whichever it shows (login, consent, none). */
  function throughProvider(redirectUrl: () => string) {
    return async (url: string) => {
      await page.goto(url);
      const login = page.locator('input[name="login"]');
      const consent = page.locator('button[type="submit"]:has-text("Continue")');
      while (!page.url().startsWith(redirectUrl())) {
        await Promise.race([
          login.waitFor().catch(() => {}),
          consent.waitFor().catch(() => {}),
          page.waitForURL((u) => u.href.startsWith(redirectUrl())).catch(() => {}),
        ]);
        if (await login.isVisible().catch(() => false)) {
          await login.fill('alice@example.com');
          await page.fill('input[name="password"]', 'any password');
          await page.click('button[type="submit"]');
        } else if (await consent.isVisible().catch(() => false)) {
          await consent.click();
        }
      }
      return page.url();
    };
  }

  it('sends scope, id_token_hint, audience, connection, client_id and redirect_uri to the provider', async () => {
    const redirect = () => `${server.sdkUrl}/done`;
    const first = await Auth.create(init(undefined), {
      storage: new MemoryStorage(),
      openUrl: throughProvider(redirect),
    });
    await first.login({ loginProvider: 'portico' });
    const idTokenHint = first.getUserInfo().oAuthIdToken ?? '';
    assert.match(idTokenHint, /^ey/);

    const before = op.authorizationRequests.length;
    const auth = await Auth.create(init(undefined), {
      storage: new MemoryStorage(),
      openUrl: throughProvider(redirect),
    });
    await auth.login({
      loginProvider: 'portico',
      extraLoginOptions: {
        scope: 'email profile',
        id_token_hint: idTokenHint,
        audience: 'https://api.portico.test',
        connection: 'Username-Password-Authentication',
        domain: new URL(op.issuer).host,
        client_id: 'portico-login',
        redirect_uri: altCallback,
        login_hint: 'alice@example.com',
        verifierIdField: 'preferred_username',
        // Within the default maxLeeway: the id_token is checked with 45 s of clock tolerance.
        leeway: 45,
      },
    });
    const seen = op.authorizationRequests.slice(before);
    assert.equal(seen.length, 1);
    const params = seen[0];
    assert.equal(params.get('scope'), 'openid email profile', "openid added to the app's scope");
    assert.equal(params.get('id_token_hint'), idTokenHint);
    assert.equal(params.get('audience'), 'https://api.portico.test');
    assert.equal(params.get('connection'), 'Username-Password-Authentication');
    assert.equal(params.get('client_id'), 'portico-login');
    assert.equal(params.get('redirect_uri'), altCallback);
    assert.equal(params.get('login_hint'), 'alice@example.com');
    assert.equal(params.has('domain'), false, 'domain selects the tenant; it is not a request parameter');
    // The provider accepted the hint and answered at the other callback address; the verifier id came
    // from the claim the app chose.
    assert.equal(auth.getUserInfo().verifierId, 'alice');
    assert.notEqual(auth.state.coreKitKey, first.state.coreKitKey);
  });

  it("refuses a domain, client_id or redirect_uri that is not the verifier's, before leaving for the provider", async () => {
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ domain: 'evil.example' }, /domain "evil\.example" is not the provider of verifier "portico-oidc"/],
      [
        { client_id: 'someone-else' },
        /client_id "someone-else" is not the client of verifier "portico-oidc"/,
      ],
      [
        { redirect_uri: 'https://evil.example/callback' },
        /redirect_uri "https:\/\/evil\.example\/callback" is not a callback/,
      ],
      [{ verifierIdField: 'name' }, /verifierIdField "name" is not allowed by verifier "portico-oidc"/],
    ];
    for (const [extraLoginOptions, expected] of cases) {
      const before = op.authorizationRequests.length;
      const auth = await Auth.create(init(undefined), {
        storage: new MemoryStorage(),
        openUrl: async (url, redirectUrl) => {
          await page.goto(url);
          await page.waitForURL((u) => u.href.startsWith(redirectUrl));
          return page.url();
        },
      });
      await assert.rejects(auth.login({ loginProvider: 'portico', extraLoginOptions }), expected);
      assert.equal(op.authorizationRequests.length, before, 'nothing was sent to the provider');
    }
  });
});
