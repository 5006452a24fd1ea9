// The account page's MFA devices, at the API on SQLite: `/api/account/state` lists the device shares
// of the MFA record (the id `revokeDevice` takes, when added, whether and when revoked; never a
// wrapping key or a share), and `/api/account/devices/revoke` revokes one with the page's token —
// through the store's compare-and-set, audited `mfa.device.revoked` (`by: user`), after which the
// device's own share rebuilds nothing. The page's right rests on the second factor shown for its
// ticket (the rebuilt key's proof under `app`, the confirm mark under `user`); a page opened before
// MFA was on showed none and may not revoke.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Auth, type AuthInitParams, MemoryStorage, type MfaSettings } from '@portico/auth';
import { type AuthServer, startAuthServer } from '@portico/auth-server';
import { tempDir } from '@portico/testkit';
import { CLIENT_ID, type JwksIssuer, post, startJwksIssuer } from './helpers.ts';

const PASSWORD = 'correct horse battery';
const ADMIN = 'admin-token-for-the-account-devices-test';
const USER_APP = 'user-mode-app';
const SETTINGS: MfaSettings = {
  deviceShareFactor: { enable: true, priority: 1, mandatory: false },
  backUpShareFactor: { enable: true, priority: 2, mandatory: false },
  socialBackupFactor: { enable: false },
  passwordFactor: { enable: true, priority: 3, mandatory: false },
};

interface DeviceRow {
  id: string;
  addedAt?: number;
  revoked: boolean;
  revokedAt?: number;
}
interface AuditEntry {
  event: string;
  userId?: string;
  detail: Record<string, unknown>;
}

describe('the account page revokes MFA devices (SQLite)', { timeout: 600_000 }, () => {
  const dir = tempDir('portico-auth-account-devices-');
  let issuer: JwksIssuer;
  let server: AuthServer;
  // The service's clock: moved forward by hand, so the recorded times are known.
  let clock = Date.now();
  const tick = () => {
    clock += 60_000;
    return clock;
  };

  before(async () => {
    issuer = await startJwksIssuer();
    server = await startAuthServer({
      dataDir: dir.path,
      masterKey: 'e'.repeat(64),
      adminToken: ADMIN,
      clock: () => clock,
      verifiers: { jwt: { type: 'jwt', keys: [issuer.publicJwk] } },
      exportPolicy: { [CLIENT_ID]: 'app', [USER_APP]: 'user' },
    });
  });
  after(async () => {
    await server?.close();
    await issuer?.close();
    dir.cleanup();
  });

  const init = (clientId = CLIENT_ID): AuthInitParams => ({
    clientId,
    network: 'sapphire_devnet',
    sdkUrl: server.sdkUrl,
    useCoreKitKey: true,
    mfaSettings: SETTINGS,
  });
  const jwtLogin = async (sub: string) => ({
    loginProvider: 'jwt' as const,
    extraLoginOptions: { id_token: await issuer.sign({ sub }) },
  });

  /** MFA on (device, phrase, password) from the `app` app: the device's Auth, storage and id. */
  async function enrol(sub: string) {
    const storage = new MemoryStorage();
    const auth = await Auth.create(init(), { storage });
    await auth.login(
      { ...(await jwtLogin(sub)), mfaLevel: 'mandatory' },
      {
        setup: { factors: ['deviceShareFactor', 'backUpShareFactor', 'passwordFactor'], password: PASSWORD },
      },
    );
    const deviceId = await auth.mfaDeviceId();
    assert.ok(deviceId);
    return { auth, storage, deviceId };
  }

  /** Another device of the `app` app, given its share after recovering with the password. */
  async function secondDevice(sub: string) {
    const storage = new MemoryStorage();
    const auth = await Auth.create(init(), { storage });
    await auth.login(await jwtLogin(sub), { password: PASSWORD });
    const deviceId = await auth.mfaDeviceId();
    assert.ok(deviceId);
    return { auth, storage, deviceId };
  }

  /** A login of the `app` app on the device of `storage`, with its own share only. */
  async function deviceLogin(storage: MemoryStorage, sub: string): Promise<string> {
    const auth = await Auth.create(init(), { storage });
    await auth.login(await jwtLogin(sub));
    return auth.getPrivKey();
  }

  /** The page's token, as the page gets it: the app's ticket traded once. */
  async function pageToken(auth: Auth): Promise<string> {
    const url = new URL(await auth.accountPageUrl());
    const ticket = new URLSearchParams(url.hash.slice(1)).get('ticket');
    const opened = await post(server.sdkUrl, '/api/account/open', { ticket });
    assert.equal(opened.status, 200, opened.error.message);
    return opened.body.token;
  }

  async function devices(token: string): Promise<DeviceRow[]> {
    const state = await post(server.sdkUrl, '/api/account/state', { token });
    assert.equal(state.status, 200, state.error.message);
    return state.body.mfaDevices as unknown as DeviceRow[];
  }

  const revoke = (token: string, deviceId: unknown) =>
    post(server.sdkUrl, '/api/account/devices/revoke', { token, deviceId });

  /** The audit's `mfa.device.revoked` entries, of the devices `ids` when given. */
  async function audit(ids?: string[]): Promise<AuditEntry[]> {
    const res = await fetch(`${server.sdkUrl}/admin/audit?event=mfa.device.revoked`, {
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    const { entries } = (await res.json()) as { entries: AuditEntry[] };
    return ids ? entries.filter((e) => ids.includes(String(e.detail.deviceId))) : entries;
  }

  it('app: lists the devices without their keys, revokes one (audited); the revoked share opens nothing', async () => {
    const sub = 'ada';
    const setupAt = tick();
    const lost = await enrol(sub);
    const addedAt = tick();
    const kept = await secondDevice(sub);
    const token = await pageToken(kept.auth);

    const state = await post(server.sdkUrl, '/api/account/state', { token });
    assert.deepEqual(state.body.mfaDevices, [
      { id: lost.deviceId, addedAt: setupAt, revoked: false },
      { id: kept.deviceId, addedAt, revoked: false },
    ]);
    // Only ids and dates: no wrapping key, share or index leaves the service.
    assert.doesNotMatch(JSON.stringify(state.body), /wrapKey|share|index/i);

    const revokedAt = tick();
    const revoked = await revoke(token, lost.deviceId);
    assert.equal(revoked.status, 200, revoked.error.message);
    // The answer is the new state: live devices first.
    assert.deepEqual(revoked.body.mfaDevices, [
      { id: kept.deviceId, addedAt, revoked: false },
      { id: lost.deviceId, addedAt: setupAt, revoked: true, revokedAt },
    ]);
    assert.deepEqual(await devices(token), revoked.body.mfaDevices);
    await assert.rejects(deviceLogin(lost.storage, sub), { code: 'MFA_REQUIRED' });
    assert.ok(await deviceLogin(kept.storage, sub), 'the other device still rebuilds the key');

    assert.deepEqual(
      (await audit([lost.deviceId, kept.deviceId])).map((e) => e.detail),
      [{ outcome: 'success', clientId: CLIENT_ID, deviceId: lost.deviceId, by: 'user' }],
    );

    // Revoked already, unknown, or a name of the record's prototype: 404, nothing changed.
    const audited = (await audit()).length;
    for (const id of [lost.deviceId, 'ab'.repeat(16), '__proto__', 'constructor']) {
      const again = await revoke(token, id);
      assert.deepEqual([again.status, again.error.code], [404, 'DEVICE_NOT_FOUND'], id);
    }
    assert.equal((await audit()).length, audited, 'a refused revocation of no device is not audited');
    const bad = await revoke(token, 5);
    assert.deepEqual([bad.status, bad.error.code, bad.error.field], [400, 'INVALID_BODY', 'deviceId']);
    const stranger = await revoke('ab'.repeat(32), kept.deviceId);
    assert.equal(stranger.error.code, 'ACCOUNT_PAGE_EXPIRED');
    // Once the sign-in ends, so does the page's right.
    await kept.auth.logout();
    const late = await revoke(token, kept.deviceId);
    assert.equal(late.error.code, 'ACCOUNT_PAGE_EXPIRED');
    assert.ok(await deviceLogin(kept.storage, sub));
  });

  it('user: a session that confirmed the second factor opens the page and revokes a device', async () => {
    const sub = 'bea';
    const lost = await enrol(sub);
    const auth = await Auth.create(init(USER_APP), { storage: new MemoryStorage() });
    await auth.login(await jwtLogin(sub));
    assert.equal(auth.getPrivKey(), '');
    await auth.confirmSecondFactor({ password: PASSWORD });
    const token = await pageToken(auth);
    assert.deepEqual(
      (await devices(token)).map((d) => [d.id, d.revoked]),
      [[lost.deviceId, false]],
    );
    const revoked = await revoke(token, lost.deviceId);
    assert.equal(revoked.status, 200, revoked.error.message);
    await assert.rejects(deviceLogin(lost.storage, sub), { code: 'MFA_REQUIRED' });
    assert.deepEqual(
      (await audit([lost.deviceId])).map((e) => [e.detail.outcome, e.detail.clientId, e.detail.by]),
      [['success', USER_APP, 'user']],
    );
  });

  it('a page opened before MFA was on showed no second factor: it lists the devices, revokes none', async () => {
    const sub = 'cleo';
    const plain = await Auth.create(init(), { storage: new MemoryStorage() });
    await plain.login({ ...(await jwtLogin(sub)), mfaLevel: 'none' });
    const token = await pageToken(plain);
    assert.deepEqual(await devices(token), []);
    // A user without MFA has no device to revoke.
    const none = await revoke(token, 'ab'.repeat(16));
    assert.deepEqual([none.status, none.error.code], [404, 'DEVICE_NOT_FOUND']);

    // MFA turned on later, on another device: the open page lists its device, but may not revoke it.
    const device = await enrol(sub);
    assert.deepEqual(
      (await devices(token)).map((d) => d.id),
      [device.deviceId],
    );
    const refused = await revoke(token, device.deviceId);
    assert.deepEqual([refused.status, refused.error.code], [403, 'SECOND_FACTOR_REQUIRED']);
    assert.ok(await deviceLogin(device.storage, sub), 'the device was not revoked');
    assert.deepEqual(
      (await audit([device.deviceId])).map((e) => [e.detail.outcome, e.detail.deviceId]),
      [['refused', device.deviceId]],
    );
    // Nor may it end the new device's sign-in or remove a passkey: every change needs the factor.
    const state = await post(server.sdkUrl, '/api/account/state', { token });
    const sessions = state.body.sessions as unknown as { id: string; current: boolean }[];
    const other = sessions.find((c) => !c.current);
    assert.ok(other, 'the MFA device signed in too');
    const ended = await post(server.sdkUrl, '/api/account/sessions/end', { token, id: other.id });
    assert.deepEqual([ended.status, ended.error.code], [403, 'SECOND_FACTOR_REQUIRED']);
    const after = await post(server.sdkUrl, '/api/account/state', { token });
    const still = after.body.sessions as unknown as { id: string }[];
    assert.ok(
      still.some((c) => c.id === other.id),
      "the device's sign-in is still live",
    );
    const removed = await post(server.sdkUrl, '/api/account/passkeys/remove', {
      token,
      id: 'some-credential',
    });
    assert.deepEqual([removed.status, removed.error.code], [403, 'SECOND_FACTOR_REQUIRED']);
  });
});

describe("the account page's texts", () => {
  it('has every text in each of its nine languages', async () => {
    // A plain ES module of the page (no types for the test's compiler): imported by a computed path.
    const path = '../src/page/account-strings.js';
    const { ACCOUNT_STRINGS } = (await import(path)) as {
      ACCOUNT_STRINGS: Record<string, Record<string, string>>;
    };
    assert.deepEqual(Object.keys(ACCOUNT_STRINGS).sort(), [
      'de',
      'en',
      'es',
      'fr',
      'ja',
      'ko',
      'nl',
      'pt',
      'zh',
    ]);
    const keys = Object.keys(ACCOUNT_STRINGS.en ?? {}).sort();
    for (const key of ['mfaDevices', 'mfaDevicesNote', 'mfaDevice', 'deviceAdded', 'revoke'])
      assert.ok(keys.includes(key), key);
    for (const [lang, table] of Object.entries(ACCOUNT_STRINGS))
      assert.deepEqual(Object.keys(table).sort(), keys, lang);
  });
});
