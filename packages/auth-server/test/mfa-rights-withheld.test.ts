// MFA rights under export policy `user` and `off`: the app never holds a share, so it cannot sign a
// second-factor proof with the rebuilt key. A session shows the second factor to the service instead
// (`confirmSecondFactor`); until it does, it may neither end the user's other sessions, revoke a
// device's share nor open the account page, as a first-factor-only session under `app`.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Auth, AuthError, type AuthInitParams, MemoryStorage, type MfaSettings } from '@portico/auth';
import { signStoreMessage, storeKeyOf } from '@portico/auth/protocol';
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
const POLICIES = { 'user-mode-app': 'user', 'off-mode-app': 'off' } as const;

/** How a call was refused: the library's code and the service's message. */
async function refusal(call: Promise<unknown>): Promise<string> {
  try {
    await call;
  } catch (err) {
    assert.ok(err instanceof AuthError, String(err));
    return `${err.code}: ${err.message}`;
  }
  assert.fail('the call was not refused');
}
const SECOND_FACTOR = /^SERVICE_ERROR: .*needs the second factor/;

/** A session-signed MFA call as the library sends it, without the proof (no key to sign it with). */
function signedCall(path: string, sessionId: string, payload: unknown) {
  return {
    key: storeKeyOf(sessionId),
    payload,
    signature: signStoreMessage(sessionId, `${path}:${JSON.stringify(payload)}`),
  };
}

describe('MFA rights when the app never holds the key', { timeout: 180_000 }, () => {
  const dir = tempDir('portico-auth-mfa-withheld-');
  let issuer: JwksIssuer;
  let server: AuthServer;
  before(async () => {
    issuer = await startJwksIssuer();
    server = await startAuthServer({
      dataDir: dir.path,
      masterKey: 'd'.repeat(64),
      verifiers: { jwt: { type: 'jwt', keys: [issuer.publicJwk] } },
      exportPolicy: { [CLIENT_ID]: 'app', ...POLICIES },
    });
  });
  after(async () => {
    await server?.close();
    await issuer?.close();
    dir.cleanup();
  });

  const init = (clientId: string): AuthInitParams => ({
    clientId,
    network: 'sapphire_devnet',
    sdkUrl: server.sdkUrl,
    useCoreKitKey: true,
    mfaSettings: SETTINGS,
  });

  /** MFA on (device, phrase, password), enabled from the `app` app; its device's storage and id. */
  async function enrol(sub: string): Promise<{ storage: MemoryStorage; deviceId: string }> {
    const storage = new MemoryStorage();
    const auth = await Auth.create(init(CLIENT_ID), { storage });
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
    return { storage, deviceId };
  }

  /** Another device of the `app` app, registered by recovering with the password. */
  async function secondDevice(sub: string): Promise<{ storage: MemoryStorage; deviceId: string }> {
    const storage = new MemoryStorage();
    const auth = await Auth.create(init(CLIENT_ID), { storage });
    await auth.login(
      { loginProvider: 'jwt', extraLoginOptions: { id_token: await issuer.sign({ sub }) } },
      { password: PASSWORD },
    );
    const deviceId = await auth.mfaDeviceId();
    assert.ok(deviceId);
    return { storage, deviceId };
  }

  /** An `app` app login on the device of `storage`: resolves with the key its own share rebuilt. */
  async function deviceLogin(storage: MemoryStorage, sub: string): Promise<string> {
    const auth = await Auth.create(init(CLIENT_ID), { storage });
    await auth.login({ loginProvider: 'jwt', extraLoginOptions: { id_token: await issuer.sign({ sub }) } });
    return auth.getPrivKey();
  }

  async function signIn(clientId: string, sub: string): Promise<Auth> {
    const auth = await Auth.create(init(clientId), { storage: new MemoryStorage() });
    await auth.login({ loginProvider: 'jwt', extraLoginOptions: { id_token: await issuer.sign({ sub }) } });
    assert.equal(auth.getPrivKey(), '');
    return auth;
  }

  for (const [clientId, mode] of Object.entries(POLICIES)) {
    it(`${mode}: a session that confirmed the second factor ends another and opens the account page`, async () => {
      const sub = `nora-${mode}`;
      await enrol(sub);
      const laptop = await signIn(clientId, sub);
      const phone = await signIn(clientId, sub);
      const other = (await laptop.listSessions()).find((s) => !s.current);
      assert.ok(other);
      // First factor only: refused, as before.
      assert.match(await refusal(laptop.endSession(other.id)), SECOND_FACTOR);
      assert.match(await refusal(laptop.accountPageUrl()), SECOND_FACTOR);
      // A wrong factor counts as a failed attempt and marks nothing.
      assert.match(
        await refusal(laptop.confirmSecondFactor({ password: 'wrong' })),
        /^SERVICE_ERROR: .*password/i,
      );
      assert.match(await refusal(laptop.endSession(other.id)), SECOND_FACTOR);

      await laptop.confirmSecondFactor({ password: PASSWORD });
      assert.equal(laptop.getPrivKey(), '', 'confirming hands the app no key');
      assert.match(await laptop.accountPageUrl(), /#ticket=/);
      // The mark is the laptop's sign-in, not the user's: the phone is still first-factor only...
      const laptopId = (await phone.listSessions()).find((s) => !s.current)?.id;
      assert.ok(laptopId);
      assert.match(await refusal(phone.endSession(laptopId)), SECOND_FACTOR);
      assert.match(await refusal(phone.accountPageUrl()), SECOND_FACTOR);
      // ...and the mark survives a renewal of the laptop's session.
      await laptop.refreshSession();
      assert.equal(await laptop.endSession(other.id), true);
      assert.equal((await laptop.listSessions()).length, 1);
    });
  }

  for (const [clientId, mode] of Object.entries(POLICIES)) {
    it(`${mode}: a session revokes a lost device after confirming, not before nor after logout; adds none`, async () => {
      const sub = `lena-${mode}`;
      const lost = await enrol(sub);
      const kept = await secondDevice(sub);
      const laptop = await signIn(clientId, sub);
      const sessionId = laptop.state.sessionId;
      assert.ok(sessionId);
      const addDevice = () =>
        post(server.sdkUrl, '/api/mfa/device', signedCall('/api/mfa/device', sessionId, {}));

      // The app holds no share of the key, so it gets no device share either, confirmed or not.
      const withheld = async () => {
        const added = await addDevice();
        assert.equal(added.status, 403);
        assert.equal(added.error.code, 'DEVICE_SHARE_WITHHELD');
      };
      // First factor only: refused, and the lost device still rebuilds the key.
      assert.match(await refusal(laptop.revokeDevice(lost.deviceId)), SECOND_FACTOR);
      await withheld();
      assert.ok(await deviceLogin(lost.storage, sub));

      await laptop.confirmSecondFactor({ password: PASSWORD });
      await laptop.revokeDevice(lost.deviceId);
      await assert.rejects(deviceLogin(lost.storage, sub), { code: 'MFA_REQUIRED' });
      await withheld();
      assert.equal(laptop.getPrivKey(), '');

      // Signed while the sign-in was marked, sent after logout: refused, the device kept.
      const late = signedCall('/api/mfa/revoke', sessionId, { deviceId: kept.deviceId });
      await laptop.logout();
      const revoked = await post(server.sdkUrl, '/api/mfa/revoke', late);
      assert.equal(revoked.status, 404);
      assert.equal(revoked.error.code, 'SESSION_NOT_FOUND');
      assert.ok(await deviceLogin(kept.storage, sub));
    });
  }

  it('app: the mark of a confirmed factor does not stand in for the proof on device calls', async () => {
    const sub = 'mila-app';
    const { storage, deviceId } = await enrol(sub);
    // A session of the `app` app that passed only the first factor (it holds the service's share).
    const loginId = await park(
      server.sdkUrl,
      {},
      { loginProvider: 'jwt', extraLoginOptions: { id_token: await issuer.sign({ sub }) } },
    );
    const login = await post(server.sdkUrl, '/api/login/jwt', { loginId });
    assert.equal(login.status, 200, login.error.message);
    const sessionId = login.body.sessionId;
    assert.ok(sessionId);
    const confirmed = await post(
      server.sdkUrl,
      '/api/mfa/confirm',
      signedCall('/api/mfa/confirm', sessionId, { password: PASSWORD }),
    );
    assert.equal(confirmed.status, 200, confirmed.error.message);
    for (const [path, payload] of [
      ['/api/mfa/revoke', { deviceId }],
      ['/api/mfa/device', {}],
    ] as const) {
      const res = await post(server.sdkUrl, path, signedCall(path, sessionId, payload));
      assert.equal(res.status, 403, path);
      assert.equal(res.error.code, 'SECOND_FACTOR_REQUIRED', path);
    }
    assert.ok(await deviceLogin(storage, sub), 'the device was not revoked');
  });

  it('confirm takes only the factors checked from the record; a user without MFA needs none', async () => {
    await enrol('otto');
    const auth = await signIn('user-mode-app', 'otto');
    const social = { socialBackup: { verifier: 'jwt', id_token: 'x' } } as unknown as { password: string };
    assert.match(await refusal(auth.confirmSecondFactor(social)), /payload must be \{password\}/);
    const plain = await signIn('user-mode-app', 'pia');
    const again = await signIn('user-mode-app', 'pia');
    const other = (await plain.listSessions()).find((s) => !s.current);
    assert.ok(other);
    assert.equal(await plain.endSession(other.id), true);
    assert.match(await refusal(again.listSessions()), /^SESSION_EXPIRED/);
  });
});
