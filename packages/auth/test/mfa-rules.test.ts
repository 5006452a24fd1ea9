import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  Auth,
  MemoryStorage,
  type MfaSettings,
  normalizeInitParams,
  SOCIAL_BACKUP_WARNING,
} from '../src/index.ts';
import {
  checkSetupChoice,
  combineShares,
  mfaPrompt,
  openShareWithKey,
  randomPrivKey,
  sealShareWithKey,
  setupOrder,
  shareAt,
  splitKey,
} from '../src/protocol.ts';

const base = { clientId: 'BPi5PB_UiIZ', network: 'sapphire_devnet' as const };

describe('MFA rules: settings, setup order, prompts', () => {
  it('refuses fewer than two enabled factors, duplicate priorities and mandatory disabled factors at init', () => {
    const bad: MfaSettings[] = [
      { deviceShareFactor: { enable: true } },
      { deviceShareFactor: { enable: true }, passwordFactor: { enable: false } },
      { deviceShareFactor: { enable: true, priority: 1 }, passwordFactor: { enable: true, priority: 1 } },
      {
        deviceShareFactor: { enable: true },
        passwordFactor: { enable: true },
        backUpShareFactor: { enable: false, mandatory: true },
      },
    ];
    const why = [/at least two enabled/, /at least two enabled/, /priority not used by/, /not enabled/];
    bad.forEach((mfaSettings, i) => {
      assert.throws(() => normalizeInitParams({ ...base, mfaSettings }), why[i]);
    });
    assert.doesNotThrow(() =>
      normalizeInitParams({
        ...base,
        mfaSettings: {
          deviceShareFactor: { enable: true, priority: 2 },
          passwordFactor: { enable: true, priority: 1 },
        },
      }),
    );
  });

  it('sets factors up in ascending priority, unset priorities last; mandatory factors cannot be skipped', () => {
    const settings: MfaSettings = {
      deviceShareFactor: { enable: true },
      backUpShareFactor: { enable: true, priority: 7 },
      socialBackupFactor: { enable: false, priority: 1 },
      passwordFactor: { enable: true, priority: 2, mandatory: true },
    };
    assert.deepEqual(setupOrder(settings), [
      { factor: 'passwordFactor', mandatory: true },
      { factor: 'backUpShareFactor', mandatory: false },
      { factor: 'deviceShareFactor', mandatory: false },
    ]);
    assert.throws(
      () => checkSetupChoice(settings, { factors: ['deviceShareFactor', 'backUpShareFactor'] }),
      /Mandatory MFA factor cannot be skipped: passwordFactor/,
    );
    assert.throws(() => checkSetupChoice(settings, { factors: ['passwordFactor'] }), /at least two factors/);
    assert.throws(
      () => checkSetupChoice(settings, { factors: ['passwordFactor', 'socialBackupFactor'] }),
      /not enabled/,
    );
    assert.doesNotThrow(() =>
      checkSetupChoice(settings, { factors: ['passwordFactor', 'deviceShareFactor'] }),
    );
  });

  it('mfaLevel: default every third login (with mfaSettings), optional every login, mandatory not skippable, none never', () => {
    const prompts = (level: Parameters<typeof mfaPrompt>[0], has = true) =>
      [1, 2, 3, 4, 5, 6].map((n) => mfaPrompt(level, n, has).prompt);
    assert.deepEqual(prompts('default'), [false, false, true, false, false, true]);
    assert.deepEqual(prompts('default', false), [false, false, false, false, false, false]);
    assert.deepEqual(prompts('optional'), [true, true, true, true, true, true]);
    assert.deepEqual(prompts('mandatory'), [true, true, true, true, true, true]);
    assert.deepEqual(prompts('none'), [false, false, false, false, false, false]);
    assert.equal(mfaPrompt('mandatory', 1, true).skippable, false);
    assert.equal(mfaPrompt('optional', 1, true).skippable, true);
    assert.equal(mfaPrompt('default', 3, true).skippable, true);
  });

  it('warns at init when the social-backup factor is enabled, and only then', async () => {
    const warnings: string[] = [];
    const onWarning = (m: string) => warnings.push(m);
    await Auth.create(
      { ...base, mfaSettings: { deviceShareFactor: { enable: true }, passwordFactor: { enable: true } } },
      { storage: new MemoryStorage(), onWarning },
    );
    assert.deepEqual(warnings, []);
    await Auth.create(
      { ...base, mfaSettings: { deviceShareFactor: { enable: true }, socialBackupFactor: { enable: true } } },
      { storage: new MemoryStorage(), onWarning },
    );
    assert.deepEqual(warnings, [`[portico/auth] ${SOCIAL_BACKUP_WARNING}`]);
  });

  it('a share at a new index (new device) combines with every other share to the same key', async () => {
    const key = randomPrivKey();
    const shares = await splitKey(key, 4);
    const used = new Set(shares.map((s) => s.index));
    let index = 1;
    while (used.has(index)) index += 1;
    const fresh = await shareAt(shares[0], shares[1], index);
    assert.equal(fresh.index, index);
    for (const other of shares) assert.equal(await combineShares(fresh, other), key);
    await assert.rejects(shareAt(shares[0], shares[1], shares[0].index), /already taken/);
    // At rest on the device it is sealed under the service-held wrapping key.
    const wrap = randomPrivKey();
    const sealed = sealShareWithKey(fresh, wrap);
    assert.equal(sealed.includes(fresh.value), false);
    assert.deepEqual(openShareWithKey(sealed, wrap), fresh);
    assert.throws(() => openShareWithKey(sealed, randomPrivKey()), /could not be opened/);
  });
});
