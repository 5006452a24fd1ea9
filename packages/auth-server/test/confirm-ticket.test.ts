// The passkey confirmation page's ticket and token (`/api/mfa/confirm/ticket`, `/open`,
// `/challenge`, `/answer`, and `/status` which the library polls): the app's session asks for a
// one-time ticket, the page (here: the test, answering with the software authenticator) trades it
// for a page token and a challenge bound to that sign-in, and a right answer marks that sign-in
// only. A ticket opens once, expires after 120 s (the service's clock is moved), is refused after
// the sign-in's logout, and `/open` counts under `rateLimits` like the other guessable steps.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { signStoreMessage, storeKeyOf } from '@portico/auth/protocol';
import { type Challenge, Harness, signed } from './confirm-harness.ts';
import { CLIENT_ID, park, post } from './helpers.ts';
import type { SoftAuthenticator } from './soft-authenticator.ts';

interface Opened extends Challenge {
  token: string;
  expiresIn: number;
}

async function ticketOf(h: Harness, sessionId: string): Promise<string> {
  const res = await signed(h.base, '/api/mfa/confirm/ticket', sessionId);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.match(res.body.ticket!, /^[0-9a-f]{64}$/);
  assert.equal(res.body.expiresIn, 120 as unknown as string);
  return res.body.ticket!;
}

async function open(h: Harness, ticket: string): Promise<Opened> {
  const res = await post(h.base, '/api/mfa/confirm/open', { ticket });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body as unknown as Opened;
}

async function status(h: Harness, sessionId: string): Promise<boolean> {
  const res = await signed(h.base, '/api/mfa/confirm/status', sessionId);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return (res.body as unknown as { confirmed: boolean }).confirmed;
}

function answer(h: Harness, token: string, challengeId: string, response: unknown) {
  return post(h.base, '/api/mfa/confirm/answer', {
    token,
    passkeyAssertion: JSON.stringify({ challengeId, response }),
  });
}

describe('the passkey confirmation page’s ticket', { timeout: 600_000 }, () => {
  const h = new Harness();
  let device: SoftAuthenticator;
  before(async () => {
    await h.start();
    device = h.authenticator();
    await h.setUp('tess', device);
  });
  after(() => h.stop());

  it('the page trades the ticket for a challenge; the passkey’s answer marks this sign-in only', async () => {
    const { sessionId } = await h.signIn('tess');
    const other = await h.signIn('tess');
    assert.equal(await status(h, sessionId), false);
    const page = await open(h, await ticketOf(h, sessionId));
    assert.match(page.token, /^[0-9a-f]{64}$/);
    assert.equal(page.options.allowCredentials.length, 1, 'the account’s factor passkey is asked for');
    const res = await answer(h, page.token, page.challengeId, device.get(page.options));
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body, { ok: true }, 'no share is handed to the page');
    assert.equal(await status(h, sessionId), true);
    assert.equal(await h.marked(sessionId), true, 'the account ticket opens now');
    // Another sign-in of the same user is not marked.
    assert.equal(await status(h, other.sessionId), false);
    assert.equal(await h.marked(other.sessionId), false);
    // The page token ended with the confirmation.
    const again = await post(h.base, '/api/mfa/confirm/challenge', { token: page.token });
    assert.equal(again.status, 401, JSON.stringify(again.body));
    assert.equal(again.error.code, 'CONFIRM_PAGE_EXPIRED');
  });

  it('the page is served like the login page: its own scripts only, never framed, not cached', async () => {
    const res = await fetch(`${h.base}/confirm`);
    assert.equal(res.status, 200);
    const csp = res.headers.get('content-security-policy') ?? '';
    assert.match(csp, /script-src 'self'/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.equal(res.headers.get('referrer-policy'), 'no-referrer');
    assert.equal(res.headers.get('cache-control'), 'no-store');
    assert.match(await res.text(), /<script type="module" src="\/static\/confirm.js"><\/script>/);
    for (const file of ['confirm.js', 'confirm-strings.js']) {
      const script = await fetch(`${h.base}/static/${file}`);
      assert.equal(script.status, 200, file);
    }
  });

  it('a ticket opens once', async () => {
    const { sessionId } = await h.signIn('tess');
    const ticket = await ticketOf(h, sessionId);
    await open(h, ticket);
    const second = await post(h.base, '/api/mfa/confirm/open', { ticket });
    assert.equal(second.status, 401, JSON.stringify(second.body));
    assert.equal(second.error.code, 'CONFIRM_TICKET_INVALID');
    const unknown = await post(h.base, '/api/mfa/confirm/open', { ticket: 'a'.repeat(64) });
    assert.equal(unknown.error.code, 'CONFIRM_TICKET_INVALID');
  });

  it('a ticket expires after 120 s', async () => {
    const { sessionId } = await h.signIn('tess');
    const ticket = await ticketOf(h, sessionId);
    h.advance(121_000);
    const late = await post(h.base, '/api/mfa/confirm/open', { ticket });
    assert.equal(late.status, 401, JSON.stringify(late.body));
    assert.equal(late.error.code, 'CONFIRM_TICKET_INVALID');
    assert.equal(await status(h, sessionId), false);
  });

  it('a ticket or page of a sign-in that logged out confirms nothing', async () => {
    const { sessionId } = await h.signIn('tess');
    const ticket = await ticketOf(h, sessionId);
    const page = await open(h, await ticketOf(h, sessionId));
    const key = storeKeyOf(sessionId);
    const out = await post(h.base, '/api/session/invalidate', {
      key,
      signature: signStoreMessage(sessionId, `invalidate:${key}`),
    });
    assert.equal(out.status, 200, JSON.stringify(out.body));
    const opened = await post(h.base, '/api/mfa/confirm/open', { ticket });
    assert.equal(opened.status, 401, JSON.stringify(opened.body));
    assert.equal(opened.error.code, 'CONFIRM_PAGE_EXPIRED');
    const answered = await answer(h, page.token, page.challengeId, device.get(page.options));
    assert.equal(answered.status, 401, JSON.stringify(answered.body));
    assert.equal(answered.error.code, 'CONFIRM_PAGE_EXPIRED');
  });

  it('a wrong answer marks nothing and is counted; the page asks for another challenge', async () => {
    const { sessionId } = await h.signIn('tess');
    const page = await open(h, await ticketOf(h, sessionId));
    const wrong = await answer(h, page.token, page.challengeId, { id: 'not-the-passkey' });
    assert.equal(wrong.status, 401, JSON.stringify(wrong.body));
    assert.equal(wrong.error.code, 'MFA_FACTOR_INVALID');
    assert.equal(await status(h, sessionId), false);
    // The refused answer used the challenge up: the same one again is refused.
    const replay = await answer(h, page.token, page.challengeId, device.get(page.options));
    assert.equal(replay.error.code, 'MFA_FACTOR_INVALID');
    const fresh = await post(h.base, '/api/mfa/confirm/challenge', { token: page.token });
    assert.equal(fresh.status, 200, JSON.stringify(fresh.body));
    const next = fresh.body as unknown as Challenge;
    const right = await answer(h, page.token, next.challengeId, device.get(next.options));
    assert.equal(right.status, 200, JSON.stringify(right.body));
    assert.equal(await status(h, sessionId), true);
    const outcomes = (await h.audit('mfa.factor'))
      .filter((e) => e.detail.factor === 'passkey')
      .map((e) => e.detail.outcome);
    assert.ok(outcomes.filter((o) => o === 'failure').length >= 2, JSON.stringify(outcomes));
  });

  it('no ticket for an account without the passkey factor, nor one without MFA', async () => {
    const plain = await park(
      h.base,
      { clientId: CLIENT_ID },
      {
        loginProvider: 'jwt',
        mfaLevel: 'none',
        extraLoginOptions: { id_token: await h.issuer.sign({ sub: 'noor' }), verifierIdField: 'sub' },
      },
    );
    const login = await post(h.base, '/api/login/jwt', { loginId: plain });
    assert.equal(login.status, 200, JSON.stringify(login.body));
    const none = await signed(h.base, '/api/mfa/confirm/ticket', login.body.sessionId!);
    assert.equal(none.status, 404, JSON.stringify(none.body));
    assert.equal(none.error.code, 'MFA_NOT_ENABLED');
    // A signature by another key is refused before anything.
    const forged = await post(h.base, '/api/mfa/confirm/ticket', {
      key: storeKeyOf(login.body.sessionId!),
      payload: {},
      signature: '00'.repeat(64),
    });
    assert.equal(forged.status, 401, JSON.stringify(forged.body));
    assert.equal(forged.error.code, 'BAD_SIGNATURE');
  });
});

describe('the passkey confirmation page under the rate limits', { timeout: 600_000 }, () => {
  const h = new Harness();
  before(() => h.start({ rateLimits: { tokensPerMinute: 3 } }));
  after(() => h.stop());

  it('guessing tickets from one address is cut off past tokensPerMinute', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await post(h.base, '/api/mfa/confirm/open', { ticket: `${i}`.repeat(64) });
      assert.equal(res.error.code, 'CONFIRM_TICKET_INVALID', JSON.stringify(res.body));
    }
    const cut = await post(h.base, '/api/mfa/confirm/open', { ticket: '9'.repeat(64) });
    assert.equal(cut.status, 429, JSON.stringify(cut.body));
    assert.equal(cut.error.code, 'RATE_LIMITED');
    for (const path of ['/api/mfa/confirm/challenge', '/api/mfa/confirm/answer']) {
      for (let i = 0; i < 3; i++) await post(h.base, path, { token: 'a'.repeat(64) });
      const res = await post(h.base, path, { token: 'a'.repeat(64) });
      assert.equal(res.status, 429, `${path}: ${JSON.stringify(res.body)}`);
    }
  });
});
