import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { hexToBytes } from '@noble/hashes/utils.js';
import { Auth, type AuthError, type AuthInitParams, MemoryStorage, type MfaSettings } from '@portico/auth';
import {
  combineShares,
  getAppScopedKey,
  type KeyShare,
  mnemonicToShare,
  openShareWithKey,
  openShareWithPassword,
  randomPrivKey,
  shareToMnemonic,
} from '@portico/auth/protocol';
import { type AuthServer, startAuthServer } from '@portico/auth-server';
import { tempDir } from '@portico/testkit';
import Database from 'libsql';
import { Envelope } from '../src/envelope.ts';
import { KeyService } from '../src/keys.ts';
import type { MfaRecord } from '../src/mfa.ts';
import { type JwksIssuer, startJwksIssuer } from './helpers.ts';

const CLIENT_ID = 'BPi5PB_UiIZ-cPz1GtV5i1I2iOSOHuimiXBI0e-Oe_u6X3oVAbCiAZOTEBtTXw4tsluTITPqA8zMsfxIKMjiqNQ';
const MASTER = 'b'.repeat(64);
const PASSWORD = 'correct horse battery';
const ALL: MfaSettings = {
  deviceShareFactor: { enable: true, priority: 1 },
  backUpShareFactor: { enable: true, priority: 2 },
  socialBackupFactor: { enable: true, priority: 3 },
  passwordFactor: { enable: true, priority: 4 },
};
const NO_SOCIAL: MfaSettings = { ...ALL, socialBackupFactor: { enable: false } };

// Every MFA flow against a real service (SQLite in a temp dir) through the client library.
describe('MFA: threshold shares through the service and the library', { timeout: 600_000 }, () => {
  const dir = tempDir('portico-auth-mfa-');
  let issuer: JwksIssuer;
  let server: AuthServer;
  let db: Database.Database;
  const envelope = new Envelope(hexToBytes(MASTER));

  before(async () => {
    issuer = await startJwksIssuer();
    server = await startAuthServer({
      dataDir: dir.path,
      masterKey: MASTER,
      // Wrong factors follow each other within a second here: the quick-failure wait is off so the
      // test does not depend on the machine's speed (attempt-limits.test.ts covers it by clock).
      attemptLimits: { quickFailureMs: 0 },
      verifiers: {
        jwt: { type: 'jwt', keys: [issuer.publicJwk] },
        social: { type: 'jwt', keys: [issuer.publicJwk] },
      },
    });
    db = new Database(join(dir.path, 'auth.db'));
  });
  after(async () => {
    db?.close();
    await server?.close();
    await issuer?.close();
    dir.cleanup();
  });

  const init = (mfaSettings?: MfaSettings): AuthInitParams => ({
    clientId: CLIENT_ID,
    network: 'sapphire_devnet',
    sdkUrl: server.sdkUrl,
    useCoreKitKey: true,
    ...(mfaSettings ? { mfaSettings } : {}),
  });
  const token = (sub: string) => issuer.sign({ sub, email: `${sub}@example.com` });
  const jwtLogin = async (sub: string, extra: Record<string, unknown> = {}) => ({
    loginProvider: 'jwt',
    extraLoginOptions: { id_token: await token(sub) },
    ...extra,
  });
  const social = async (sub: string, verifier = 'social') => ({ verifier, id_token: await token(sub) });

  /** The user's id in the store: the apps here log in on sapphire_devnet, not the legacy network. */
  const userIdOf = (sub: string) => KeyService.idOf('jwt', sub, { network: 'sapphire_devnet' });

  function record(sub: string): MfaRecord | undefined {
    const id = userIdOf(sub);
    const row = db.prepare('SELECT value FROM auth_values WHERE name = ?').get(`mfa:${id}`) as
      | { value: string }
      | undefined;
    if (!row) return undefined;
    return JSON.parse(new TextDecoder().decode(envelope.open(`mfa:${id}`, row.value))) as MfaRecord;
  }

  const coreKeyRows = (id: string) =>
    (db.prepare('SELECT count(*) AS n FROM auth_core_keys WHERE id = ?').get(id) as { n: number }).n;

  /** Logs in once without MFA (to learn the key), then enables MFA on the next login. */
  async function enrol(sub: string, settings: MfaSettings, factors: string[]) {
    const first = await Auth.create(init(), { storage: new MemoryStorage() });
    await first.login(await jwtLogin(sub, { mfaLevel: 'none' }));
    const key = first.getPrivKey();
    const storage = new MemoryStorage();
    const auth = await Auth.create(init(settings), { storage });
    const out = await auth.login(await jwtLogin(sub, { mfaLevel: 'mandatory' }), {
      setup: {
        factors: factors as never,
        password: factors.includes('passwordFactor') ? PASSWORD : undefined,
        socialBackup: factors.includes('socialBackupFactor') ? await social(`${sub}-friend`) : undefined,
      },
    });
    assert.equal(auth.getPrivKey(), key, 'the key does not change when MFA is enabled');
    return { key, auth, storage, out };
  }

  const code = (c: string, msg?: RegExp) => (err: unknown) => {
    assert.equal((err as AuthError).code, c, (err as Error).message);
    if (msg) assert.match((err as Error).message, msg);
    return true;
  };

  it('enables MFA with all factors: phrase shown once, dappShare for the custom verifier, full key deleted', async () => {
    const { key, out, auth } = await enrol('alice', ALL, [
      'deviceShareFactor',
      'backUpShareFactor',
      'socialBackupFactor',
      'passwordFactor',
    ]);
    assert.equal(out.backupPhrase?.split(' ').length, 24);
    assert.equal(auth.getUserInfo().isMfaEnabled, true);
    assert.equal(auth.getUserInfo().dappShare?.split(' ').length, 24);
    const id = userIdOf('alice');
    assert.equal(coreKeyRows(id), 0);
    const rec = record('alice')!;
    assert.deepEqual([...rec.factors].sort(), [
      'backUpShareFactor',
      'deviceShareFactor',
      'passwordFactor',
      'socialBackupFactor',
    ]);
    // Social backup on: the service holds two shares, so it could rebuild the key (documented trade-off).
    assert.equal(await combineShares(rec.serviceShare, rec.social!.share), key);
  });

  it('every pair of the six factor shares rebuilds the same key', async () => {
    const { key, out, auth, storage } = await enrol('bob', ALL, [
      'deviceShareFactor',
      'backUpShareFactor',
      'socialBackupFactor',
      'passwordFactor',
    ]);
    const rec = record('bob')!;
    const stored = JSON.parse((await storage.get(`portico-auth:${CLIENT_ID}:device`))!);
    const shares: Record<string, KeyShare> = {
      service: rec.serviceShare,
      device: openShareWithKey(stored.sealed, rec.devices[stored.deviceId].wrapKey!),
      backup: mnemonicToShare(out.backupPhrase!, rec.backupIndex!),
      password: await openShareWithPassword(rec.passwordShare!, PASSWORD),
      social: rec.social!.share,
      dapp: mnemonicToShare(auth.getUserInfo().dappShare!, rec.dappIndex!),
    };
    const names = Object.keys(shares);
    for (let i = 0; i < names.length; i += 1) {
      for (let j = i + 1; j < names.length; j += 1) {
        assert.equal(
          await combineShares(shares[names[i]], shares[names[j]]),
          key,
          `${names[i]} + ${names[j]}`,
        );
      }
    }
  });

  it('logs in with the service share plus each second factor; a new device gets its own device share', async () => {
    const { key, out, auth, storage } = await enrol('carol', ALL, [
      'deviceShareFactor',
      'backUpShareFactor',
      'socialBackupFactor',
      'passwordFactor',
    ]);
    const dappShare = auth.getUserInfo().dappShare!;
    // Same device: service share + device share, no input.
    const again = await Auth.create(init(ALL), { storage });
    await again.login(await jwtLogin('carol'));
    assert.equal(again.getPrivKey(), key);
    assert.equal(again.getUserInfo().isMfaEnabled, true);
    assert.equal(again.state.privKey, getAppScopedKey(key, CLIENT_ID));
    // Restart: the session restores and the device share rebuilds the key.
    const restarted = await Auth.create(init(ALL), { storage });
    assert.equal(restarted.getPrivKey(), key);
    // New devices, one factor each.
    const inputs = [
      { backupPhrase: out.backupPhrase! },
      { password: PASSWORD },
      { socialBackup: await social('carol-friend') },
    ];
    for (const input of inputs) {
      const fresh = new MemoryStorage();
      const device = await Auth.create(init(ALL), { storage: fresh });
      await device.login(await jwtLogin('carol'), input);
      assert.equal(device.getPrivKey(), key, Object.keys(input)[0]);
      // It now has a device share of its own: the next login needs no other factor.
      const next = await Auth.create(init(ALL), { storage: fresh });
      await next.login(await jwtLogin('carol'));
      assert.equal(next.getPrivKey(), key);
    }
    // The app's dappShare is a factor too, passed as a login parameter.
    const dapp = await Auth.create(init(ALL), { storage: new MemoryStorage() });
    await dapp.login(await jwtLogin('carol', { dappShare }), { newDeviceShare: false });
    assert.equal(dapp.getPrivKey(), key);
  });

  it('refuses a wrong password, a wrong phrase and a foreign social login without locking the user out', async () => {
    const { key, out } = await enrol('dave', ALL, [
      'deviceShareFactor',
      'backUpShareFactor',
      'socialBackupFactor',
      'passwordFactor',
    ]);
    const auth = await Auth.create(init(ALL), { storage: new MemoryStorage() });
    await assert.rejects(
      auth.login(await jwtLogin('dave'), { password: 'not the password' }),
      code('MFA_FACTOR_INVALID', /Wrong password/),
    );
    assert.equal(auth.getPrivKey(), '');
    const foreign = shareToMnemonic({ index: 1, value: randomPrivKey() }); // valid checksum, other share
    await assert.rejects(
      auth.completeMfa({ backupPhrase: foreign }),
      code('MFA_FACTOR_INVALID', /Wrong backup phrase/),
    );
    await assert.rejects(auth.completeMfa({ backupPhrase: 'abandon '.repeat(24) }), /Wrong backup phrase/);
    await assert.rejects(
      auth.completeMfa({ socialBackup: await social('mallory') }),
      code('MFA_FACTOR_INVALID', /not the social backup/),
    );
    await assert.rejects(
      auth.completeMfa({ socialBackup: await social('dave', 'jwt') }),
      code('MFA_FACTOR_INVALID', /different verifier/),
    );
    // Still pending: the right factor works right away, then the password works on a new login.
    await auth.completeMfa({ backupPhrase: out.backupPhrase! });
    assert.equal(auth.getPrivKey(), key);
    const later = await Auth.create(init(ALL), { storage: new MemoryStorage() });
    await later.login(await jwtLogin('dave'), { password: PASSWORD });
    assert.equal(later.getPrivKey(), key);
  });

  it('a revoked device share no longer counts', async () => {
    const {
      key,
      out,
      storage: lost,
    } = await enrol('erin', NO_SOCIAL, ['deviceShareFactor', 'backUpShareFactor', 'passwordFactor']);
    const lostId = await (await Auth.create(init(NO_SOCIAL), { storage: lost })).mfaDeviceId();
    assert.ok(lostId);
    const phone = await Auth.create(init(NO_SOCIAL), { storage: new MemoryStorage() });
    await phone.login(await jwtLogin('erin'), { backupPhrase: out.backupPhrase! });
    await phone.revokeDevice(lostId);
    assert.equal(record('erin')!.devices[lostId].wrapKey, undefined, 'the wrapping key is gone');
    const old = await Auth.create(init(NO_SOCIAL), { storage: lost });
    await assert.rejects(old.login(await jwtLogin('erin')), code('MFA_REQUIRED', /revoked/));
    assert.equal(old.getPrivKey(), '');
    // The phone's own share still works; the revoked device can recover with another factor.
    const phoneAgain = await Auth.create(init(NO_SOCIAL), { storage: new MemoryStorage() });
    await phoneAgain.login(await jwtLogin('erin'), { password: PASSWORD, newDeviceShare: false });
    assert.equal(phoneAgain.getPrivKey(), key);
    await old.completeMfa({ password: PASSWORD });
    assert.equal(old.getPrivKey(), key);
  });

  it('with social backup off, nothing the service stores rebuilds the key', async () => {
    const { key, storage } = await enrol('frank', NO_SOCIAL, [
      'deviceShareFactor',
      'backUpShareFactor',
      'passwordFactor',
    ]);
    const id = userIdOf('frank');
    assert.equal(coreKeyRows(id), 0);
    // Everything in the store, envelopes opened with the master key (a full compromise of the service).
    const texts: string[] = [];
    for (const table of ['auth_values', 'auth_core_keys', 'auth_sessions']) {
      for (const row of db.prepare(`SELECT * FROM ${table}`).all() as Array<Record<string, string>>) {
        for (const [col, value] of Object.entries(row)) {
          texts.push(String(value));
          const name = String(row.name ?? row.id ?? row.key);
          if (col === 'value' || col === 'wrapped' || col === 'data') {
            try {
              texts.push(new TextDecoder().decode(envelope.open(name, String(value))));
            } catch {
              // ECIES sessions (to the app's sessionId) and plain values do not open here
            }
          }
        }
      }
    }
    const all = texts.join('\n');
    assert.equal(all.includes(key), false, 'the key is nowhere');
    const rec = record('frank')!;
    assert.equal(rec.social, undefined);
    // Candidate shares: every 64-hex value the service holds, at every index it ever handed out.
    const values = new Set(all.match(/[0-9a-f]{64}/g) ?? []);
    values.delete(rec.serviceShare.value);
    for (const value of values) {
      for (const index of rec.usedIndices) {
        if (index === rec.serviceShare.index) continue;
        assert.notEqual(await combineShares(rec.serviceShare, { index, value }), key);
      }
    }
    // The device's share lives on the device, sealed under a key only the service has: neither alone suffices.
    const stored = JSON.parse((await storage.get(`portico-auth:${CLIENT_ID}:device`))!);
    assert.equal(all.includes(stored.sealed), false);
  });

  it('mfaLevel: none never prompts; optional prompts every login (skippable); default every third login', async () => {
    const none = await Auth.create(init(NO_SOCIAL), { storage: new MemoryStorage() });
    await none.login(await jwtLogin('gina', { mfaLevel: 'none' }), {
      setup: { factors: ['deviceShareFactor', 'backUpShareFactor'] },
    });
    assert.equal(none.getUserInfo().isMfaEnabled, false);
    // optional: skipped when no setup is given, set up when it is.
    const opt = await Auth.create(init(NO_SOCIAL), { storage: new MemoryStorage() });
    await opt.login(await jwtLogin('gina', { mfaLevel: 'optional' }));
    assert.equal(opt.getUserInfo().isMfaEnabled, false);
    assert.equal(opt.getPrivKey().length, 64);
    // default: logins 1..2 of hank do not prompt, the 3rd does.
    for (let n = 1; n <= 3; n += 1) {
      const auth = await Auth.create(init(NO_SOCIAL), { storage: new MemoryStorage() });
      const out = await auth.login(await jwtLogin('hank'), {
        setup: { factors: ['deviceShareFactor', 'backUpShareFactor'] },
      });
      assert.equal(auth.getUserInfo().isMfaEnabled, n === 3, `login ${n}`);
      assert.equal(out.backupPhrase !== undefined, n === 3);
    }
    assert.ok(record('hank'));
  });

  it('mandatory level and mandatory factors cannot be skipped; setup order follows priority', async () => {
    const settings: MfaSettings = {
      deviceShareFactor: { enable: true, priority: 3 },
      backUpShareFactor: { enable: true, priority: 2 },
      passwordFactor: { enable: true, priority: 1, mandatory: true },
    };
    const auth = await Auth.create(init(settings), { storage: new MemoryStorage() });
    await assert.rejects(
      auth.login(await jwtLogin('ivan', { mfaLevel: 'mandatory' })),
      code('MFA_SETUP_REQUIRED', /passwordFactor, backUpShareFactor, deviceShareFactor/),
    );
    await assert.rejects(
      auth.login(await jwtLogin('ivan', { mfaLevel: 'mandatory' }), { setup: { skip: true } }),
      code('MFA_SETUP_REQUIRED'),
    );
    await assert.rejects(
      auth.login(await jwtLogin('ivan', { mfaLevel: 'mandatory' }), {
        setup: { factors: ['deviceShareFactor', 'backUpShareFactor'] },
      }),
      /Mandatory MFA factor cannot be skipped: passwordFactor/,
    );
    await assert.rejects(
      auth.login(await jwtLogin('ivan', { mfaLevel: 'mandatory' }), {
        setup: { factors: ['passwordFactor'], password: PASSWORD },
      }),
      /at least two factors/,
    );
    await assert.rejects(
      auth.login(await jwtLogin('ivan', { mfaLevel: 'mandatory' }), {
        setup: { factors: ['passwordFactor', 'socialBackupFactor'], password: PASSWORD },
      }),
      /not enabled/,
    );
    assert.equal(record('ivan'), undefined);
    await auth.login(await jwtLogin('ivan', { mfaLevel: 'mandatory' }), {
      setup: { factors: ['passwordFactor', 'backUpShareFactor'], password: PASSWORD },
    });
    assert.equal(auth.getUserInfo().isMfaEnabled, true);
  });

  it('MFA cannot be turned off: mfaLevel none still needs the second factor', async () => {
    const { key } = await enrol('judy', NO_SOCIAL, ['deviceShareFactor', 'passwordFactor']);
    const auth = await Auth.create(init(), { storage: new MemoryStorage() });
    await assert.rejects(auth.login(await jwtLogin('judy', { mfaLevel: 'none' })), code('MFA_REQUIRED'));
    assert.equal(auth.getPrivKey(), '');
    await auth.completeMfa({ password: PASSWORD });
    assert.equal(auth.getPrivKey(), key);
    assert.equal(auth.getUserInfo().isMfaEnabled, true);
  });
});
