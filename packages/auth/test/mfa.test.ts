import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  combineShares,
  mnemonicToShare,
  openShareWithPassword,
  randomPrivKey,
  sealShareWithPassword,
  shareToMnemonic,
  splitKey,
} from '../src/protocol.ts';

// Building blocks; the MFA flows are tested in packages/auth-server/test/mfa.test.ts.
describe('MFA building blocks: threshold shares and factor encodings', () => {
  const FACTORS = ['service', 'device', 'backup', 'password', 'socialBackup'] as const;

  it('rebuilds the key from every pair of the five factor shares', async () => {
    for (let round = 0; round < 3; round += 1) {
      const key = randomPrivKey();
      const shares = await splitKey(key, FACTORS.length);
      assert.equal(new Set(shares.map((s) => s.index)).size, FACTORS.length);
      for (let i = 0; i < shares.length; i += 1) {
        for (let j = i + 1; j < shares.length; j += 1) {
          assert.equal(await combineShares(shares[i], shares[j]), key, `${FACTORS[i]} + ${FACTORS[j]}`);
        }
      }
    }
  });

  it('needs two different shares, and shares of another split do not rebuild the key', async () => {
    const key = randomPrivKey();
    const [a, b] = await splitKey(key, 3);
    await assert.rejects(combineShares(a, a), /two different shares/);
    // A share of another split with an index b does not have (shares with equal indices are refused).
    let [other] = await splitKey(randomPrivKey(), 3);
    while (other.index === b.index) [other] = await splitKey(randomPrivKey(), 3);
    assert.notEqual(await combineShares(other, b), key);
  });

  it('writes the backup share as 24 words and reads it back; a mistyped word is refused', async () => {
    const key = randomPrivKey();
    const [service, backup] = await splitKey(key, 3);
    const words = shareToMnemonic(backup);
    assert.equal(words.split(' ').length, 24);
    const read = mnemonicToShare(`  ${words.toUpperCase()} `, backup.index);
    assert.equal(await combineShares(service, read), key);
    const list = words.split(' ');
    list[5] = 'portico'; // not a BIP-39 word
    assert.throws(() => mnemonicToShare(list.join(' '), backup.index), /Invalid backup phrase/);
    assert.throws(
      () => mnemonicToShare(words.split(' ').slice(0, 12).join(' '), backup.index),
      /Invalid backup phrase/,
    );
  });

  it('seals the password share under the password; a wrong password is refused', async () => {
    const key = randomPrivKey();
    const [device, password] = await splitKey(key, 3);
    const sealed = await sealShareWithPassword(password, 'correct horse battery');
    assert.equal(sealed.includes(password.value), false);
    const opened = await openShareWithPassword(sealed, 'correct horse battery');
    assert.equal(await combineShares(device, opened), key);
    await assert.rejects(openShareWithPassword(sealed, 'correct horse battery!'), /Wrong password/);
    await assert.rejects(sealShareWithPassword(password, 'short'), /at least 8/);
  });
});
