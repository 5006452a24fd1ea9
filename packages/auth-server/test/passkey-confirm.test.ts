// The passkey MFA factor on `POST /api/mfa/confirm` (export policy `user`: the app never holds a
// share, so a session shows the second factor to the service, which marks its sign-in). The
// challenge comes from `POST /api/mfa/confirm/passkey`, signed by the session, and is bound to that
// sign-in; the software authenticator of ./soft-authenticator.ts answers it. A right answer marks
// the sign-in (the account ticket then opens); a replayed answer, another sign-in's challenge, a
// recovery challenge, a counter that does not move, and any answer during an attempt-limit wait are
// refused as `MFA_FACTOR_INVALID` (or `TOO_MANY_ATTEMPTS`) and mark nothing. A confirmation
// challenge never releases a share on `/api/mfa/factor`.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Harness, signed, USER_APP } from './confirm-harness.ts';
import { CLIENT_ID, park, post } from './helpers.ts';
import type { Bend, SoftAuthenticator } from './soft-authenticator.ts';

/** Asserts a refused confirmation: 401 `MFA_FACTOR_INVALID` with a message matching `reason`. */
function refused(res: Awaited<ReturnType<Harness['confirm']>>, reason: RegExp): void {
  assert.equal(res.status, 401, JSON.stringify(res.body));
  assert.equal(res.error.code, 'MFA_FACTOR_INVALID');
  assert.match(res.error.message, reason);
}

describe('confirming the second factor with the MFA passkey', { timeout: 120_000 }, () => {
  const h = new Harness();
  let device: SoftAuthenticator;
  before(async () => {
    await h.start({ failureFactor: 50 });
    device = h.authenticator();
    await h.setUp('pat', device);
  });
  after(() => h.stop());

  it('the session’s own challenge answered by the passkey marks its sign-in; the answer works once', async () => {
    const { sessionId } = await h.signIn('pat');
    assert.equal(await h.marked(sessionId), false);
    const { challengeId, options } = await h.challenge(sessionId);
    assert.equal(options.allowCredentials.length, 1, 'the account’s factor passkey is asked for');
    const response = device.get(options);
    const res = await h.confirm(sessionId, challengeId, response);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body, { ok: true }, 'no share is handed to the app');
    assert.equal(await h.marked(sessionId), true);

    // The same answer again, on another sign-in: its challenge is used up.
    const other = await h.signIn('pat');
    refused(await h.confirm(other.sessionId, challengeId, response), /unknown, used or expired/);
    // The old answer with the other sign-in's fresh challenge: it signed another challenge.
    const fresh = await h.challenge(other.sessionId);
    refused(await h.confirm(other.sessionId, fresh.challengeId, response), /challenge/i);
    assert.equal(await h.marked(other.sessionId), false);
  });

  it('refuses another sign-in’s challenge, a recovery challenge and a counter that does not move', async () => {
    const a = await h.signIn('pat');
    const b = await h.signIn('pat');
    // B's challenge answered by the passkey, sent by A: bound to B's sign-in.
    const ofB = await h.challenge(b.sessionId);
    refused(
      await h.confirm(a.sessionId, ofB.challengeId, device.get(ofB.options)),
      /unknown, used or expired/,
    );
    // A recovery screen's challenge for the same user (bound to the user, not to a sign-in).
    const { recovery } = await h.signIn('pat', CLIENT_ID);
    assert.ok(recovery);
    refused(
      await h.confirm(a.sessionId, recovery.challengeId, device.get(recovery.options)),
      /unknown, used or expired/,
    );
    // A clone of the authenticator answers with a counter it copied.
    const ofA = await h.challenge(a.sessionId);
    const counterNow: Bend = { counter: 1 };
    refused(await h.confirm(a.sessionId, ofA.challengeId, device.get(ofA.options, counterNow)), /counter/);
    // Not a passkey answer at all.
    const junk = await signed(h.base, '/api/mfa/confirm', a.sessionId, { passkeyAssertion: 'not an answer' });
    refused(junk, /passkey/i);
    assert.equal(await h.marked(a.sessionId), false);
    assert.equal(await h.marked(b.sessionId), false);

    const passkey = (await h.audit('mfa.factor')).filter((e) => e.detail.factor === 'passkey');
    assert.ok(passkey.some((e) => e.detail.outcome === 'success'));
    assert.ok(passkey.filter((e) => e.detail.outcome === 'failure').length >= 6, JSON.stringify(passkey));
  });

  it('a confirmation challenge releases no share on /api/mfa/factor', async () => {
    // A sign-in of the `app` app holds an MFA grant: it may ask /api/mfa/factor for a share.
    const { sessionId } = await h.signIn('pat', CLIENT_ID);
    const { challengeId, options } = await h.challenge(sessionId);
    const res = await signed(h.base, '/api/mfa/factor', sessionId, {
      passkeyAssertion: JSON.stringify({ challengeId, response: device.get(options) }),
    });
    assert.equal(res.status, 401, JSON.stringify(res.body));
    assert.equal(res.error.code, 'MFA_FACTOR_INVALID');
    assert.match(res.error.message, /unknown, used or expired/);
  });

  it('an account without the passkey factor gets no challenge; social backup is not taken', async () => {
    const plain = await park(
      h.base,
      { clientId: USER_APP },
      {
        loginProvider: 'jwt',
        mfaLevel: 'none',
        extraLoginOptions: { id_token: await h.issuer.sign({ sub: 'pia' }), verifierIdField: 'sub' },
      },
    );
    const login = await post(h.base, '/api/login/jwt', { loginId: plain });
    assert.equal(login.status, 200, JSON.stringify(login.body));
    const none = await signed(h.base, '/api/mfa/confirm/passkey', login.body.sessionId!);
    assert.equal(none.status, 404, JSON.stringify(none.body));
    assert.equal(none.error.code, 'MFA_NOT_ENABLED');

    const { sessionId } = await h.signIn('pat');
    const social = await signed(h.base, '/api/mfa/confirm', sessionId, {
      socialBackup: { verifier: 'jwt', id_token: 'x' },
    });
    assert.equal(social.status, 400, JSON.stringify(social.body));
    assert.match(social.error.message, /\{passkeyAssertion\}/);
  });
});

describe('confirming with the MFA passkey under the attempt limits', { timeout: 120_000 }, () => {
  const h = new Harness();
  let device: SoftAuthenticator;
  before(async () => {
    await h.start({ failureFactor: 2 });
    device = h.authenticator();
    await h.setUp('rae', device);
  });
  after(() => h.stop());

  it('past the failure factor even a right answer waits, and nothing is marked', async () => {
    const { sessionId } = await h.signIn('rae');
    // Wrong answers until the service says to wait (at the failure factor's failure, or the next).
    for (let i = 0; ; i++) {
      assert.ok(i < 4, 'the attempt limits never made the user wait');
      const wrong = await signed(h.base, '/api/mfa/confirm', sessionId, { passkeyAssertion: 'wrong' });
      if (wrong.status === 429) break;
      assert.equal(wrong.error.code, 'MFA_FACTOR_INVALID', JSON.stringify(wrong.body));
      if (wrong.error.retryAfter !== undefined) break;
    }
    const { challengeId, options } = await h.challenge(sessionId);
    const waiting = await h.confirm(sessionId, challengeId, device.get(options));
    assert.equal(waiting.status, 429, JSON.stringify(waiting.body));
    assert.equal(waiting.error.code, 'TOO_MANY_ATTEMPTS');
    assert.equal(await h.marked(sessionId), false);
  });
});
