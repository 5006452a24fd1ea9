// What an MFA session may do: a session that passed only the first factor (it holds the service's
// share, not the key) cannot add or revoke devices nor sign the user out elsewhere, and logout ends
// every right of the session.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Auth, type AuthInitParams, MemoryStorage, type MfaSettings } from '@portico/auth';
import { mfaProofMessage, signStoreMessage, storeKeyOf } from '@portico/auth/protocol';
import { type AuthServer, startAuthServer } from '@portico/auth-server';
import { tempDir } from '@portico/testkit';
import { CLIENT_ID, type JwksIssuer, park, post, startJwksIssuer } from './helpers.ts';

const PASSWORD = 'correct horse battery';
const SETTINGS: MfaSettings = {
  deviceShareFactor: { enable: true, priority: 1, mandatory: false },
  backUpShareFactor: { enable: true, priority: 2, mandatory: false },
  socialBackupFactor: { enable: false },
  passwordFactor: { enable: true, priority: 3, mandatory: false },
};

/** A session-signed MFA call, as the library sends it; `coreKitKey` adds the second-factor proof. */
function signedCall(path: string, sessionId: string, payload: unknown, coreKitKey?: string) {
  const key = storeKeyOf(sessionId);
  const json = JSON.stringify(payload);
  return {
    key,
    payload,
    signature: signStoreMessage(sessionId, `${path}:${json}`),
    proof: coreKitKey ? signStoreMessage(coreKitKey, mfaProofMessage(path, key, json)) : undefined,
  };
}

describe('MFA rights: only after the second factor, never after logout', { timeout: 120_000 }, () => {
  const dir = tempDir('portico-auth-mfa-rights-');
  let issuer: JwksIssuer;
  let server: AuthServer;
  before(async () => {
    issuer = await startJwksIssuer();
    server = await startAuthServer({
      dataDir: dir.path,
      masterKey: 'c'.repeat(64),
      verifiers: { jwt: { type: 'jwt', keys: [issuer.publicJwk] } },
    });
  });
  after(async () => {
    await server?.close();
    await issuer?.close();
    dir.cleanup();
  });

  const init = (): AuthInitParams => ({
    clientId: CLIENT_ID,
    network: 'sapphire_devnet',
    sdkUrl: server.sdkUrl,
    useCoreKitKey: true,
    mfaSettings: SETTINGS,
  });

  /** A user with MFA on (device, phrase, password); the enrolled Auth and its device id. */
  async function enrol(sub: string) {
    const storage = new MemoryStorage();
    const auth = await Auth.create(init(), { storage });
    await auth.login(
      {
        loginProvider: 'jwt',
        extraLoginOptions: { id_token: await issuer.sign({ sub }) },
        mfaLevel: 'mandatory',
      },
      {
        setup: { factors: ['deviceShareFactor', 'backUpShareFactor', 'passwordFactor'], password: PASSWORD },
      },
    );
    const deviceId = await auth.mfaDeviceId();
    assert.ok(deviceId);
    return { auth, deviceId, storage };
  }

  /** A login that passed only the first factor: the service answers with a sessionId and the share. */
  async function firstFactorOnly(sub: string): Promise<string> {
    const loginId = await park(
      server.sdkUrl,
      {},
      {
        loginProvider: 'jwt',
        extraLoginOptions: { id_token: await issuer.sign({ sub }) },
      },
    );
    const res = await post(server.sdkUrl, '/api/login/jwt', { loginId });
    assert.equal(res.status, 200, res.error.message);
    assert.ok(res.body.sessionId);
    return res.body.sessionId;
  }

  it('a first-factor-only session can neither revoke a device nor add one', async () => {
    const { deviceId, storage } = await enrol('ivy');
    const sessionId = await firstFactorOnly('ivy');
    const revoke = await post(
      server.sdkUrl,
      '/api/mfa/revoke',
      signedCall('/api/mfa/revoke', sessionId, { deviceId }),
    );
    assert.equal(revoke.status, 403);
    assert.match(revoke.error.message, /second factor/);
    const device = await post(server.sdkUrl, '/api/mfa/device', signedCall('/api/mfa/device', sessionId, {}));
    assert.equal(device.status, 403);
    // The device was not revoked: it still logs in with its own share.
    const again = await Auth.create(init(), { storage });
    await again.login({
      loginProvider: 'jwt',
      extraLoginOptions: { id_token: await issuer.sign({ sub: 'ivy' }) },
    });
    assert.ok(again.state.coreKitKey);
  });

  it('a proof signed by another key is refused', async () => {
    const { deviceId } = await enrol('jack');
    const sessionId = await firstFactorOnly('jack');
    const forged = signedCall('/api/mfa/revoke', sessionId, { deviceId }, 'ab'.repeat(32));
    assert.equal((await post(server.sdkUrl, '/api/mfa/revoke', forged)).status, 403);
  });

  it('after the second factor a session may revoke; after logout the same session may not', async () => {
    const { auth, deviceId } = await enrol('kate');
    const sessionId = auth.state.sessionId!;
    const coreKitKey = auth.state.coreKitKey!;
    // Signed before logout, sent after: what a stolen sessionId (and key) would try.
    const device = signedCall('/api/mfa/device', sessionId, {}, coreKitKey);
    const revoke = signedCall('/api/mfa/revoke', sessionId, { deviceId }, coreKitKey);
    await auth.logout();
    const afterDevice = await post(server.sdkUrl, '/api/mfa/device', device);
    assert.equal(afterDevice.status, 403);
    assert.match(afterDevice.error.message, /No MFA session/);
    assert.equal((await post(server.sdkUrl, '/api/mfa/revoke', revoke)).status, 403);

    const phone = await Auth.create(init(), { storage: new MemoryStorage() });
    await phone.login(
      { loginProvider: 'jwt', extraLoginOptions: { id_token: await issuer.sign({ sub: 'kate' }) } },
      { password: PASSWORD },
    );
    await phone.revokeDevice(deviceId);
  });

  it("a first-factor-only session cannot end the user's other sessions; the rebuilt key can", async () => {
    const { auth } = await enrol('liam');
    const sessionId = await firstFactorOnly('liam');
    const list = await post(
      server.sdkUrl,
      '/api/session/list',
      signedCall('/api/session/list', sessionId, {}),
    );
    assert.equal(list.status, 200, list.error.message);
    const other = (list.body.sessions as unknown as { id: string; current: boolean }[]).find(
      (s) => !s.current,
    );
    assert.ok(other, "the enrolled device's session is listed");
    const end = await post(
      server.sdkUrl,
      '/api/session/end',
      signedCall('/api/session/end', sessionId, { id: other.id }),
    );
    assert.equal(end.status, 403);
    assert.match(end.error.message, /second factor/);
    const forged = signedCall('/api/session/end', sessionId, { id: other.id }, 'ab'.repeat(32));
    assert.equal((await post(server.sdkUrl, '/api/session/end', forged)).status, 403);
    // The enrolled device is still signed in; with its rebuilt key it may end the other session.
    assert.equal((await auth.listSessions()).length, 2);
    const firstFactor = (await auth.listSessions()).find((s) => !s.current);
    assert.ok(firstFactor);
    assert.equal(await auth.endSession(firstFactor.id), true);
    assert.equal((await auth.listSessions()).length, 1);
  });

  it('the account page: a first-factor-only session gets no ticket; the rebuilt key does, once', async () => {
    const { auth } = await enrol('mia');
    const sessionId = await firstFactorOnly('mia');
    const path = '/api/account/ticket';
    const refused = await post(server.sdkUrl, path, signedCall(path, sessionId, {}));
    assert.equal(refused.status, 403);
    assert.equal(refused.error.code, 'SECOND_FACTOR_REQUIRED');
    const forged = signedCall(path, sessionId, {}, 'ab'.repeat(32));
    assert.equal((await post(server.sdkUrl, path, forged)).status, 403);

    const url = new URL(await auth.accountPageUrl({ lang: 'de' }));
    assert.equal(url.origin + url.pathname, `${server.sdkUrl}/account`);
    assert.equal(url.searchParams.get('lang'), 'de');
    const ticket = new URLSearchParams(url.hash.slice(1)).get('ticket');
    const opened = await post(server.sdkUrl, '/api/account/open', { ticket });
    assert.equal(opened.status, 200, opened.error.message);
    const again = await post(server.sdkUrl, '/api/account/open', { ticket });
    assert.equal(again.error.code, 'ACCOUNT_TICKET_INVALID');
    const state = await post(server.sdkUrl, '/api/account/state', { token: opened.body.token });
    assert.equal(state.status, 200, state.error.message);
    // The first-factor session is listed (ending it is the page's right now); export is `app`'s.
    assert.equal((state.body.sessions as unknown as unknown[]).length, 2);
    assert.equal(state.body.export, 'off');
    const gone = await post(server.sdkUrl, '/api/account/passkeys/remove', {
      token: opened.body.token,
      id: 'no-such-passkey',
    });
    assert.equal(gone.error.code, 'PASSKEY_NOT_FOUND');
    // Bodies are checked by their schemas.
    const bad = await post(server.sdkUrl, '/api/account/open', { ticket: 5 });
    assert.deepEqual([bad.status, bad.error.code, bad.error.field], [400, 'INVALID_BODY', 'ticket']);
    const unknown = await post(server.sdkUrl, '/api/account/state', { token: 'ab'.repeat(32) });
    assert.equal(unknown.error.code, 'ACCOUNT_PAGE_EXPIRED');
  });
});
