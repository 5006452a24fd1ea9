// The authenticator-app code check on its own (`checkAuthenticatorCode`, `newAuthenticator`),
// against the independent RFC 6238 TOTP of ./helpers.ts: six digits over 30 s steps, one step of
// drift either way, each step once. Time is the `now` each check is given.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodeQR } from '@paulmillr/qr';
import { type AuthenticatorSecret, checkAuthenticatorCode, newAuthenticator } from '../src/authenticator.ts';
import { base32, totp } from './helpers.ts';

const STEP = 30_000;
/** A time in the middle of step 59,000,000 (2026). */
const STEP_NOW = 59_000_000;
const NOW = STEP_NOW * STEP + 12_345;

describe('authenticator codes (TOTP)', () => {
  const made = newAuthenticator('Portico Test', 'ada@example.com');
  /** RFC 6238's test key (base32 of "12345678901234567890"): the codes below are fixed. */
  const fixed = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
  const key = base32(fixed);
  const secret: AuthenticatorSecret = { secret: fixed };
  const codeAt = (at: number) => totp(key, at);

  it('a new secret is 160 random bits, shown as an otpauth:// URI (SHA1, 6 digits, 30 s) and a QR code', () => {
    assert.match(made.secret, /^[A-Z2-7]{32}$/);
    assert.equal(base32(made.secret).length, 20);
    assert.notEqual(newAuthenticator('Portico Test', 'ada@example.com').secret, made.secret);
    const uri = new URL(made.uri);
    assert.equal(uri.protocol, 'otpauth:');
    assert.equal(uri.host, 'totp');
    assert.equal(decodeURIComponent(uri.pathname), '/Portico Test:ada@example.com');
    assert.equal(uri.searchParams.get('issuer'), 'Portico Test');
    assert.equal(uri.searchParams.get('secret'), made.secret);
    assert.equal(uri.searchParams.get('algorithm'), 'SHA1');
    assert.equal(uri.searchParams.get('digits'), '6');
    assert.equal(uri.searchParams.get('period'), '30');
    assert.match(made.qrSvg, /^<svg[\s\S]*<\/svg>\s*$/);
  });

  it('the QR code encodes the URI with medium error correction', () => {
    assert.equal(made.qrSvg, encodeQR(made.uri, 'svg', { ecc: 'medium' }));
  });

  it('the code of now is accepted, and names its step', () => {
    assert.equal(checkAuthenticatorCode(secret, codeAt(NOW), NOW), STEP_NOW);
  });

  it('one step early or late is accepted (clock drift) and names the code’s own step; two is not', () => {
    assert.equal(checkAuthenticatorCode(secret, codeAt(NOW - STEP), NOW), STEP_NOW - 1);
    assert.equal(checkAuthenticatorCode(secret, codeAt(NOW + STEP), NOW), STEP_NOW + 1);
    assert.equal(checkAuthenticatorCode(secret, codeAt(NOW - 2 * STEP), NOW), undefined);
    assert.equal(checkAuthenticatorCode(secret, codeAt(NOW + 2 * STEP), NOW), undefined);
  });

  it('a code of the last step used, or before, is refused; the next step is accepted', () => {
    const code = codeAt(NOW);
    assert.equal(checkAuthenticatorCode({ ...secret, lastStep: STEP_NOW }, code, NOW), undefined);
    assert.equal(checkAuthenticatorCode({ ...secret, lastStep: STEP_NOW + 1 }, code, NOW), undefined);
    assert.equal(checkAuthenticatorCode({ ...secret, lastStep: STEP_NOW - 1 }, code, NOW), STEP_NOW);
    // Step 0 counts as used too (not "no step").
    assert.equal(checkAuthenticatorCode({ ...secret, lastStep: 0 }, totp(key, 10_000), 10_000), undefined);
    assert.equal(checkAuthenticatorCode(secret, totp(key, 10_000), 10_000), 0);
  });

  it('only six digits: not a code of another length, with spaces, signs or other characters', () => {
    const code = codeAt(NOW);
    for (const bad of [
      `${code}0`,
      `0${code}`,
      code.slice(1),
      ` ${code}`,
      `${code}\n`,
      `${code.slice(0, 3)} ${code.slice(3)}`,
      `+${code.slice(1)}`,
      '',
      'abcdef',
      totp(key, NOW, 8),
    ]) {
      assert.equal(checkAuthenticatorCode(secret, bad, NOW), undefined, JSON.stringify(bad));
    }
  });

  it('a code of another secret is refused', () => {
    assert.equal(checkAuthenticatorCode({ secret: made.secret }, codeAt(NOW), NOW), undefined);
    assert.equal(
      checkAuthenticatorCode({ secret: made.secret }, totp(base32(made.secret), NOW), NOW),
      STEP_NOW,
    );
  });
});
