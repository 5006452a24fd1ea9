// The export policy per clientId: `app` (default) hands the app the keys as v7 does; `user` and
// `off` never put key material in the app's session (no keys, no MFA shares), while the user, the
// idToken's public keys and the session itself work as before. One user signs in to three apps; the
// `app` app's keys tell what must not appear in the others' sessions.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Auth, MemoryStorage, type MfaSettings, type SessionPayload } from '@portico/auth';
import {
  decryptJson,
  getAppScopedKey,
  getEd25519PrivKey,
  secp256k1PublicKey,
  storeKeyOf,
} from '@portico/auth/protocol';
import { type AuthServer, startAuthServer } from '@portico/auth-server';
import { tempDir } from '@portico/testkit';
import { decodeJwt } from 'jose';
import { CLIENT_ID, type JwksIssuer, startJwksIssuer } from './helpers.ts';

const USER_APP = 'user-mode-app';
const OFF_APP = 'off-mode-app';
const SETTINGS: MfaSettings = {
  deviceShareFactor: { enable: true, priority: 1 },
  backUpShareFactor: { enable: true, priority: 2 },
  passwordFactor: { enable: false },
};

describe('export policy per clientId', { timeout: 120_000 }, () => {
  const dir = tempDir('portico-auth-export-');
  let issuer: JwksIssuer;
  let server: AuthServer;

  before(async () => {
    issuer = await startJwksIssuer();
    server = await startAuthServer({
      dataDir: dir.path,
      masterKey: 'b'.repeat(64),
      verifiers: { jwt: { type: 'jwt', keys: [issuer.publicJwk] } },
      exportPolicy: { [CLIENT_ID]: 'app', [USER_APP]: 'user', [OFF_APP]: 'off' },
    });
  });
  after(async () => {
    await server?.close();
    await issuer?.close();
    dir.cleanup();
  });

  async function signIn(clientId: string, sub: string, mfa?: 'setup') {
    const auth = await Auth.create(
      {
        clientId,
        network: 'sapphire_devnet',
        sdkUrl: server.sdkUrl,
        useCoreKitKey: true,
        mfaSettings: SETTINGS,
      },
      { storage: new MemoryStorage() },
    );
    const state = await auth.login(
      {
        loginProvider: 'jwt',
        extraLoginOptions: { id_token: await issuer.sign({ sub }) },
        mfaLevel: mfa ? 'mandatory' : 'none',
      },
      mfa ? { setup: { factors: ['deviceShareFactor', 'backUpShareFactor'] } } : {},
    );
    return { auth, state };
  }

  /** The session as the service stored it for the app (what reaches the app's page). */
  async function stored(sessionId: string): Promise<SessionPayload> {
    const res = await fetch(`${server.sdkUrl}/api/session/get`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ key: storeKeyOf(sessionId) }),
    });
    return decryptJson<SessionPayload>(sessionId, ((await res.json()) as { data: string }).data);
  }

  /** Every private key of the user that an app could be handed. */
  const secretsOf = (coreKitKey: string) => {
    const keys = [coreKitKey, ...[CLIENT_ID, USER_APP, OFF_APP].map((c) => getAppScopedKey(coreKitKey, c))];
    return [...keys, ...keys.map(getEd25519PrivKey)];
  };

  it('app (the default): getPrivKey() returns the key, as v7', async () => {
    const { auth, state } = await signIn(CLIENT_ID, 'ann');
    assert.equal(auth.keyExport, 'app');
    assert.match(auth.getPrivKey(), /^[0-9a-f]{64}$/);
    assert.equal(auth.getPrivKey(), state.coreKitKey);
    const other = await Auth.create(
      { clientId: 'not-listed', network: 'sapphire_devnet', sdkUrl: server.sdkUrl },
      { storage: new MemoryStorage() },
    );
    await other.login({
      loginProvider: 'jwt',
      extraLoginOptions: { id_token: await issuer.sign({ sub: 'ann' }) },
    });
    assert.equal(other.keyExport, 'app', 'an unlisted clientId is app');
    assert.match(other.getPrivKey(), /^[0-9a-f]{64}$/);
  });

  for (const [clientId, mode] of [
    [USER_APP, 'user'],
    [OFF_APP, 'off'],
  ] as const) {
    it(`${mode}: the app signs the user in but never receives key material`, async () => {
      const sub = `ben-${mode}`;
      const { state: withKey } = await signIn(CLIENT_ID, sub);
      const { auth, state } = await signIn(clientId, sub);
      assert.equal(auth.keyExport, mode);
      assert.deepEqual([auth.getPrivKey(), auth.getEd25519PrivKey()], ['', '']);
      assert.equal(auth.getUserInfo().verifierId, sub);
      for (const field of ['privKey', 'ed25519PrivKey', 'coreKitKey', 'coreKitEd25519PrivKey'] as const) {
        assert.equal(state[field], undefined, field);
      }
      // What the service stored for this app holds none of the user's private keys...
      const payload = await stored(auth.state.sessionId!);
      const text = JSON.stringify(payload);
      for (const secret of secretsOf(withKey.coreKitKey!)) assert.equal(text.includes(secret), false);
      assert.equal(payload.mfa, undefined);
      // ...but the idToken names the same key (its public half), and the session renews as any other.
      const wallets = decodeJwt(payload.userInfo!.idToken!).wallets as Array<{
        public_key: string;
        type: string;
      }>;
      assert.equal(
        wallets.find((w) => w.type === 'web3auth_threshold_key')?.public_key,
        secp256k1PublicKey(withKey.coreKitKey!, true),
      );
      await auth.refreshSession();
      assert.equal(auth.keyExport, mode);
      assert.equal(auth.getPrivKey(), '');
    });
  }

  it('user: an MFA user’s session carries no share either (the device and service shares stay away)', async () => {
    const { auth: enrolled } = await signIn(CLIENT_ID, 'cat', 'setup');
    const coreKitKey = enrolled.state.coreKitKey!;
    const { auth } = await signIn(USER_APP, 'cat');
    assert.equal(auth.getUserInfo().isMfaEnabled, true);
    assert.equal(auth.getPrivKey(), '');
    const payload = await stored(auth.state.sessionId!);
    assert.equal(payload.mfa, undefined, 'no service share, no device key');
    const text = JSON.stringify(payload);
    for (const secret of secretsOf(coreKitKey)) assert.equal(text.includes(secret), false);
  });

  it('refuses an unknown policy at start', async () => {
    await assert.rejects(
      startAuthServer({
        dataDir: `${dir.path}/bad`,
        masterKey: 'b'.repeat(64),
        exportPolicy: { x: 'all' as 'app' },
      }),
      /exportPolicy\["x"\] must be one of app, user, off/,
    );
  });
});
