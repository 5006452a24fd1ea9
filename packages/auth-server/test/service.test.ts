import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import { Auth, type AuthInitParams, decodeB64Params, MemoryStorage } from '@portico/auth';
import { encryptJsonTo, randomPrivKey, signStoreMessage, storeKeyOf } from '@portico/auth/protocol';
import { type AuthServer, Envelope, startAuthServer } from '@portico/auth-server';
import { tempDir } from '@portico/testkit';
import Provider from 'oidc-provider';
import { CLIENT_ID, type JwksIssuer, park, post, startJwksIssuer } from './helpers.ts';

describe('session store API', () => {
  const dir = tempDir('portico-auth-store-');
  let server: AuthServer;
  let clock = Date.now();
  before(async () => {
    server = await startAuthServer({ dataDir: dir.path, masterKey: 'd'.repeat(64), clock: () => clock });
  });
  after(async () => {
    await server?.close();
    dir.cleanup();
  });

  it('accepts a write signed by the key holder once, refuses forged, repeated and over-long writes', async () => {
    const priv = randomPrivKey();
    const key = storeKeyOf(priv);
    const data = encryptJsonTo(key, { hello: 'world' });
    const signature = signStoreMessage(priv, data);
    const forged = signStoreMessage(randomPrivKey(), data);
    assert.equal(
      (await post(server.sdkUrl, '/api/session', { key, data, signature: forged, timeout: 60 })).status,
      401,
    );
    assert.equal(
      (await post(server.sdkUrl, '/api/session', { key, data, signature, timeout: 601 })).status,
      400,
    );
    assert.equal(
      (await post(server.sdkUrl, '/api/session', { key: 'abc', data, signature, timeout: 60 })).status,
      400,
    );
    assert.equal(
      (await post(server.sdkUrl, '/api/session', { key, data, signature, timeout: 60 })).status,
      201,
    );
    assert.equal(
      (await post(server.sdkUrl, '/api/session', { key, data, signature, timeout: 60 })).status,
      409,
    );
    const got = await post(server.sdkUrl, '/api/session/get', { key });
    assert.equal(got.body.data, data);
  });

  it('invalidates only with the key holder’s signature', async () => {
    const priv = randomPrivKey();
    const key = storeKeyOf(priv);
    const data = encryptJsonTo(key, {});
    await post(server.sdkUrl, '/api/session', {
      key,
      data,
      signature: signStoreMessage(priv, data),
      timeout: 60,
    });
    const wrong = signStoreMessage(randomPrivKey(), `invalidate:${key}`);
    assert.equal(
      (await post(server.sdkUrl, '/api/session/invalidate', { key, signature: wrong })).status,
      401,
    );
    const right = signStoreMessage(priv, `invalidate:${key}`);
    assert.equal(
      (await post(server.sdkUrl, '/api/session/invalidate', { key, signature: right })).status,
      200,
    );
    assert.equal((await post(server.sdkUrl, '/api/session/get', { key })).status, 404);
  });

  it('treats a stored session it cannot decrypt as no session', async () => {
    const sessionId = randomPrivKey();
    const key = storeKeyOf(sessionId);
    const data = encryptJsonTo(storeKeyOf(randomPrivKey()), { privKey: 'not yours' });
    const put = await post(server.sdkUrl, '/api/session', {
      key,
      data,
      signature: signStoreMessage(sessionId, data),
      timeout: 60,
    });
    assert.equal(put.status, 201);
    const storage = new MemoryStorage();
    await storage.set(`portico-auth:${CLIENT_ID}`, sessionId);
    const auth = await Auth.create(
      { clientId: CLIENT_ID, network: 'sapphire_devnet', sdkUrl: server.sdkUrl },
      { storage },
    );
    assert.deepEqual(auth.state, {});
    assert.equal(await storage.get(`portico-auth:${CLIENT_ID}`), null);
  });

  it('refuses a parked request without a usable redirectUrl', async () => {
    const loginId = await park(server.sdkUrl, { redirectUrl: 42 });
    const res = await post(server.sdkUrl, '/api/login/request', { loginId });
    assert.equal(res.status, 400);
    assert.match(res.error.message, /redirectUrl/);
  });

  it('forgets a parked login request after 10 minutes', async () => {
    const loginId = await park(server.sdkUrl, {});
    assert.equal((await post(server.sdkUrl, '/api/login/request', { loginId })).status, 200);
    clock += 601_000;
    const res = await post(server.sdkUrl, '/api/login/request', { loginId });
    assert.equal(res.status, 404);
    assert.match(res.error.message, /expired/);
  });

  it('gives the login page the white label with defaults filled in, never the service as the app', async () => {
    const loginId = await park(server.sdkUrl, { whiteLabel: { appName: 'X', mode: 'dark' } });
    const res = await post(server.sdkUrl, '/api/login/request', { loginId });
    assert.deepEqual(res.body.whiteLabel, {
      appName: 'X',
      defaultLanguage: 'en',
      mode: 'dark',
      primary: '#0364FF',
      useLogoLoader: false,
    });
  });

  it("names the app after the page the library ran on, else the redirectUrl's origin", async () => {
    const view = async (options: Record<string, unknown>, origin?: string) => {
      const loginId = await park(server.sdkUrl, options, {}, origin);
      const res = await post(server.sdkUrl, '/api/login/request', { loginId });
      return res.body.whiteLabel as unknown as { appName?: string; appUrl?: string };
    };
    const fromPage = await view({ redirectUrl: 'https://return.example/cb' }, 'https://dapp.example');
    assert.equal(fromPage.appName, 'https://dapp.example');
    assert.equal(fromPage.appUrl, 'https://dapp.example');
    const fromRedirect = await view({ redirectUrl: 'https://return.example/cb' });
    assert.equal(fromRedirect.appUrl, 'https://return.example');
    const neither = await view({}, server.sdkUrl);
    assert.equal(neither.appName, undefined);
    assert.equal(neither.appUrl, undefined);
  });

  it('refuses a login request carrying invalid parameters', async () => {
    const loginId = await park(server.sdkUrl, { whiteLabel: { mode: 'dim' } });
    const res = await post(server.sdkUrl, '/api/login/request', { loginId });
    assert.equal(res.status, 400);
    assert.match(res.error.message, /whiteLabel\.mode/);
  });
});

describe('redirect origins, aggregate verifiers and master keys', () => {
  const dir = tempDir('portico-auth-rules-');
  let issuer: JwksIssuer;
  let server: AuthServer;
  const verifiers = () => ({
    'jwt-a': { type: 'jwt' as const, keys: [issuer.publicJwk] },
    'jwt-b': { type: 'jwt' as const, keys: [issuer.publicJwk] },
    web: { type: 'aggregate' as const, subVerifiers: ['jwt-a', 'jwt-b'] },
  });
  before(async () => {
    issuer = await startJwksIssuer();
    server = await startAuthServer({
      dataDir: dir.path,
      masterKey: 'e'.repeat(64),
      verifiers: verifiers(),
      allowedRedirectOrigins: ['https://good.example'],
    });
  });
  after(async () => {
    await server?.close();
    await issuer?.close();
    dir.cleanup();
  });

  const init = (base: string): AuthInitParams => ({
    clientId: CLIENT_ID,
    network: 'sapphire_mainnet',
    sdkUrl: base,
    loginConfig: {
      a: { verifier: 'web', verifierSubIdentifier: 'jwt-a', typeOfLogin: 'jwt', clientId: 'x' },
      b: { verifier: 'web', verifierSubIdentifier: 'jwt-b', typeOfLogin: 'jwt', clientId: 'x' },
      stray: { verifier: 'web', verifierSubIdentifier: 'jwt-c', typeOfLogin: 'jwt', clientId: 'x' },
      notAggregate: { verifier: 'jwt-a', verifierSubIdentifier: 'jwt-b', typeOfLogin: 'jwt', clientId: 'x' },
    },
  });

  async function login(base: string, provider: string, sub: string) {
    const auth = await Auth.create(init(base), { storage: new MemoryStorage() });
    await auth.login({
      loginProvider: provider,
      extraLoginOptions: { id_token: await issuer.sign({ sub }) },
    });
    return auth;
  }

  it('sends login results only to allowed redirect origins', async () => {
    const evil = await park(server.sdkUrl, { redirectUrl: 'https://evil.example/cb' });
    const res = await post(server.sdkUrl, '/api/login/request', { loginId: evil });
    assert.equal(res.status, 403);
    assert.match(res.error.message, /evil\.example is not allowed/);
    const good = await park(server.sdkUrl, { redirectUrl: 'https://good.example/cb' });
    assert.equal((await post(server.sdkUrl, '/api/login/request', { loginId: good })).status, 200);
  });

  it('hands popup results on its /done page only to app origins a redirect could go to, with the login’s state', async () => {
    const evil = await park(server.sdkUrl, {}, {}, 'https://evil.example');
    const refused = await post(server.sdkUrl, '/api/login/request', { loginId: evil });
    assert.equal(refused.status, 403);
    assert.match(refused.error.message, /origin https:\/\/evil\.example is not allowed/);

    const state = 'c'.repeat(32);
    const good = await park(
      server.sdkUrl,
      { loginConfig: { mine: { verifier: 'jwt-a', typeOfLogin: 'jwt', clientId: 'x' } } },
      { loginProvider: 'mine', extraLoginOptions: { id_token: await issuer.sign({ sub: 'popup-user' }) } },
      'https://good.example',
      { state, popup: true },
    );
    const done = await post(server.sdkUrl, '/api/login/authorize', { loginId: good });
    assert.equal(done.status, 200);
    const url = new URL(done.body.url);
    assert.equal(`${url.origin}${url.pathname}`, `${server.sdkUrl}/done`);
    const fragment = new URLSearchParams(url.hash.slice(1));
    assert.equal(fragment.get('origin'), 'https://good.example');
    const result = decodeB64Params<Record<string, unknown>>(url.href);
    assert.equal(result?.state, state);
    assert.equal(result?.popup, true);
    assert.match(String(result?.sessionId), /^[0-9a-f]{64}$/);
  });

  it('gives one key per user across the sub-verifiers of an aggregate', async () => {
    const a = await login(server.sdkUrl, 'a', 'kim');
    const b = await login(server.sdkUrl, 'b', 'kim');
    assert.equal(a.state.coreKitKey, b.state.coreKitKey);
    assert.equal(a.getUserInfo().verifier, 'web');
    assert.equal(a.getUserInfo().aggregateVerifier, 'jwt-a');
    assert.equal(b.getUserInfo().aggregateVerifier, 'jwt-b');
  });

  it('refuses sub-verifiers the aggregate does not list, and aggregates that are not configured as such', async () => {
    await assert.rejects(
      login(server.sdkUrl, 'stray', 'kim'),
      /not an aggregate verifier with sub-verifier "jwt-c"/,
    );
    await assert.rejects(login(server.sdkUrl, 'notAggregate', 'kim'), /"jwt-a" is not an aggregate/);
  });

  it('keeps keys across a service restart with the same master key, and cannot open them with another', async () => {
    const before = await login(server.sdkUrl, 'a', 'lee');
    await server.close();
    server = await startAuthServer({ dataDir: dir.path, masterKey: 'e'.repeat(64), verifiers: verifiers() });
    const after = await login(server.sdkUrl, 'a', 'lee');
    assert.equal(after.state.coreKitKey, before.state.coreKitKey);
    await server.close();
    await assert.rejects(
      startAuthServer({ dataDir: dir.path, masterKey: 'f'.repeat(64), verifiers: verifiers() }),
    );
    server = await startAuthServer({ dataDir: dir.path, masterKey: 'e'.repeat(64), verifiers: verifiers() });
  });

  it('binds each sealed record to its id', () => {
    const envelope = new Envelope(new Uint8Array(32).fill(7));
    const sealed = envelope.seal('row-1', utf8ToBytes('secret'));
    assert.equal(new TextDecoder().decode(envelope.open('row-1', sealed)), 'secret');
    assert.throws(() => envelope.open('row-2', sealed));
    assert.throws(() => new Envelope(new Uint8Array(32).fill(8)).open('row-1', sealed));
  });
});

describe('development login cannot complete other verifiers’ logins', () => {
  const dir = tempDir('portico-auth-devguard-');
  let op: Server;
  let server: AuthServer;
  before(async () => {
    op = createServer();
    await new Promise<void>((ok) => op.listen(0, '127.0.0.1', () => ok()));
    const issuer = `http://127.0.0.1:${(op.address() as AddressInfo).port}`;
    const provider = new Provider(issuer, {
      clients: [{ client_id: 'c', client_secret: 's', redirect_uris: ['http://127.0.0.1/callback'] }],
      cookies: { keys: ['k'] },
    });
    op.on('request', provider.callback());
    server = await startAuthServer({
      dataDir: dir.path,
      masterKey: '1'.repeat(64),
      verifiers: { dev: { type: 'dev' }, oidc: { type: 'oidc', issuer, clientId: 'c', clientSecret: 's' } },
    });
  });
  after(async () => {
    await server?.close();
    op.closeAllConnections();
    await new Promise<void>((ok) => op.close(() => ok()));
    dir.cleanup();
  });

  it('refuses a dev-login submission carrying an OIDC flow’s state', async () => {
    const loginId = await park(server.sdkUrl, {});
    const auth = await post(server.sdkUrl, '/api/login/authorize', { loginId, provider: 'oidc' });
    assert.equal(auth.status, 200);
    const url = new URL(auth.body.url);
    assert.equal(url.searchParams.get('code_challenge_method'), 'S256');
    const state = url.searchParams.get('state');
    const res = await post(server.sdkUrl, '/api/dev-login', { state, email: 'victim@example.com' });
    assert.equal(res.status, 403);
    // The configured dev verifier itself still works.
    const devStart = await post(server.sdkUrl, '/api/login/authorize', { loginId, provider: 'dev' });
    const done = await post(server.sdkUrl, '/api/dev-login', {
      state: devStart.body.devState,
      email: 'me@example.com',
    });
    assert.equal(done.status, 200);
    assert.match(done.body.url, /\/done#b64Params=/);
  });

  it('refuses providers without a verifier when the development login is off', async () => {
    const loginId = await park(server.sdkUrl, {});
    const res = await post(server.sdkUrl, '/api/login/authorize', { loginId, provider: 'google' });
    assert.equal(res.status, 400);
    assert.match(res.error.message, /"google" is not configured/);
  });
});
