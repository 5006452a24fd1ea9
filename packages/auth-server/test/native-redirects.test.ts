import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import {
  Auth,
  type AuthInitParams,
  AuthValidationError,
  MemoryStorage,
  startLoopbackReceiver,
} from '@portico/auth/node';
import { type AuthServer, startAuthServer } from '@portico/auth-server';
import { launchChromium, tempDir } from '@portico/testkit';
import type { Browser, Page } from 'playwright-core';
import { redirectMatches, relayOriginRefusal } from '../src/redirects.ts';
import { CLIENT_ID, park, post } from './helpers.ts';

const OTHER_CLIENT =
  'BHr_dKcxC0ecKn_2dZQmQeNdjPgWykMkcodEHkVvPMo71qzOV6SgtoN8KCvFdLN7bf34JOm89vWQMLFmSfIo84A';

describe('redirect allow-list entries', () => {
  const cases: Array<[string, string, boolean]> = [
    ['com.example.app://auth', 'com.example.app://auth', true],
    ['com.example.app://auth#b64Params=x', 'com.example.app://auth', true],
    ['com.example.app://auth/callback', 'com.example.app://auth', true],
    ['com.example.app://authx', 'com.example.app://auth', false],
    ['com.evil.app://auth', 'com.example.app://auth', false],
    ['com.example.app:/oauth2redirect', 'com.example.app:/oauth2redirect', true],
    ['http://127.0.0.1:53124/cb', 'http://127.0.0.1/', true],
    ['http://127.0.0.1:53124/cb', 'http://127.0.0.1/cb', true],
    ['http://127.0.0.1:53124/other', 'http://127.0.0.1/cb', false],
    ['http://[::1]:8080/', 'http://[::1]', true],
    ['http://127.0.0.1:8080/', 'http://127.0.0.1:9090', false],
    ['https://app.example/login/done', 'https://app.example', true],
    ['https://app.example.evil/', 'https://app.example', false],
    ['https://app.example/authz', 'https://app.example/auth', false],
    ['http://app.example/', 'https://app.example', false],
  ];
  for (const [url, entry, expected] of cases) {
    it(`${url} ${expected ? 'matches' : 'does not match'} ${entry}`, () => {
      assert.equal(redirectMatches(url, entry), expected);
    });
  }
});

describe('popup results on the /done page go only to origins the clientId may redirect to', () => {
  const policy = {
    sdkUrl: 'https://auth.example',
    allowedRedirects: {
      [CLIENT_ID]: ['https://app.example/auth', 'http://127.0.0.1/cb', 'com.example.app://auth'],
    },
    allowedRedirectOrigins: ['https://other.example'],
  };
  const cases: Array<[string, string, boolean]> = [
    [CLIENT_ID, 'https://app.example', true], // a registered URL on that origin
    [CLIENT_ID, 'http://127.0.0.1:5173', true], // a loopback entry: any port
    [CLIENT_ID, 'https://evil.example', false],
    [CLIENT_ID, 'https://other.example', false], // the client's own list wins
    [CLIENT_ID, 'com.example.app://auth', false], // not a web origin: no window to post to
    [OTHER_CLIENT, 'https://other.example', true], // no list: the service's origins
    [OTHER_CLIENT, 'https://app.example', false],
  ];
  for (const [clientId, origin, allowed] of cases) {
    it(`${clientId === CLIENT_ID ? 'listed client' : 'other client'}: ${origin} ${allowed ? 'may' : 'may not'} receive`, () => {
      assert.equal(relayOriginRefusal(policy, clientId, origin) === undefined, allowed);
    });
  }
});

describe('native-app redirects: custom schemes and loopback, per clientId', { timeout: 120_000 }, () => {
  const dir = tempDir('portico-auth-native-');
  let server: AuthServer;
  let browser: Browser;
  let page: Page;

  before(async () => {
    server = await startAuthServer({
      dataDir: dir.path,
      masterKey: '4'.repeat(64),
      devLogin: true,
      allowedRedirects: { [CLIENT_ID]: ['com.example.app://auth', 'http://127.0.0.1/'] },
      allowedRedirectOrigins: ['https://web.example'],
    });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    dir.cleanup();
  });

  const init = (redirectUrl: string): AuthInitParams => ({
    clientId: CLIENT_ID,
    network: 'sapphire_mainnet',
    sdkUrl: server.sdkUrl,
    redirectUrl,
  });

  // Each login in a fresh tab, as a system browser opens one (the login page is one document:
  // a new #b64Params on the same tab would only change its fragment).
  beforeEach(async () => {
    await page?.close();
    page = await browser.newPage();
  });

  async function devLogin(email: string): Promise<void> {
    await page.waitForSelector('#dev-form:not([hidden]) #email');
    await page.fill('#email', email);
    await page.click('#dev-submit');
  }

  it('an iOS-style custom scheme gets the result: the browser hands com.example.app://auth#… to the app', async () => {
    const auth = await Auth.create(init('com.example.app://auth'), {
      storage: new MemoryStorage(),
      // Chromium plays ASWebAuthenticationSession: it cannot open the app, but it reports the
      // navigation to the app's scheme (with its fragment), which is what the OS hands the app.
      openUrl: async (url, redirectUrl) => {
        const cdp = await page.context().newCDPSession(page);
        await cdp.send('Page.enable');
        const handedOver = new Promise<string>((resolve) => {
          cdp.on('Page.frameRequestedNavigation', (e: { url: string }) => {
            if (e.url.startsWith(redirectUrl)) resolve(e.url);
          });
        });
        await page.goto(url);
        await devLogin('ios.user@example.com');
        const final = await handedOver;
        await cdp.detach();
        return final;
      },
    });
    const state = await auth.login({ loginProvider: 'google' });
    assert.equal(state.userInfo?.verifierId, 'ios.user@example.com');
    assert.match(auth.getPrivKey(), /^[0-9a-f]{64}$/);
  });

  it('a desktop app receives the result on a loopback port chosen at run time', async () => {
    const receiver = await startLoopbackReceiver();
    try {
      assert.match(receiver.redirectUrl, /^http:\/\/127\.0\.0\.1:\d+\/[0-9a-f]{32}$/);
      const auth = await Auth.create(init(receiver.redirectUrl), {
        storage: new MemoryStorage(),
        openUrl: async (url) => {
          const arrived = receiver.next();
          await page.goto(url);
          await devLogin('desktop.user@example.com');
          return arrived;
        },
      });
      const state = await auth.login({ loginProvider: 'google' });
      assert.equal(state.userInfo?.verifierId, 'desktop.user@example.com');
      await page.waitForSelector('text=You can close this window.');
    } finally {
      await receiver.close();
    }
  });

  it('refuses schemes and addresses the clientId has not registered', async () => {
    const refused = async (redirectUrl: string, clientId: string, status: number, message: RegExp) => {
      const loginId = await park(server.sdkUrl, { redirectUrl, clientId });
      const res = await post(server.sdkUrl, '/api/login/request', { loginId });
      assert.equal(res.status, status, redirectUrl);
      assert.match(res.error.message, message);
    };
    await refused(
      'com.evil.app://auth',
      CLIENT_ID,
      403,
      /com\.evil\.app:\/\/auth is not registered for this clientId/,
    );
    await refused('com.example.app://authority', CLIENT_ID, 403, /is not registered/);
    await refused('https://web.example/cb', CLIENT_ID, 403, /is not registered/);
    await refused('com.example.app://auth', OTHER_CLIENT, 403, /app scheme: register it for this clientId/);
    await refused(
      'http://127.0.0.1:4000/cb',
      OTHER_CLIENT,
      403,
      /origin http:\/\/127\.0\.0\.1:4000 is not allowed/,
    );
    await refused('javascript:alert(1)//', CLIENT_ID, 400, /cannot use the javascript: scheme/);
    const web = await park(server.sdkUrl, { redirectUrl: 'https://web.example/cb', clientId: OTHER_CLIENT });
    assert.equal((await post(server.sdkUrl, '/api/login/request', { loginId: web })).status, 200);
  });

  it('the library refuses a redirectUrl that could never reach an app, at init', async () => {
    for (const redirectUrl of ['javascript:alert(1)', 'data:text/html,x', 'file:///etc/passwd']) {
      await assert.rejects(
        Auth.create(init(redirectUrl), { storage: new MemoryStorage() }),
        (err: unknown) => err instanceof AuthValidationError && err.field === 'redirectUrl',
      );
    }
  });
});
