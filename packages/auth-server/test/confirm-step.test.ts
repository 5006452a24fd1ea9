// The login page's confirmation step under export policy `user` (the app never holds the key nor a
// share): a page login of an MFA user stops on `{step: 'confirm'}` with the factors the service can
// check; a right factor on `/api/mfa/confirm/login` (typed, or the passkey's answer to a challenge
// from `/api/mfa/passkey {mode: 'confirm'}`) marks the sign-in the login made, so its session has
// the confirmed rights from the start; a wrong one is counted and may be tried again; `/later`
// skips it (the app can still confirm). Nothing of the key or a share reaches the page or the app.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decryptJson, storeKeyOf } from '@portico/auth/protocol';
import { type Challenge, Harness, PASSWORD, sessionOf, signed, USER_APP } from './confirm-harness.ts';
import { CLIENT_ID, park, post } from './helpers.ts';
import type { SoftAuthenticator } from './soft-authenticator.ts';

/** The session as the app reads it: no keys, no MFA data under `user`. */
async function payloadOf(base: string, sessionId: string): Promise<Record<string, unknown>> {
  const res = await post(base, '/api/session/get', { key: storeKeyOf(sessionId) });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return decryptJson<Record<string, unknown>>(sessionId, res.body.data!);
}

describe('the login page’s confirmation step under export policy user', { timeout: 600_000 }, () => {
  const h = new Harness();
  let device: SoftAuthenticator;
  before(async () => {
    await h.start();
    device = h.authenticator();
    await h.setUp('uma', device);
  });
  after(() => h.stop());

  it('a right password marks the new sign-in; the page and the app get no share', async () => {
    const { loginId, body } = await h.pageLogin('uma', USER_APP);
    assert.deepEqual(body.mfa, { step: 'confirm', factors: ['passkeysFactor', 'passwordFactor'] });
    // The page reloaded (or back from a provider) asks the same step again.
    const pending = await post(h.base, '/api/mfa/pending', { loginId });
    assert.deepEqual(pending.body, { step: 'confirm', factors: ['passkeysFactor', 'passwordFactor'] });
    const done = await post(h.base, '/api/mfa/confirm/login', { loginId, factor: { password: PASSWORD } });
    assert.equal(done.status, 200, JSON.stringify(done.body));
    assert.deepEqual(Object.keys(done.body), ['url'], 'only where the page goes on');
    const sessionId = sessionOf(done.body.url!);
    assert.equal(await h.marked(sessionId), true, 'the account ticket opens without confirmSecondFactor');
    const payload = await payloadOf(h.base, sessionId);
    assert.deepEqual(Object.keys(payload).sort(), ['keyExport', 'userInfo'], 'no keys, no MFA data');
    assert.equal(payload.keyExport, 'user');
    assert.equal((payload.userInfo as { dappShare: string }).dappShare, '');
    // The step is over.
    const again = await post(h.base, '/api/mfa/confirm/login', { loginId, factor: { password: PASSWORD } });
    assert.equal(again.status, 404, JSON.stringify(again.body));
  });

  it('a wrong factor is counted and marks nothing; the passkey then confirms', async () => {
    const { loginId } = await h.pageLogin('uma', USER_APP);
    const wrong = await post(h.base, '/api/mfa/confirm/login', {
      loginId,
      factor: { password: 'nope nope' },
    });
    assert.equal(wrong.status, 401, JSON.stringify(wrong.body));
    assert.equal(wrong.error.code, 'MFA_FACTOR_INVALID');
    const failures = (await h.audit('mfa.factor')).filter(
      (e) => e.detail.factor === 'password' && e.detail.outcome === 'failure',
    );
    assert.ok(failures.length >= 1);
    const made = await post(h.base, '/api/mfa/passkey', { loginId, mode: 'confirm' });
    assert.equal(made.status, 200, JSON.stringify(made.body));
    const { challengeId, options } = made.body as unknown as Challenge;
    const passkeyAssertion = JSON.stringify({ challengeId, response: device.get(options) });
    const done = await post(h.base, '/api/mfa/confirm/login', { loginId, factor: { passkeyAssertion } });
    assert.equal(done.status, 200, JSON.stringify(done.body));
    assert.equal(await h.marked(sessionOf(done.body.url!)), true);
  });

  it('the step’s passkey challenge serves only the sign-in of that login', async () => {
    const { loginId } = await h.pageLogin('uma', USER_APP);
    const made = await post(h.base, '/api/mfa/passkey', { loginId, mode: 'confirm' });
    const { challengeId, options } = made.body as unknown as Challenge;
    const other = await h.signIn('uma');
    const spent = await h.confirm(other.sessionId, challengeId, device.get(options));
    assert.equal(spent.status, 401, JSON.stringify(spent.body));
    assert.match(spent.error.message, /unknown, used or expired/);
    assert.equal(await h.marked(other.sessionId), false);
  });

  it('skipped: the sign-in is not marked, and the app may confirm later', async () => {
    const { loginId } = await h.pageLogin('uma', USER_APP);
    const later = await post(h.base, '/api/mfa/confirm/later', { loginId });
    assert.equal(later.status, 200, JSON.stringify(later.body));
    const sessionId = sessionOf(later.body.url!);
    assert.equal(await h.marked(sessionId), false);
    const confirmed = await signed(h.base, '/api/mfa/confirm', sessionId, { password: PASSWORD });
    assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
    assert.equal(await h.marked(sessionId), true);
    const gone = await post(h.base, '/api/mfa/confirm/later', { loginId });
    assert.equal(gone.status, 404, JSON.stringify(gone.body));
  });

  it('refuses a factor the account does not have; an `app` app still gets the recovery step', async () => {
    const { loginId } = await h.pageLogin('uma', USER_APP);
    const phrase = await post(h.base, '/api/mfa/confirm/login', {
      loginId,
      factor: { backupPhrase: 'abandon '.repeat(24).trim() },
    });
    assert.equal(phrase.status, 400, JSON.stringify(phrase.body));
    assert.equal(phrase.error.code, 'INVALID_BODY');
    const { body } = await h.pageLogin('uma', CLIENT_ID);
    assert.equal(body.mfa?.step, 'recover');
  });

  it('a user without MFA goes straight to the app', async () => {
    const loginId = await park(
      h.base,
      { clientId: USER_APP },
      {
        loginProvider: 'jwt',
        mfaLevel: 'none',
        extraLoginOptions: { id_token: await h.issuer.sign({ sub: 'una' }), verifierIdField: 'sub' },
      },
    );
    const res = await post(h.base, '/api/login/authorize', { loginId });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.ok(res.body.url, JSON.stringify(res.body));
  });
});
