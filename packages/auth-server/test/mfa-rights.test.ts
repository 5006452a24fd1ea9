// What an MFA session may do: a session that passed only the first factor (it holds the service's
// share, not the key) cannot add or revoke devices, and logout ends every right of the session.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  Auth,
  type AuthInitParams,
  MemoryStorage,
  type MfaSettings,
  mfaProofMessage,
  signStoreMessage,
  storeKeyOf,
} from '@portico/auth';
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
    assert.equal(res.status, 200, res.body.error);
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
    assert.match(revoke.body.error, /second factor/);
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
    assert.match(afterDevice.body.error, /No MFA session/);
    assert.equal((await post(server.sdkUrl, '/api/mfa/revoke', revoke)).status, 403);

    const phone = await Auth.create(init(), { storage: new MemoryStorage() });
    await phone.login(
      { loginProvider: 'jwt', extraLoginOptions: { id_token: await issuer.sign({ sub: 'kate' }) } },
      { password: PASSWORD },
    );
    await phone.revokeDevice(deviceId);
  });
});
