// The factor registry: one module per factor of MFA_FACTORS (the type makes a missing one a compile
// error; this pins the rest), each under its own settings key, typed factors on distinct fields.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { is } from '@metamask/superstruct';
import { MFA_FACTORS } from '@portico/auth';
import { FACTORS, TYPED_FACTOR_PAYLOAD, typedFactorOf } from '../src/factors/index.ts';

test('every factor of MFA_FACTORS has its module, under its own key', () => {
  assert.deepEqual(Object.keys(FACTORS).sort(), [...MFA_FACTORS].sort());
  for (const [key, module] of Object.entries(FACTORS)) assert.equal(module.key, key);
});

test('a /api/mfa/factor payload names one typed factor by its field, of the right kind', () => {
  const fields = Object.values(FACTORS).flatMap((f) => (f.check ? [f.check.field] : []));
  assert.equal(new Set(fields).size, fields.length);
  assert.deepEqual(Object.keys(TYPED_FACTOR_PAYLOAD.schema).sort(), [...fields].sort());
  assert.equal(typedFactorOf({ password: 'x' })?.module.key, 'passwordFactor');
  assert.equal(typedFactorOf({ backupPhrase: 'a b c' })?.module.key, 'backUpShareFactor');
  assert.equal(typedFactorOf({ authenticatorCode: '123456' })?.module.key, 'authenticatorFactor');
  assert.equal(
    typedFactorOf({ socialBackup: { verifier: 'v', id_token: 't' } })?.module.key,
    'socialBackupFactor',
  );
  assert.equal(typedFactorOf({}), undefined);
  // The wrong kind of value is refused by the payload's schema before any module sees it.
  assert.equal(is({ password: 12345678 }, TYPED_FACTOR_PAYLOAD), false);
  assert.equal(is({ socialBackup: null }, TYPED_FACTOR_PAYLOAD), false);
  assert.equal(is({ socialBackup: { verifier: 'v' } }, TYPED_FACTOR_PAYLOAD), false);
});
