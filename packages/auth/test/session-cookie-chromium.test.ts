// Cookie mode in Chromium: an app page bundles the library with `sessionCookie`, its node:http
// server uses @portico/auth/server. After a login the page's scripts cannot read the cookie, and
// the server-rendered HTML names the user after a reload; after logout it does not.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { type AuthServer, startAuthServer } from '@portico/auth-server';
import { launchChromium, tempDir } from '@portico/testkit';
import { build } from 'esbuild';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import type { Browser, Page } from 'playwright-core';
import { createSessionCookieHandler } from '../src/server/index.ts';

const CLIENT_ID = 'BPi5PB_UiIZ-cPz1GtV5i1I2iOSOHuimiXBI0e-Oe_u6X3oVAbCiAZOTEBtTXw4tsluTITPqA8zMsfxIKMjiqNQ';

const APP_JS = `
window.ready = (async () => {
  const cfg = JSON.parse(document.getElementById('cfg').textContent);
  window.auth = await PorticoAuth.Auth.create(
    { clientId: cfg.clientId, network: 'sapphire_devnet', sdkUrl: cfg.sdkUrl },
    { sessionCookie: { endpoint: '/api/portico-session' } },
  );
})();
`;

const html = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

describe('cookie mode in Chromium', { timeout: 120_000 }, () => {
  const dir = tempDir('portico-auth-cookie-browser-');
  let service: AuthServer;
  let signingKey: CryptoKey;
  let app: Server;
  let appUrl = '';
  let browser: Browser;

  before(async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    signingKey = privateKey as CryptoKey;
    const jwk: JWK = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256' };
    service = await startAuthServer({
      dataDir: dir.path,
      masterKey: 'f'.repeat(64),
      verifiers: { jwt: { type: 'jwt', keys: [jwk] } },
    });
    const bundle = (
      await build({
        entryPoints: [new URL('../src/index.ts', import.meta.url).pathname],
        bundle: true,
        format: 'iife',
        globalName: 'PorticoAuth',
        platform: 'browser',
        target: 'es2022',
        write: false,
        logLevel: 'silent',
      })
    ).outputFiles[0]!.text;
    const session = createSessionCookieHandler({ authServiceUrl: service.sdkUrl, clientId: CLIENT_ID });
    app = createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (path === '/api/portico-session') return session(req, res);
      if (path === '/bundle.js' || path === '/app.js') {
        res.writeHead(200, { 'content-type': 'text/javascript' });
        return res.end(path === '/bundle.js' ? bundle : APP_JS);
      }
      if (path !== '/') return res.writeHead(404).end();
      // The server-rendered part: who the cookie says the user is.
      session.getUser(req).then((user) => {
        res.writeHead(200, { 'content-type': 'text/html', 'cache-control': 'no-store' });
        res.end(
          `<!doctype html><title>app</title><p id="ssr">${user ? `Signed in as ${html(user.verifierId)}` : 'Signed out'}</p>` +
            `<script type="application/json" id="cfg">${JSON.stringify({ clientId: CLIENT_ID, sdkUrl: service.sdkUrl })}</script>` +
            '<script src="/bundle.js"></script><script src="/app.js"></script>',
        );
      });
    });
    await new Promise<void>((ok) => app.listen(0, 'localhost', () => ok()));
    appUrl = `http://localhost:${(app.address() as AddressInfo).port}`;
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await new Promise<void>((ok) => {
      app?.closeAllConnections();
      app ? app.close(() => ok()) : ok();
    });
    await service?.close();
    dir.cleanup();
  });

  const ready = (page: Page) => page.evaluate(() => (window as unknown as { ready: Promise<void> }).ready);
  /** The HTML the server sent for the page (not what scripts made of it). */
  const rendered = async (page: Page) => {
    const res = await page.reload();
    await ready(page);
    return /<p id="ssr">([^<]*)<\/p>/.exec((await res?.text()) ?? '')?.[1];
  };

  it('the cookie is HttpOnly (document.cookie cannot read it) and the server renders the user after a reload', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(appUrl);
    await ready(page);
    assert.equal(await rendered(page), 'Signed out');

    const idToken = await new SignJWT({ sub: 'uma', jti: crypto.randomUUID() })
      .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
      .setIssuedAt()
      .sign(signingKey);
    await page.evaluate(
      (token) =>
        (window as unknown as { auth: { login(p: unknown): Promise<unknown> } }).auth.login({
          loginProvider: 'jwt',
          extraLoginOptions: { id_token: token },
        }),
      idToken,
    );
    const [cookie] = await context.cookies(appUrl);
    assert.equal(cookie?.name, 'portico_session');
    assert.deepEqual(
      { httpOnly: cookie.httpOnly, sameSite: cookie.sameSite, path: cookie.path, secure: cookie.secure },
      { httpOnly: true, sameSite: 'Lax', path: '/', secure: false },
      'HttpOnly, SameSite=Lax; Secure is left off on http://localhost only',
    );
    assert.ok(cookie.expires > Date.now() / 1000, 'a persistent cookie that ends with the idToken');
    assert.equal(await page.evaluate(() => document.cookie), '', 'scripts cannot read it');

    assert.equal(await rendered(page), 'Signed in as uma');

    await page.evaluate(() => (window as unknown as { auth: { logout(): Promise<void> } }).auth.logout());
    assert.deepEqual(await context.cookies(appUrl), []);
    assert.equal(await rendered(page), 'Signed out');
    await context.close();
  });
});
