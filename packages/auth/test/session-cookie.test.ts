// Cookie mode against a real auth service and a real node:http app using @portico/auth/server:
// the library (in Node, its fetch acting as the browser: Origin header and a one-cookie jar)
// posts the idToken, the app's server reads the user back; refusals are plain HTTP calls.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { SignJWT } from 'jose';
import { Auth, AuthError, MemoryStorage } from '../src/index.ts';
import {
  AuthServiceUnreachableError,
  createSessionCookieHandler,
  type SessionCookieHandler,
} from '../src/server/index.ts';
import { CLIENT_ID, type JwtLoginService, pageOf, startJwtLoginService } from './jwt-login-service.ts';

const OTHER_APP = 'BOther_UiIZ-cPz1GtV5i1I2iOSOHuimiXBI0e-Oe_u6X3oVAbCiAZOTEBtTXw4tsluTITPqA8zMsfxIKMjiqNQ';
const ENDPOINT = '/api/portico-session';

describe('cookie mode: @portico/auth/server with the library', { timeout: 120_000 }, () => {
  let login: JwtLoginService;
  let service: JwtLoginService['service'];
  let signingKey: CryptoKey;
  let app: Server;
  let appUrl = '';
  let session: SessionCookieHandler;
  // The library's fetch, as a browser page of appUrl would send it, and the cookie it holds.
  const page = pageOf(() => appUrl);
  const browserFetch = page.pageFetch;
  const setCookies = page.setCookies;
  const jwt = (sub: string) => login.token(sub);

  const serverUser = async () => {
    const cookie = page.cookie();
    return (await (await fetch(`${appUrl}/me`, { headers: cookie ? { cookie } : {} })).json()) as {
      user: { verifier: string; verifierId: string } | null;
    };
  };

  before(async () => {
    login = await startJwtLoginService('d'.repeat(64));
    service = login.service;
    signingKey = login.signingKey;
    session = createSessionCookieHandler({ authServiceUrl: service.sdkUrl, clientId: CLIENT_ID });
    app = createServer((req, res) => {
      if (req.url === ENDPOINT) return session(req, res);
      if (req.url === '/me') {
        session.getUser(req).then((user) => {
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ user }));
        });
        return;
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((ok) => app.listen(0, '127.0.0.1', () => ok()));
    appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise<void>((ok) => {
      app?.closeAllConnections();
      app ? app.close(() => ok()) : ok();
    });
    await login?.close();
  });

  const create = (clientId = CLIENT_ID, onWarning?: (message: string) => void) =>
    Auth.create(
      { clientId, network: 'sapphire_devnet', sdkUrl: service.sdkUrl },
      {
        storage: new MemoryStorage(),
        fetch: browserFetch,
        sessionCookie: { endpoint: `${appUrl}${ENDPOINT}` },
        onWarning,
      },
    );

  it('login sets an HttpOnly SameSite=Lax cookie the server reads; renewal replaces it; logout clears it', async () => {
    const auth = await create();
    assert.equal(setCookies.length, 0, 'no session, no cookie request');
    await auth.login({ loginProvider: 'jwt', extraLoginOptions: { id_token: await jwt('rita') } });
    const first = setCookies.at(-1)!;
    assert.match(
      first,
      /^portico_session=ey[\w-]+\.[\w-]+\.[\w-]+; Max-Age=\d+; Path=\/; HttpOnly; SameSite=Lax$/,
    );
    assert.equal(
      page.cookie()?.slice('portico_session='.length),
      auth.getUserInfo().idToken,
      'the cookie is the idToken',
    );
    const maxAge = Number(/Max-Age=(\d+)/.exec(first)![1]);
    assert.ok(maxAge > 3600 && maxAge <= 86_400, `Max-Age follows the token's expiry (${maxAge})`);
    assert.deepEqual(
      { verifier: (await serverUser()).user?.verifier, verifierId: (await serverUser()).user?.verifierId },
      { verifier: 'jwt', verifierId: 'rita' },
    );

    const before = page.cookie();
    await auth.refreshSession();
    assert.notEqual(page.cookie(), before, 'a renewal sets the new idToken');
    assert.equal(page.cookie()?.slice('portico_session='.length), auth.getUserInfo().idToken);
    assert.equal((await serverUser()).user?.verifierId, 'rita');

    await auth.logout();
    assert.match(setCookies.at(-1)!, /^portico_session=; Max-Age=0; Path=\/; HttpOnly; SameSite=Lax$/);
    assert.equal(page.cookie(), undefined);
    assert.equal((await serverUser()).user, null);
  });

  const post = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${appUrl}${ENDPOINT}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: appUrl, ...headers },
      body: JSON.stringify(body),
    });
  const code = async (res: Response) => ((await res.json()) as { error: { code: string } }).error.code;

  it('refuses a forged, an expired and another app’s token, and cross-site posts', async () => {
    const auth = await create();
    await auth.login({ loginProvider: 'jwt', extraLoginOptions: { id_token: await jwt('sam') } });
    const good = auth.getUserInfo().idToken ?? '';
    assert.equal((await post({ idToken: good })).status, 204, 'the same token from the app’s page is taken');

    // Same claims and kid, signed with a key the auth service never had.
    const claims = JSON.parse(Buffer.from(good.split('.')[1]!, 'base64url').toString()) as Record<
      string,
      unknown
    >;
    const header = JSON.parse(Buffer.from(good.split('.')[0]!, 'base64url').toString()) as { kid: string };
    const forged = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'ES256', kid: header.kid })
      .sign(signingKey);
    const forgedRes = await post({ idToken: forged });
    assert.equal(forgedRes.status, 401);
    assert.equal(await code(forgedRes), 'INVALID_TOKEN');
    assert.equal(forgedRes.headers.get('set-cookie'), null);
    assert.equal(await session.getUser(`portico_session=${forged}`), null);

    const warnings: string[] = [];
    const other = await create(OTHER_APP, (message) => warnings.push(message));
    await other.login({ loginProvider: 'jwt', extraLoginOptions: { id_token: await jwt('sam') } });
    assert.equal(
      (await post({ idToken: other.getUserInfo().idToken })).status,
      401,
      'another app’s audience',
    );
    assert.deepEqual(warnings, [
      '[portico/auth] the session cookie could not be set: 401 {"error":{"code":"INVALID_TOKEN","message":"The idToken is not a valid, unexpired token of this app"}}',
    ]);

    const later = createSessionCookieHandler({
      authServiceUrl: service.sdkUrl,
      clientId: CLIENT_ID,
      now: () => Number(claims.exp) * 1000 + 1000,
    });
    assert.equal(await later.getUser(`portico_session=${good}`), null, 'expired');
    const expiredRes = await later.fetch(
      new Request(`${appUrl}${ENDPOINT}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: appUrl },
        body: JSON.stringify({ idToken: good }),
      }),
    );
    assert.equal(expiredRes.status, 401);

    const crossSite: Record<string, string>[] = [
      { origin: 'https://evil.example' },
      { origin: 'null' },
      { 'sec-fetch-site': 'cross-site' },
    ];
    for (const headers of crossSite) {
      const res = await post({ idToken: good }, headers);
      assert.equal(res.status, 403, JSON.stringify(headers));
      assert.equal(await code(res), 'ORIGIN_REFUSED');
      assert.equal(res.headers.get('set-cookie'), null);
    }
    const noOrigin = await fetch(`${appUrl}${ENDPOINT}`, { method: 'DELETE' });
    assert.equal(noOrigin.status, 403, 'no Origin: not a page of the app');
    const get = await fetch(`${appUrl}${ENDPOINT}`);
    assert.deepEqual([get.status, get.headers.get('allow')], [405, 'POST, DELETE']);
    const form = await post({ idToken: good }, { 'content-type': 'text/plain' });
    assert.equal(form.status, 415, 'a form post cannot carry JSON');
    assert.equal(await code(form), 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('Secure outside localhost; the Web Request handler sets the same cookie', async () => {
    const auth = await create();
    await auth.login({ loginProvider: 'jwt', extraLoginOptions: { id_token: await jwt('tom') } });
    const idToken = auth.getUserInfo().idToken;
    const hosted = createSessionCookieHandler({
      authServiceUrl: service.sdkUrl,
      clientId: CLIENT_ID,
      allowedOrigins: ['https://app.example'],
    });
    const request = (origin: string) =>
      new Request('https://app.example/api/portico-session', {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin },
        body: JSON.stringify({ idToken }),
      });
    const res = await hosted.fetch(request('https://app.example'));
    assert.equal(res.status, 204);
    assert.match(res.headers.get('set-cookie') ?? '', /; HttpOnly; Secure; SameSite=Lax$/);
    assert.equal((await hosted.fetch(request(appUrl))).status, 403, 'not on the allow-list');
    const user = await hosted.getUser(
      new Request('https://app.example/', { headers: { cookie: `a=b; portico_session=${idToken}` } }),
    );
    assert.equal(user?.verifierId, 'tom');
    const fromHeaders = await hosted.getUser(new Headers({ cookie: `portico_session=${idToken}` }));
    assert.equal(fromHeaders?.verifierId, 'tom', 'Headers, as Next.js headers() gives them');
    assert.ok(user.wallets.length === 2 && user.expiresAt > Date.now());
    // The service unreachable: an error of its own, not a signed-out user.
    const cut = createSessionCookieHandler({ authServiceUrl: 'http://127.0.0.1:9', clientId: CLIENT_ID });
    await assert.rejects(cut.getUser(`portico_session=${idToken}`), (err: unknown) => {
      assert.ok(err instanceof AuthServiceUnreachableError && err instanceof AuthError, String(err));
      assert.equal(err.name, 'AuthServiceUnreachableError');
      assert.equal(err.code, 'AUTH_SERVICE_UNREACHABLE');
      return true;
    });
    const unreachable = await cut.fetch(request(appUrl));
    assert.equal(unreachable.status, 403, 'the origin is checked before anything else');
    const sameHost = await cut.fetch(
      new Request(`${appUrl}/api/portico-session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: appUrl },
        body: JSON.stringify({ idToken }),
      }),
    );
    assert.equal(sameHost.status, 503);
    assert.equal(await code(sameHost), 'AUTH_SERVICE_UNREACHABLE');
    assert.throws(() => createSessionCookieHandler({ authServiceUrl: 'auth.example', clientId: CLIENT_ID }), {
      name: 'AuthValidationError',
      code: 'INVALID_PARAMS',
      field: 'authServiceUrl',
    });
    assert.throws(
      () =>
        createSessionCookieHandler({
          authServiceUrl: service.sdkUrl,
          clientId: CLIENT_ID,
          cookieName: 'a b',
        }),
      { name: 'AuthValidationError', code: 'INVALID_PARAMS', field: 'cookieName' },
    );
  });
});
