// The password factor on its own (src/factors/password.ts): the setup step's check of the
// password, the share sealed into the record (opened here by an independent scrypt + AES-256-GCM of
// node:crypto), a typed password opening it again, and, through the service's `/api/mfa/factor`
// route over the SQLite store, how a wrong password counts against the attempt limits while a
// factor that is not set up does not.
import assert from 'node:assert/strict';
import { createDecipheriv, scryptSync } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { combineShares, type KeyShare, secp256k1PublicKey } from '@portico/auth/protocol';
import { FACTORS, type SetupStep, typedFactorOf } from '../src/factors/index.ts';
import { passwordFactor } from '../src/factors/password.ts';
import { HttpError } from '../src/http.ts';
import type { LoginContext } from '../src/login/context.ts';
import type { MfaRecord, SetupInput, SetupOutput } from '../src/mfa.ts';
import { ADDRESS, type FactorHarness, factorHarness, LIMITS, shareOf } from './factor-context.ts';

const SHARE: KeyShare = { index: 7, value: 'a1'.repeat(32) };
const check = passwordFactor.check!;
/** `open` reads neither the context nor the caller. */
const NO_CTX = {} as LoginContext;
const CALLER = { userId: 'u', keyVerifier: 'main-verifier' };

/** The setup step as the password factor sees it (only the body is read). */
const step = (password?: string) =>
  ({ body: { loginId: 'login-1', factors: ['passwordFactor'], password } }) as unknown as SetupStep;

const input = (password?: string): SetupInput => ({
  factors: ['passwordFactor'],
  password,
  dappShare: false,
  clientId: 'client-1',
});

const emptyRecord = () => ({ devices: {} }) as unknown as MfaRecord;

async function sealed(password: string, share = SHARE): Promise<MfaRecord> {
  const record = emptyRecord();
  await passwordFactor.seal(share, input(password), record, {} as SetupOutput);
  return record;
}

/** Opens a sealed password share without the library: scrypt and AES-256-GCM of node:crypto. */
function openIndependently(sealedShare: string, password: string): KeyShare {
  const s = JSON.parse(sealedShare) as Record<string, string | number>;
  const key = scryptSync(password.normalize('NFKC'), Buffer.from(String(s.salt), 'hex'), 32, {
    N: Number(s.N),
    r: Number(s.r),
    p: Number(s.p),
    maxmem: 64 * 1024 * 1024,
  });
  const ct = Buffer.from(String(s.ct), 'hex');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(String(s.nonce), 'hex'));
  decipher.setAAD(Buffer.from(`portico-mfa-password:${s.index}`));
  decipher.setAuthTag(ct.subarray(ct.length - 16));
  const value = Buffer.concat([decipher.update(ct.subarray(0, ct.length - 16)), decipher.final()]);
  return { index: Number(s.index), value: value.toString('hex') };
}

function rejectsWith(status: number, code: string, message: string) {
  return (err: unknown) => {
    assert.ok(err instanceof HttpError, String(err));
    assert.deepEqual({ status: err.status, code: err.code, message: err.message }, { status, code, message });
    return true;
  };
}

describe('the password factor: setup', () => {
  it('is the registry’s passwordFactor, typed as {password}', () => {
    assert.equal(FACTORS.passwordFactor, passwordFactor);
    assert.equal(passwordFactor.key, 'passwordFactor');
    assert.equal(check.field, 'password');
    assert.equal(check.auditName, 'password');
    assert.equal(typedFactorOf({ password: 'x' })?.module, passwordFactor);
  });

  it('a password of 8 characters or more is taken as typed', async () => {
    assert.deepEqual(await passwordFactor.prepare!(step('12345678')), { password: '12345678' });
    const long = ' correct horse battery staple ';
    assert.deepEqual(await passwordFactor.prepare!(step(long)), { password: long });
  });

  it('no password, an empty one or one of 7 characters is refused before anything is enabled', async () => {
    for (const password of [undefined, '', '1234567']) {
      await assert.rejects(
        passwordFactor.prepare!(step(password)),
        rejectsWith(400, 'MFA_SETUP_INVALID', 'The password needs at least 8 characters'),
        JSON.stringify(password),
      );
    }
  });

  it('sealing without a password is a programming error, and writes nothing', async () => {
    const record = emptyRecord();
    await assert.rejects(
      async () => passwordFactor.seal(SHARE, input(undefined), record, {} as SetupOutput),
      {
        name: 'Error',
        message: 'The password factor needs a password',
      },
    );
    await assert.rejects(async () => passwordFactor.seal(SHARE, input(''), record, {} as SetupOutput), {
      message: 'The password factor needs a password',
    });
    assert.equal(record.passwordShare, undefined);
  });

  it('the share is sealed in the record under scrypt(password) and AES-256-GCM, and nothing leaves', async () => {
    const record = emptyRecord();
    const out = {} as SetupOutput;
    await passwordFactor.seal(SHARE, input('ünïcode pass'), record, out);
    assert.deepEqual(out, {});
    const s = JSON.parse(record.passwordShare!) as Record<string, unknown>;
    assert.deepEqual(
      { v: s.v, kdf: s.kdf, N: s.N, r: s.r, p: s.p, index: s.index },
      { v: 1, kdf: 'scrypt', N: 2 ** 15, r: 8, p: 1, index: 7 },
    );
    assert.ok(!record.passwordShare!.includes(SHARE.value), 'the share is not in the clear');
    assert.deepEqual(openIndependently(record.passwordShare!, 'ünïcode pass'), SHARE);
    assert.throws(() => openIndependently(record.passwordShare!, 'ünïcode pasS'));
  });

  it('each seal has its own salt and nonce', async () => {
    const a = JSON.parse((await sealed('same password')).passwordShare!);
    const b = JSON.parse((await sealed('same password')).passwordShare!);
    assert.notEqual(a.salt, b.salt);
    assert.notEqual(a.nonce, b.nonce);
  });
});

describe('the password factor: check', () => {
  let record: MfaRecord;
  before(async () => {
    record = await sealed('right password');
  });

  it('is ready only on an account with a sealed password share', () => {
    assert.throws(
      () => check.ready(emptyRecord()),
      rejectsWith(400, 'MFA_FACTOR_NOT_SET_UP', 'No password is set up for this account'),
    );
    assert.doesNotThrow(() => check.ready(record));
  });

  it('the right password opens the share', async () => {
    assert.deepEqual(await check.open(NO_CTX, record, 'right password', CALLER), { share: SHARE });
  });

  it('a password one character off, empty or with a space more is wrong (401)', async () => {
    for (const wrong of ['right passworD', 'right password ', '']) {
      assert.deepEqual(
        await check.open(NO_CTX, record, wrong, CALLER),
        { status: 401, message: 'Wrong password' },
        JSON.stringify(wrong),
      );
    }
  });

  it('a value that is not a string is read as its text: a number can be the password, an object is wrong', async () => {
    const digits = await sealed('12345678');
    assert.deepEqual(await check.open(NO_CTX, digits, 12345678, CALLER), { share: SHARE });
    for (const value of [{ password: '12345678' }, undefined]) {
      assert.deepEqual(await check.open(NO_CTX, digits, value, CALLER), {
        status: 401,
        message: 'Wrong password',
      });
    }
  });

  it('a share sealed for another index does not open as this one (the index is bound)', async () => {
    const moved = JSON.parse(record.passwordShare!) as Record<string, unknown>;
    moved.index = 8;
    assert.deepEqual(
      await check.open(NO_CTX, { ...record, passwordShare: JSON.stringify(moved) }, 'right password', CALLER),
      { status: 401, message: 'Wrong password' },
    );
  });
});

describe('the password factor at /api/mfa/factor (attempt limits, SQLite)', { timeout: 600_000 }, () => {
  let h: FactorHarness;
  let sessionId: string;
  let key: string;
  let serviceShare: KeyShare;
  before(async () => {
    h = await factorHarness();
    const enabled = await h.enable('ada', ['deviceShareFactor', 'passwordFactor'], {
      password: 'right password',
    });
    key = enabled.key;
    serviceShare = enabled.record.serviceShare;
    assert.equal(enabled.out.backupPhrase, undefined);
    sessionId = await h.session({ userId: 'ada', keyVerifier: 'main-verifier' });
  });
  after(() => h?.close());

  it('the right password answers the share, which rebuilds the key with the service’s', async () => {
    const share = shareOf(await h.factorCall(sessionId, { password: 'right password' }));
    assert.equal(await combineShares(serviceShare, share), key);
    assert.equal(secp256k1PublicKey(key), (await h.ctx.mfaStore.load('ada'))!.publicKey);
    assert.deepEqual((await h.audit('ada')).at(-1), {
      event: 'mfa.factor',
      detail: { factor: 'password', address: ADDRESS, outcome: 'success' },
    });
  });

  it('a wrong password is a counted failure (401 MFA_FACTOR_INVALID), audited without the value', async () => {
    await assert.rejects(
      h.factorCall(sessionId, { password: 'wrong password' }),
      rejectsWith(401, 'MFA_FACTOR_INVALID', 'Wrong password'),
    );
    assert.deepEqual(await h.failures('ada'), { user: 1, address: 1 });
    const last = (await h.audit('ada')).at(-1)!;
    assert.deepEqual(last, {
      event: 'mfa.factor',
      detail: { factor: 'password', address: ADDRESS, outcome: 'failure', reason: 'Wrong password' },
    });
    assert.ok(
      !JSON.stringify(await h.store.readAudit({})).includes('wrong password'),
      'the typed password is not in the audit trail',
    );
  });

  it('the failure factor’s wrong password starts a wait; the right one after it clears the user’s count', async () => {
    await assert.rejects(h.factorCall(sessionId, { password: 'wrong password' }));
    await assert.rejects(h.factorCall(sessionId, { password: 'wrong password' }), (err: unknown) => {
      assert.ok(err instanceof HttpError, String(err));
      assert.equal(err.code, 'MFA_FACTOR_INVALID');
      assert.match(err.message, /^Wrong password\. /);
      assert.deepEqual(err.details, { retryAfter: LIMITS.waitIncrementSeconds });
      return true;
    });
    assert.deepEqual(await h.failures('ada'), { user: 3, address: 3 });
    h.clock.now += LIMITS.waitIncrementSeconds * 1000;
    shareOf(await h.factorCall(sessionId, { password: 'right password' }));
    assert.deepEqual(await h.failures('ada'), { user: 0, address: 3 });
  });

  it('an account without a password share: 400 MFA_FACTOR_NOT_SET_UP, not counted, not audited', async () => {
    await h.enable('bob', ['deviceShareFactor', 'backUpShareFactor']);
    const bob = await h.session({ userId: 'bob', keyVerifier: 'main-verifier' });
    const audited = (await h.audit('bob')).length;
    await assert.rejects(
      h.factorCall(bob, { password: 'right password' }, '192.0.2.99'),
      rejectsWith(400, 'MFA_FACTOR_NOT_SET_UP', 'No password is set up for this account'),
    );
    assert.deepEqual(await h.failures('bob', '192.0.2.99'), { user: 0, address: 0 });
    assert.equal((await h.audit('bob')).length, audited);
  });
});
