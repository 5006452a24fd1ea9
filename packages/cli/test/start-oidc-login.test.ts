// An OIDC login through a real OpenID provider (oidc-provider) in Chromium, against the auth
// service `portico start` runs in production; and a login whose redirect is off the allow-list,
// refused.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { Auth, type AuthInitParams, MemoryStorage } from '@portico/auth/node';
import { freePort, launchChromium, tempDir } from '@portico/testkit';
import Provider from 'oidc-provider';
import { type RunningStart, startInBackground, writeConfig } from './start-process.ts';

const CLIENT_ID = 'BPi5PB_UiIZ-cPz1GtV5i1I2iOSOHuimiXBI0e-Oe_u6X3oVAbCiAZOTEBtTXw4tsluTITPqA8zMsfxIKMjiqNQ';
const OP_SECRET = 'portico-login-secret-for-tests-only';

/** A real OpenID provider with its development login and consent screens. */
async function startOpenIdProvider(redirectUri: string) {
  const http: Server = createServer();
  await new Promise<void>((ok) => http.listen(0, '127.0.0.1', () => ok()));
  const issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: 'portico-login',
        client_secret: OP_SECRET,
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    pkce: { required: () => true },
    cookies: { keys: ['test-cookie-key'] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    findAccount: async (_ctx, id) => ({
      accountId: id,
      claims: async () => ({ sub: id, email: id, email_verified: true }),
    }),
  });
  http.on('request', provider.callback());
  return {
    issuer,
    close: () =>
      new Promise<void>((ok) => {
        http.closeAllConnections();
        http.close(() => ok());
      }),
  };
}

const GATEWAY_ADMIN = 'start-oidc-gateway-admin-0123456789abcdef';
const AUTH_ADMIN = 'start-oidc-auth-admin-0123456789abcdef';

describe('OIDC login in Chromium against portico start’s auth service', { timeout: 240_000 }, () => {
  const dir = tempDir();
  let op: Awaited<ReturnType<typeof startOpenIdProvider>>;
  let running: RunningStart;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let sdkUrl: string;
  let dashboardUrl: string;

  before(async () => {
    const authPort = await freePort();
    sdkUrl = `http://127.0.0.1:${authPort}`;
    op = await startOpenIdProvider(`${sdkUrl}/callback`);
    const path = writeConfig(dir.path, {
      port: 0,
      dataDir: dir.path,
      logLevel: 'warn',
      metrics: { enabled: false },
      adminToken: GATEWAY_ADMIN,
      dashboard: { enabled: true },
      networks: [{ name: 'local', chainId: 'eip155:31337', upstreams: ['http://127.0.0.1:9'] }],
      auth: {
        port: authPort,
        adminToken: AUTH_ADMIN,
        masterKey: 'd'.repeat(64),
        verifiers: {
          'portico-oidc': {
            type: 'oidc',
            issuer: op.issuer,
            clientId: 'portico-login',
            clientSecret: OP_SECRET,
            verifierIdField: 'email',
            name: 'Portico ID',
          },
        },
        allowedRedirectOrigins: ['https://app.example'],
      },
    });
    running = startInBackground(['--config', path]);
    dashboardUrl = (await running.waitFor(/Dashboard\s+(\S+)/))[1];
    await running.waitFor(/Auth service\s+\S+/);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await running?.stop();
    await op?.close();
    dir.cleanup();
  });

  const init = (extra: Partial<AuthInitParams> = {}): AuthInitParams => ({
    clientId: CLIENT_ID,
    network: 'sapphire_devnet',
    sdkUrl,
    loginConfig: {
      portico: {
        verifier: 'portico-oidc',
        typeOfLogin: 'google',
        clientId: 'portico-login',
        name: 'Portico ID',
      },
    },
    ...extra,
  });

  test('a person logs in through the OpenID provider and the app gets the user’s keys', async () => {
    const page = await browser.newPage();
    const auth = await Auth.create(init(), {
      storage: new MemoryStorage(),
      openUrl: async (url, redirectUrl) => {
        await page.goto(url);
        await page.waitForSelector('#providers button');
        // Only the configured provider: no development login form in production.
        assert.equal(await page.isHidden('#dev-form'), true);
        await page.click('button[data-provider="portico"]');
        await page.waitForSelector('input[name="login"]');
        await page.fill('input[name="login"]', 'erin@example.com');
        await page.fill('input[name="password"]', 'any password');
        await page.click('button[type="submit"]');
        await page.waitForSelector('button[type="submit"]:has-text("Continue")');
        await page.click('button[type="submit"]:has-text("Continue")');
        await page.waitForURL((u) => u.href.startsWith(redirectUrl));
        return page.url();
      },
    });
    const state = await auth.login({});
    assert.match(state.privKey ?? '', /^[0-9a-f]{64}$/);
    assert.equal(auth.getUserInfo().verifier, 'portico-oidc');
    assert.equal(auth.getUserInfo().verifierId, 'erin@example.com');
  });

  test('a login whose redirect is off the allow-list is refused by the service, naming the origin', async () => {
    const page = await browser.newPage();
    let shown = '';
    const auth = await Auth.create(init({ redirectUrl: 'https://evil.example/steal' }), {
      storage: new MemoryStorage(),
      openUrl: async (url) => {
        await page.goto(url);
        const refusal = page.getByText('is not allowed on this auth service');
        await refusal.waitFor();
        shown = (await refusal.textContent()) ?? '';
        throw new Error('the login page refused the login');
      },
    });
    await assert.rejects(auth.login({ loginProvider: 'portico' }), /the login page refused the login/);
    assert.match(shown, /redirectUrl origin https:\/\/evil\.example is not allowed on this auth service/);
    assert.equal(auth.getPrivKey(), '');
  });

  test('the dashboard’s audit API shows the OIDC logins, for the gateway’s admin token only', async () => {
    const audit = `${dashboardUrl}api/audit?event=login`;
    const answer = await fetch(audit, { headers: { authorization: `Bearer ${GATEWAY_ADMIN}` } });
    assert.equal(answer.status, 200);
    const { entries } = (await answer.json()) as { entries: Array<{ detail: { verifier?: string } }> };
    assert.ok(entries.some((e) => e.detail.verifier === 'portico-oidc'));
    assert.equal((await fetch(audit, { headers: { authorization: `Bearer ${AUTH_ADMIN}` } })).status, 401);
  });
});
