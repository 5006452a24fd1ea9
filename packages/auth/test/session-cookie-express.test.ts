// Cookie mode in a real Express 5 app, as an app team mounts it: the handler after `express.json()`
// (the body already parsed) and before any body parser (the handler reads the stream), `getUser`
// in a route, a method the handler does not answer passed on to Express's own 404.
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import express from 'express';
import { Auth, MemoryStorage } from '../src/index.ts';
import { createSessionCookieHandler } from '../src/server/index.ts';
import { CLIENT_ID, type JwtLoginService, pageOf, startJwtLoginService } from './jwt-login-service.ts';

describe('cookie mode in an Express app', { timeout: 120_000 }, () => {
  let auth: JwtLoginService;
  let server: Server;
  let appUrl = '';

  before(async () => {
    auth = await startJwtLoginService('e'.repeat(64));
    const session = createSessionCookieHandler({ authServiceUrl: auth.service.sdkUrl, clientId: CLIENT_ID });
    const app = express();
    // Before any body parser: the handler reads the request stream itself.
    app.use('/raw/session', session);
    app.use(express.json());
    // After express.json(): the handler takes the parsed req.body.
    app.use('/api/session', session);
    app.get('/me', async (req, res, next) => {
      try {
        const user = await session.getUser(req);
        res.json({ user: user && { verifier: user.verifier, verifierId: user.verifierId } });
      } catch (err) {
        next(err);
      }
    });
    server = await new Promise<Server>((ok) => {
      const listening = app.listen(0, '127.0.0.1', () => ok(listening));
    });
    appUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise<void>((ok) => {
      server?.closeAllConnections();
      server ? server.close(() => ok()) : ok();
    });
    await auth?.close();
  });

  /** A browser page of the app, and what the app's server says of its user. */
  function browser() {
    const page = pageOf(() => appUrl);
    const me = async () =>
      ((await (await page.pageFetch(`${appUrl}/me`)).json()) as { user: { verifierId: string } | null }).user;
    return { ...page, me };
  }

  for (const path of ['/api/session', '/raw/session']) {
    const mounted = path === '/api/session' ? 'after express.json()' : 'before any body parser';
    it(`mounted ${mounted}: login sets the cookie, a route reads the user, logout clears it`, async () => {
      const page = browser();
      const app = await Auth.create(
        { clientId: CLIENT_ID, network: 'sapphire_devnet', sdkUrl: auth.service.sdkUrl },
        {
          storage: new MemoryStorage(),
          fetch: page.pageFetch,
          sessionCookie: { endpoint: `${appUrl}${path}` },
        },
      );
      assert.equal(await page.me(), null, 'no session, no user');
      await app.login({
        loginProvider: 'jwt',
        extraLoginOptions: { id_token: await auth.token(`ed-${path}`) },
      });
      assert.equal(page.cookie()?.slice('portico_session='.length), app.getUserInfo().idToken);
      assert.equal((await page.me())?.verifierId, `ed-${path}`);
      await app.logout();
      assert.equal(page.cookie(), undefined);
      assert.equal(await page.me(), null);
    });
  }

  it('refusals keep their envelope through Express; a GET falls through to Express’s 404', async () => {
    const post = (headers: Record<string, string>, body: string) =>
      fetch(`${appUrl}/api/session`, { method: 'POST', headers: { origin: appUrl, ...headers }, body });
    const notJson = await post({ 'content-type': 'text/plain' }, '{"idToken":"x"}');
    assert.deepEqual(
      [notJson.status, ((await notJson.json()) as { error: { code: string } }).error.code],
      [415, 'UNSUPPORTED_MEDIA_TYPE'],
    );
    const bad = await post({ 'content-type': 'application/json' }, '{"idToken":"not.a.token"}');
    assert.deepEqual(
      [bad.status, ((await bad.json()) as { error: { code: string } }).error.code],
      [401, 'INVALID_TOKEN'],
    );
    const crossSite = await post(
      { 'content-type': 'application/json', origin: 'https://evil.example' },
      '{"idToken":"x"}',
    );
    assert.equal(crossSite.status, 403);
    assert.equal(crossSite.headers.get('set-cookie'), null);
    const get = await fetch(`${appUrl}/api/session`);
    assert.equal(get.status, 404, 'next() hands other methods to the app');
  });
});
