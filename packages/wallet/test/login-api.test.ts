import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { decodeB64Params } from '@portico/auth';
import { type AuthServer, startAuthServer } from '@portico/auth-server';
import { createMultichainClient, createWebSocketTransport } from '@portico/multichain';
import { tempDir } from '@portico/testkit';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { type AccountView, startWallet, type Wallet } from '../src/index.ts';
import { nextSessionChanged } from './helpers.ts';

const CLIENT_ID = 'BKvN1xgP3cvZIyA2xWTIyq6l5u1WgkVh-0y8y5Ohz-BNcTCV5G4vmS8mrx0uGO4L0CUyojLlJd_2nxLdG3wAaRw';

/** The approval API with the token of the wallet's approval URL. */
async function api(wallet: Wallet, method: 'GET' | 'POST', path: string, body?: unknown) {
  const [base, token] = wallet.approvalUrl.split('/approve#token=');
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** What the login page does for the development login, over HTTP: the URL the browser is sent to next. */
async function devLoginResult(sdkUrl: string, loginUrl: string, email: string): Promise<string> {
  const { loginId } = decodeB64Params<{ loginId: string }>(loginUrl) ?? { loginId: '' };
  const post = async (path: string, body: unknown) =>
    (await (
      await fetch(`${sdkUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    ).json()) as Record<string, string>;
  const { devState } = await post('/api/login/authorize', { loginId, provider: 'portico-dev' });
  return (await post('/api/dev-login', { state: devState, email })).url;
}

// The wallet's login without a browser: the real auth service's development login driven over
// HTTP as its page would, and the wallet's callback and approval API called directly.
describe('the wallet’s login API and callback', { timeout: 60_000 }, () => {
  const dir = tempDir('portico-wallet-login-api-');
  let authServer: AuthServer;
  let wallet: Wallet;

  before(async () => {
    const { publicKey } = await generateKeyPair('ES256');
    authServer = await startAuthServer({
      dataDir: dir.path,
      masterKey: 'c'.repeat(64),
      verifiers: {
        jwt: { type: 'jwt', keys: [{ ...(await exportJWK(publicKey)), kid: 'k', alg: 'ES256' }] },
      },
      devLogin: true,
    });
    wallet = await startWallet({ chains: [], auth: { sdkUrl: authServer.sdkUrl, clientId: CLIENT_ID } });
  });
  after(async () => {
    await wallet?.close();
    await authServer?.close();
    dir.cleanup();
  });

  test('a login result is taken only at its attempt’s own callback path, once', async () => {
    const started = await api(wallet, 'POST', '/api/login', {});
    const loginUrl = started.body.loginUrl as string;
    assert.ok(loginUrl.startsWith(`${authServer.sdkUrl}/start#b64Params=`));
    assert.equal(((await api(wallet, 'GET', '/api/account')).body as AccountView).login.pending, true);
    const result = await devLoginResult(authServer.sdkUrl, loginUrl, 'carol@example.com');
    const callback = new URL(result);
    assert.match(callback.pathname, /^\/login\/callback\/[0-9a-f]{32}$/);
    assert.match(callback.hash, /^#b64Params=/);

    const deliver = (path: string, href = result) =>
      fetch(new URL(path, callback), { method: 'POST', body: href }).then((r) => r.status);
    assert.equal(await deliver(`/login/callback/${'0'.repeat(32)}`), 404, 'another attempt’s path');
    assert.equal(await deliver(callback.pathname, result.replace(callback.pathname, '/elsewhere')), 404);
    const page = await fetch(new URL(callback.pathname, callback));
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-security-policy') ?? '', /script-src 'self'/);
    assert.equal(page.headers.get('referrer-policy'), 'no-referrer');

    assert.equal(await deliver(callback.pathname), 204);
    for (;;) {
      const view = (await api(wallet, 'GET', '/api/account')).body as AccountView;
      if (!view.login.pending) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal(wallet.user?.verifierId, 'carol@example.com');
    assert.equal(wallet.accounts.eip155.length, 1);
    assert.equal(await deliver(callback.pathname), 404, 'a result is taken once');

    const out = await api(wallet, 'POST', '/api/logout', {});
    assert.equal((out.body as AccountView).source, 'none');
    assert.deepEqual(wallet.accounts, { eip155: [], solana: [] });
  });

  test('cancel stops a login waiting on the login page; the wallet stays as it was', async () => {
    const started = await api(wallet, 'POST', '/api/login', {});
    assert.equal(typeof started.body.loginUrl, 'string');
    assert.deepEqual((await api(wallet, 'POST', '/api/login/cancel', {})).body, { cancelled: true });
    const view = (await api(wallet, 'GET', '/api/account')).body as AccountView;
    assert.deepEqual(view.login, { available: true, pending: false, error: null });
    assert.equal(view.source, 'none');
  });

  test('a JWT login the verifier refuses answers 400 with the reason and holds nothing', async () => {
    const refused = await api(wallet, 'POST', '/api/login', { loginProvider: 'jwt', idToken: 'not-a-jwt' });
    assert.equal(refused.status, 400);
    assert.deepEqual(refused.body, { error: { code: 'REQUEST_FAILED', message: 'Malformed token' } });
    assert.equal(wallet.accountSource, 'none');
  });

  test('a body over 64 KiB is 413 and changes nothing; the API keeps serving', async () => {
    const oversized = await api(wallet, 'POST', '/api/login', { loginProvider: 'x'.repeat(70_000) });
    assert.equal(oversized.status, 413);
    assert.deepEqual(oversized.body, { error: { code: 'BODY_TOO_LARGE', message: 'body too large' } });
    const view = (await api(wallet, 'GET', '/api/account')).body as AccountView;
    assert.equal(view.login.pending, false);
  });

  test('without an auth service the wallet holds the dev accounts, and /api/login is 404', async () => {
    const plain = await startWallet({ chains: [] });
    try {
      assert.equal(plain.accountSource, 'dev');
      assert.equal(plain.accounts.eip155[0], '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266');
      const view = (await api(plain, 'GET', '/api/account')).body as AccountView;
      assert.deepEqual(view.login, { available: false, pending: false, error: null });
      assert.equal(view.canFund, false);
      const login = await api(plain, 'POST', '/api/login', {});
      assert.equal(login.status, 404);
      const refusal = login.body.error as { code: string; message: string };
      assert.equal(refusal.code, 'LOGIN_OFF');
      assert.match(refusal.message, /no auth service is configured/);
      assert.equal(
        (await api(plain, 'POST', '/api/fund', { namespace: 'eip155', address: plain.accounts.eip155[0] }))
          .status,
        404,
      );
    } finally {
      await plain.close();
    }
  });
});

describe('the login session’s end locks the wallet', { timeout: 60_000 }, () => {
  const dir = tempDir('portico-wallet-expiry-');
  let authServer: AuthServer;
  let wallet: Wallet;
  let idToken: () => Promise<string>;

  before(async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    idToken = () =>
      new SignJWT({ sub: 'dora', jti: crypto.randomUUID() })
        .setProtectedHeader({ alg: 'ES256', kid: 'k' })
        .setIssuedAt()
        .sign(privateKey);
    authServer = await startAuthServer({
      dataDir: dir.path,
      masterKey: 'd'.repeat(64),
      verifiers: {
        jwt: { type: 'jwt', keys: [{ ...(await exportJWK(publicKey)), kid: 'k', alg: 'ES256' }] },
      },
      maxSessionTime: 2, // every session of this service lasts two seconds
    });
    wallet = await startWallet({
      chains: [{ chainId: 'eip155:31337', rpcUrl: 'http://127.0.0.1:9/unused' }],
      auth: { sdkUrl: authServer.sdkUrl, clientId: CLIENT_ID },
      autoApprove: true,
    });
  });
  after(async () => {
    await wallet?.close();
    await authServer?.close();
    dir.cleanup();
  });

  test('when the session expires the wallet holds nothing and the dapp hears wallet_sessionChanged', async () => {
    await wallet.login({ loginProvider: 'jwt', extraLoginOptions: { id_token: await idToken() } });
    const dapp = createMultichainClient({
      transport: createWebSocketTransport({ url: wallet.wsUrl, origin: 'https://expiry.test' }),
    });
    const heard = nextSessionChanged(dapp);
    const { sessionScopes } = await dapp.createSession({
      optionalScopes: { 'eip155:31337': { methods: [], notifications: [] } },
    });
    assert.deepEqual(sessionScopes['eip155:31337'].accounts, [`eip155:31337:${wallet.accounts.eip155[0]}`]);
    assert.deepEqual(await heard, {});
    assert.equal(wallet.accountSource, 'none');
    assert.equal(wallet.user, undefined);
    await dapp.close();
  });
});
