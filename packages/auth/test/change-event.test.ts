import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Auth, type AuthProvider, MemoryStorage } from '../src/index.ts';
import { CLIENT_ID, type JwtLoginService, startJwtLoginService } from './jwt-login-service.ts';

// `auth.on('change')` against the real auth service (custom-JWT verifier, headless login): what a
// listener reads when it is told is what the app shows, so each step checks what the last call saw.
describe("auth.on('change')", { timeout: 120_000 }, () => {
  let jwt: JwtLoginService;
  const token = (sub: string) => jwt.token(sub);

  before(async () => {
    jwt = await startJwtLoginService('c'.repeat(64));
  });
  after(async () => {
    await jwt?.close();
  });

  it('tells listeners of login, renewal and logout; the last call sees the provider in line', async () => {
    const auth = await Auth.create(
      {
        clientId: CLIENT_ID,
        network: 'sapphire_devnet',
        sdkUrl: jwt.service.sdkUrl,
        // Never called: eth_accounts and eth_chainId are answered by the provider itself.
        chainConfig: { chainNamespace: 'eip155', chainId: '0x7a69', rpcTarget: 'http://127.0.0.1:9' },
      },
      { storage: new MemoryStorage() },
    );
    const seen: { sessionId?: string; provider: AuthProvider | null }[] = [];
    const unsubscribe = auth.on('change', () =>
      seen.push({ sessionId: auth.state.sessionId, provider: auth.provider }),
    );

    await auth.login({ loginProvider: 'jwt', extraLoginOptions: { id_token: await token('rita') } });
    const signedIn = seen.at(-1);
    assert.ok(signedIn?.sessionId, 'told of the login');
    assert.ok(signedIn.provider, 'the last call of the login sees auth.provider loaded');
    assert.equal(signedIn.provider, auth.provider);

    const count = seen.length;
    await auth.refreshSession();
    assert.ok(seen.length > count, 'told of the renewal');
    assert.notEqual(seen.at(-1)?.sessionId, signedIn.sessionId, 'with the rotated sessionId');

    await auth.logout();
    assert.deepEqual(seen.at(-1), { sessionId: undefined, provider: null }, 'told of the logout');

    unsubscribe();
    const after = seen.length;
    await auth.login({ loginProvider: 'jwt', extraLoginOptions: { id_token: await token('rita') } });
    assert.equal(seen.length, after, 'no call after unsubscribe');
  });

  it('a failing listener is reported as a warning and does not stop the others or the login', async () => {
    const warnings: string[] = [];
    const auth = await Auth.create(
      { clientId: CLIENT_ID, network: 'sapphire_devnet', sdkUrl: jwt.service.sdkUrl },
      { storage: new MemoryStorage(), onWarning: (message) => warnings.push(message) },
    );
    let told = 0;
    auth.on('change', () => {
      throw new Error('listener broke');
    });
    auth.on('change', () => told++);
    await auth.login({ loginProvider: 'jwt', extraLoginOptions: { id_token: await token('sam') } });
    assert.ok(told > 0);
    assert.ok(warnings.some((w) => w.includes('a change listener failed: listener broke')));
    assert.throws(() => auth.on('changed' as 'change', () => {}), /Unknown event: changed/);
  });
});
