// The backup-phrase factor on its own (src/factors/backup-phrase.ts): the share handed out once
// as 24 BIP-39 words (read back here with @scure/bip39, the reference implementation's port), the
// record keeping only its index, and a typed phrase checked by rebuilding the recorded key with the
// service's share (the public key computed here with @noble/curves): a right phrase in any case or
// spacing, a word changed with a valid checksum, a mistyped word failing the checksum, phrases of
// other lengths and of other accounts, and values that are not phrases. Through the service's
// `/api/mfa/factor` route over the SQLite store: how a wrong phrase counts against the attempt limits.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { combineShares, type KeyShare, randomPrivKey, splitKey } from '@portico/auth/protocol';
import { entropyToMnemonic, generateMnemonic, mnemonicToEntropy, validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { backupPhraseFactor } from '../src/factors/backup-phrase.ts';
import { FACTORS, typedFactorOf } from '../src/factors/index.ts';
import { HttpError } from '../src/http.ts';
import type { LoginContext } from '../src/login/context.ts';
import type { MfaRecord, SetupInput, SetupOutput } from '../src/mfa.ts';
import { ADDRESS, type FactorHarness, factorHarness, shareOf } from './factor-context.ts';

const check = backupPhraseFactor.check!;
/** `open` reads neither the context nor the caller. */
const NO_CTX = {} as LoginContext;
const CALLER = { userId: 'u', keyVerifier: 'main-verifier' };
const INPUT: SetupInput = { factors: ['backUpShareFactor'], dappShare: false, clientId: 'client-1' };

/** The phrase of a share, encoded by @scure/bip39 itself. */
const phraseOf = (share: KeyShare) => entropyToMnemonic(hexToBytes(share.value), wordlist);

/** A key split 2-of-3 and the record of an account whose backup share is `backup`. */
async function account() {
  const key = randomPrivKey();
  const [service, backup, other] = await splitKey(key, 3);
  const record = {
    serviceShare: service,
    publicKey: bytesToHex(secp256k1.getPublicKey(hexToBytes(key), true)),
    backupIndex: backup.index,
    devices: {},
  } as unknown as MfaRecord;
  return { key, service, backup, other, record };
}

function rejectsWith(status: number, code: string, message: string) {
  return (err: unknown) => {
    assert.ok(err instanceof HttpError, String(err));
    assert.deepEqual({ status: err.status, code: err.code, message: err.message }, { status, code, message });
    return true;
  };
}

const WRONG = { status: 401, message: 'Wrong backup phrase' };

describe('the backup-phrase factor: setup', () => {
  it('is the registry’s backUpShareFactor, typed as {backupPhrase}, with no setup input', () => {
    assert.equal(FACTORS.backUpShareFactor, backupPhraseFactor);
    assert.equal(backupPhraseFactor.key, 'backUpShareFactor');
    assert.equal(backupPhraseFactor.prepare, undefined);
    assert.equal(check.field, 'backupPhrase');
    assert.equal(check.auditName, 'backup phrase');
    assert.equal(typedFactorOf({ backupPhrase: 'x' })?.module, backupPhraseFactor);
  });

  it('the share leaves once, as the 24 BIP-39 words of its value; the record keeps only its index', async () => {
    const share: KeyShare = {
      index: 201,
      value: bytesToHex(Uint8Array.from({ length: 32 }, (_, i) => i * 7)),
    };
    const record = { devices: {} } as unknown as MfaRecord;
    const out = {} as SetupOutput;
    await backupPhraseFactor.seal(share, INPUT, record, out);
    assert.deepEqual(record, { devices: {}, backupIndex: 201 });
    assert.deepEqual(Object.keys(out), ['backupPhrase']);
    const phrase = out.backupPhrase!;
    assert.equal(phrase.split(' ').length, 24);
    assert.ok(validateMnemonic(phrase, wordlist), 'a valid BIP-39 phrase');
    assert.equal(bytesToHex(mnemonicToEntropy(phrase, wordlist)), share.value);
    assert.equal(phrase, phraseOf(share));
  });
});

describe('the backup-phrase factor: check', () => {
  let a: Awaited<ReturnType<typeof account>>;
  before(async () => {
    a = await account();
  });

  it('is ready only on an account with a backup index', () => {
    const { backupIndex: _, ...without } = a.record;
    assert.throws(
      () => check.ready(without as MfaRecord),
      rejectsWith(400, 'MFA_FACTOR_NOT_SET_UP', 'No backup phrase is set up for this account'),
    );
    assert.doesNotThrow(() => check.ready(a.record));
  });

  it('the right phrase releases the share at the recorded index', async () => {
    assert.deepEqual(await check.open(NO_CTX, a.record, phraseOf(a.backup), CALLER), { share: a.backup });
  });

  it('case, surrounding and repeated whitespace do not matter', async () => {
    const words = phraseOf(a.backup).split(' ');
    for (const typed of [
      words.join(' ').toUpperCase(),
      `  ${words.join('   ')}\n`,
      words.join('\t'),
      words.map((w, i) => (i % 2 ? w.toUpperCase() : w)).join(' '),
    ]) {
      assert.deepEqual(await check.open(NO_CTX, a.record, typed, CALLER), { share: a.backup }, typed);
    }
  });

  it('a changed word with a valid checksum is wrong: the rebuilt key is not the account’s', async () => {
    const entropy = hexToBytes(a.backup.value);
    entropy[31] ^= 1;
    const changed = entropyToMnemonic(entropy, wordlist);
    assert.ok(validateMnemonic(changed, wordlist), 'the changed phrase has a valid checksum');
    assert.deepEqual(await check.open(NO_CTX, a.record, changed, CALLER), WRONG);
  });

  it('a mistyped word fails the checksum', async () => {
    const words = phraseOf(a.backup).split(' ');
    const i = wordlist.indexOf(words[5]!);
    words[5] = wordlist[(i + 1) % wordlist.length]!;
    const typo = words.join(' ');
    assert.ok(!validateMnemonic(typo, wordlist), 'the typo fails the checksum');
    assert.deepEqual(await check.open(NO_CTX, a.record, typo, CALLER), WRONG);
    words[5] = 'notaword';
    assert.deepEqual(await check.open(NO_CTX, a.record, words.join(' '), CALLER), WRONG);
  });

  it('a phrase of 12, 23 or 25 words is wrong, even a valid one', async () => {
    const words = phraseOf(a.backup).split(' ');
    for (const phrase of [
      generateMnemonic(wordlist, 128),
      words.slice(0, 23).join(' '),
      [...words, words[0]].join(' '),
    ]) {
      assert.deepEqual(await check.open(NO_CTX, a.record, phrase, CALLER), WRONG, phrase);
    }
  });

  it('the phrase of another share of the same key, or of another account, is wrong', async () => {
    assert.deepEqual(await check.open(NO_CTX, a.record, phraseOf(a.other), CALLER), WRONG);
    assert.deepEqual(await check.open(NO_CTX, a.record, phraseOf(a.service), CALLER), WRONG);
    const b = await account();
    assert.deepEqual(await check.open(NO_CTX, a.record, phraseOf(b.backup), CALLER), WRONG);
    assert.deepEqual(await check.open(NO_CTX, b.record, phraseOf(b.backup), CALLER), { share: b.backup });
  });

  it('values that are not a phrase are wrong, not errors', async () => {
    for (const value of [
      undefined,
      null,
      '',
      42,
      { backupPhrase: phraseOf(a.backup) },
      phraseOf(a.backup).split(' '),
    ]) {
      assert.deepEqual(await check.open(NO_CTX, a.record, value, CALLER), WRONG, JSON.stringify(value));
    }
  });

  it('a record whose backup index is the service share’s cannot rebuild a key: wrong, not an error', async () => {
    const broken = { ...a.record, backupIndex: a.service.index };
    assert.deepEqual(await check.open(NO_CTX, broken, phraseOf(a.backup), CALLER), WRONG);
  });
});

describe('the backup-phrase factor at /api/mfa/factor (attempt limits, SQLite)', { timeout: 600_000 }, () => {
  let h: FactorHarness;
  let sessionId: string;
  let key: string;
  let phrase: string;
  let serviceShare: KeyShare;
  before(async () => {
    h = await factorHarness();
    const enabled = await h.enable('ada', ['deviceShareFactor', 'backUpShareFactor']);
    key = enabled.key;
    phrase = enabled.out.backupPhrase!;
    serviceShare = enabled.record.serviceShare;
    sessionId = await h.session({ userId: 'ada', keyVerifier: 'main-verifier' });
  });
  after(() => h?.close());

  it('the phrase handed out at setup answers the share, which rebuilds the key with the service’s', async () => {
    const share = shareOf(await h.factorCall(sessionId, { backupPhrase: phrase }));
    assert.equal(bytesToHex(mnemonicToEntropy(phrase, wordlist)), share.value);
    assert.equal(await combineShares(serviceShare, share), key);
    assert.deepEqual((await h.audit('ada')).at(-1), {
      event: 'mfa.factor',
      detail: { factor: 'backup phrase', address: ADDRESS, outcome: 'success' },
    });
  });

  it('a wrong phrase is a counted failure (401 MFA_FACTOR_INVALID), audited without the words', async () => {
    const words = phrase.split(' ');
    const wrong = [...words.slice(12), ...words.slice(0, 12)].join(' ');
    await assert.rejects(
      h.factorCall(sessionId, { backupPhrase: wrong }),
      rejectsWith(401, 'MFA_FACTOR_INVALID', 'Wrong backup phrase'),
    );
    assert.deepEqual(await h.failures('ada'), { user: 1, address: 1 });
    assert.deepEqual((await h.audit('ada')).at(-1), {
      event: 'mfa.factor',
      detail: {
        factor: 'backup phrase',
        address: ADDRESS,
        outcome: 'failure',
        reason: 'Wrong backup phrase',
      },
    });
    const trail = JSON.stringify(await h.store.readAudit({}));
    assert.ok(!trail.includes(wrong) && !trail.includes(phrase), 'no phrase in the audit trail');
    shareOf(await h.factorCall(sessionId, { backupPhrase: phrase }));
    assert.deepEqual(await h.failures('ada'), { user: 0, address: 1 });
  });

  it('an account without a backup phrase: 400 MFA_FACTOR_NOT_SET_UP, not counted, not audited', async () => {
    await h.enable('bob', ['deviceShareFactor', 'passwordFactor'], { password: 'bob password' });
    const bob = await h.session({ userId: 'bob', keyVerifier: 'main-verifier' });
    await assert.rejects(
      h.factorCall(bob, { backupPhrase: phrase }, '192.0.2.99'),
      rejectsWith(400, 'MFA_FACTOR_NOT_SET_UP', 'No backup phrase is set up for this account'),
    );
    assert.deepEqual(await h.failures('bob', '192.0.2.99'), { user: 0, address: 0 });
    assert.deepEqual(await h.audit('bob'), []);
  });
});
