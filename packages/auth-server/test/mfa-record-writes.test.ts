// The MFA record is one sealed value per user that several requests change: a device added, a
// device revoked, a passkey counter advanced, possibly on different instances at the same moment.
// Each change is compare-and-set on the sealed value, so none is lost; two set-ups at once leave
// exactly one record (the other's shares would belong to a split nobody keeps). SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { randomPrivKey } from '@portico/auth/protocol';
import { type FreshDatabase, freshDatabase, serviceUrl, tempDir } from '@portico/testkit';
import { Envelope } from '../src/envelope.ts';
import { FACTORS } from '../src/factors/index.ts';
import { MfaStore, type SetupInput } from '../src/mfa.ts';
import { type AuthStore, PostgresStore, SqliteStore } from '../src/store.ts';

const envelope = new Envelope(new Uint8Array(32).fill(5));
/** The stores' clock: each reading a minute on, so every recorded time is its own. */
let clock = 1_700_000_000_000;
const tick = () => {
  clock += 60_000;
  return clock;
};
const SETUP: SetupInput = {
  factors: ['deviceShareFactor', 'backUpShareFactor'],
  dappShare: false,
  clientId: 'client-1',
};

function recordWriteTests(open: () => { store: AuthStore; mfa: () => MfaStore }) {
  it('devices added and revoked at the same moment, through separate store handles: every change kept', async () => {
    const { mfa } = open();
    const userId = 'user-devices';
    const { newDevice } = await mfa().enable(userId, randomPrivKey(), 'jwt', SETUP, FACTORS);
    const enabled = await mfa().load(userId);
    const firstAt = clock + 60_000;
    const first = await mfa().addDevice(userId);
    const second = await mfa().addDevice(userId);

    // Each call its own MfaStore, as two instances would be: they share only the database.
    const [added, revokedFirst, revokedSecond, moreAdded] = await Promise.all([
      Promise.all(Array.from({ length: 6 }, () => mfa().addDevice(userId))),
      mfa().revokeDevice(userId, first.deviceId),
      mfa().revokeDevice(userId, second.deviceId),
      Promise.all(Array.from({ length: 6 }, () => mfa().addDevice(userId))),
    ]);
    assert.equal(revokedFirst, true);
    assert.equal(revokedSecond, true);

    const record = await mfa().load(userId);
    assert.ok(record);
    // The setup's device was made when MFA was enabled; each later one when it was added.
    assert.ok(newDevice && enabled);
    assert.equal(record.devices[newDevice.deviceId]?.addedAt, enabled.enabledAt);
    // Revoked: the wrapping key gone, when it was added kept, when it was revoked recorded.
    const { revokedAt: firstRevokedAt, ...firstKept } = record.devices[first.deviceId] ?? {};
    const { revokedAt: secondRevokedAt, ...secondKept } = record.devices[second.deviceId] ?? {};
    assert.deepEqual(firstKept, { index: first.index, revoked: true, addedAt: firstAt });
    assert.deepEqual(secondKept, { index: second.index, revoked: true, addedAt: firstAt + 60_000 });
    assert.ok(firstRevokedAt && secondRevokedAt && firstRevokedAt > firstAt + 60_000);
    for (const device of [...added, ...moreAdded]) {
      const { addedAt, ...kept } = record.devices[device.deviceId] ?? {};
      assert.deepEqual(
        kept,
        { index: device.index, wrapKey: device.wrapKey },
        'a device added beside the others is in the record with the index it was given',
      );
      assert.ok(addedAt && addedAt > firstAt + 60_000);
    }
    const indices = Object.values(record.devices).map((d) => d.index);
    assert.equal(new Set(indices).size, indices.length, 'no two devices share an index');
    assert.equal(new Set(record.usedIndices).size, record.usedIndices.length);
    for (const index of indices) assert.ok(record.usedIndices.includes(index));
  });

  it('a device revoked twice at once: one revocation answers true', async () => {
    const { mfa } = open();
    const userId = 'user-revoke-twice';
    await mfa().enable(userId, randomPrivKey(), 'jwt', SETUP, FACTORS);
    const device = await mfa().addDevice(userId);
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => mfa().revokeDevice(userId, device.deviceId)),
    );
    assert.equal(answers.filter(Boolean).length, 1, answers.join());
    assert.equal(await mfa().revokeDevice('nobody', device.deviceId), false, 'no record: nothing revoked');
  });

  it('two set-ups at once: one record, the other refused', async () => {
    const { mfa } = open();
    const userId = 'user-enable-race';
    const key = randomPrivKey();
    const results = await Promise.allSettled(
      Array.from({ length: 3 }, () => mfa().enable(userId, key, 'jwt', SETUP, FACTORS)),
    );
    const won = results.filter((r) => r.status === 'fulfilled');
    assert.equal(won.length, 1, 'exactly one set-up wins');
    for (const lost of results.filter((r) => r.status === 'rejected'))
      assert.match(String(lost.reason), /MFA is already enabled/);
    const stored = await mfa().load(userId);
    const winner = won[0].status === 'fulfilled' ? won[0].value : undefined;
    assert.deepEqual(stored?.serviceShare, winner?.record.serviceShare, 'the stored record is the winner’s');
  });

  it('a device added with no record, or without the device factor, is refused', async () => {
    const { mfa } = open();
    await assert.rejects(mfa().addDevice('user-none'), /MFA is not enabled/);
    await mfa().enable(
      'user-phrase-only',
      randomPrivKey(),
      'jwt',
      { ...SETUP, factors: ['backUpShareFactor'] },
      FACTORS,
    );
    await assert.rejects(mfa().addDevice('user-phrase-only'), /device factor is not set up/);
  });
}

describe('MFA record writes on SQLite', () => {
  const dir = tempDir('portico-auth-mfa-writes-');
  let store: SqliteStore;
  before(() => {
    store = new SqliteStore(join(dir.path, 'store'));
  });
  after(async () => {
    await store?.close();
    dir.cleanup();
  });
  recordWriteTests(() => ({ store, mfa: () => new MfaStore(store, envelope, tick) }));
});

const pgUrl = serviceUrl('DATABASE_URL');

describe('MFA record writes on PostgreSQL, two store handles', { skip: pgUrl.skip, timeout: 60_000 }, () => {
  let database: FreshDatabase;
  let stores: PostgresStore[] = [];
  before(async () => {
    database = await freshDatabase(pgUrl.url!);
    stores = [await PostgresStore.open(database.url), await PostgresStore.open(database.url)];
  });
  after(async () => {
    await Promise.all(stores.map((s) => s.close()));
    await database?.drop();
  });
  let turn = 0;
  recordWriteTests(() => ({ store: stores[0], mfa: () => new MfaStore(stores[turn++ % 2], envelope, tick) }));
});
