// The session chain on its own (`SessionChains` over the SQLite store, no HTTP): the first window
// within maxSessionTime, each renewal's window and idToken, the rotated key's grace and its reuse
// ending the sign-in (audited), the MFA grant and second-factor mark following or ending with the
// chain, and what the library and the operator see. Time is the `now` each call is given.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decryptJson, randomPrivKey, signStoreMessage, storeKeyOf } from '@portico/auth/protocol';
import { tempDir } from '@portico/testkit';
import { decodeJwt } from 'jose';
import { AuditLog } from '../src/audit.ts';
import { Envelope } from '../src/envelope.ts';
import { HttpError } from '../src/http.ts';
import { TokenSigner } from '../src/keys.ts';
import { openJson, sealJson } from '../src/login/sealed.ts';
import { markName } from '../src/second-factor.ts';
import { REUSE_GRACE_MS, SessionChains, SessionError, sessionInfo } from '../src/sessions.ts';
import { SqliteStore } from '../src/store/sqlite.ts';

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 0, 1);
const message = (key: string) => `renew:${key}`;

describe('session chains (renewal, rotation, reuse, the absolute cap)', { timeout: 600_000 }, () => {
  const dir = tempDir('portico-session-chains-');
  let store: SqliteStore;
  let envelope: Envelope;
  let audit: AuditLog;
  let signer: TokenSigner;
  let users = 0;

  const chainsWith = (maxSessionTime?: number) =>
    new SessionChains({ store, envelope, audit, signer, maxSessionTime });

  /** A device key: its private half (the device) and the store key (the sessionId). */
  const deviceKey = () => {
    const priv = randomPrivKey();
    return { priv, key: storeKeyOf(priv) };
  };

  /** Signs in a fresh user: the first session stored under a new key and its chain started. */
  async function signIn(
    chains: SessionChains,
    {
      now = T0,
      sessionTime = 3600,
      clientId = 'app',
      userId = `user-${++users}`,
      device,
    }: {
      now?: number;
      sessionTime?: number;
      clientId?: string;
      userId?: string;
      device?: unknown;
    } = {},
  ) {
    const first = deviceKey();
    const expiresAt = chains.firstExpiry(now, sessionTime);
    await store.putSession(first.key, 'data-0', expiresAt);
    await chains.start(
      first.key,
      userId,
      clientId,
      sessionTime,
      now,
      { sub: userId, email: 'a@b.c' },
      device,
    );
    const chain = await chains.caller(
      first.key,
      message,
      signStoreMessage(first.priv, message(first.key)),
      now,
    );
    return { first, chain, userId, expiresAt };
  }

  /** The caller's chain for `key`, signed as the library signs. */
  const call = (chains: SessionChains, k: { priv: string; key: string }, now: number) =>
    chains.caller(k.key, message, signStoreMessage(k.priv, message(k.key)), now);

  async function refused(promise: Promise<unknown>): Promise<HttpError> {
    const error = await promise.then(
      () => assert.fail('expected a refusal'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof HttpError, String(error));
    return error;
  }

  before(async () => {
    store = new SqliteStore(dir.path);
    envelope = new Envelope(new Uint8Array(32).fill(7));
    audit = new AuditLog(
      store,
      () => T0,
      () => {},
    );
    signer = await TokenSigner.load(store, envelope, 'https://auth.test');
  });
  after(async () => {
    await store?.close();
    dir.cleanup();
  });

  it('the first window is the idle window, shortened to the operator’s cap; without a cap it is not', () => {
    assert.equal(chainsWith().firstExpiry(T0, 3600), T0 + HOUR);
    assert.equal(chainsWith(7200).firstExpiry(T0, 3600), T0 + HOUR);
    assert.equal(chainsWith(1800).firstExpiry(T0, 3600), T0 + HOUR / 2);
  });

  it('a renewal moves the session to the new key with a new idle window and an idToken for it', async () => {
    const chains = chainsWith();
    const { first, chain, userId } = await signIn(chains, { sessionTime: 3600 });
    const at = T0 + 20 * 60_000;
    const next = deviceKey();
    const { expiresAt, token } = await chains.renew(chain, next.key, 'data-1', at);
    assert.equal(expiresAt, at + HOUR);
    assert.equal(await store.getSession(next.key, at), 'data-1');
    assert.equal(await store.getSession(first.key, at), undefined);
    const { idToken } = decryptJson<{ idToken: string }>(next.priv, token);
    const claims = decodeJwt(idToken);
    assert.equal(claims.sub, userId);
    assert.equal(claims.email, 'a@b.c');
    assert.equal(claims.aud, 'app');
    assert.equal(claims.iss, 'https://auth.test');
    assert.equal(claims.exp! - claims.iat!, 3600);
    assert.match(String(claims.nonce), /^[0-9a-f]{32}$/);
    // The new key is the chain's now; the renewed chain renews again from it.
    const renewed = await call(chains, next, at + 1000);
    assert.equal(renewed.id, chain.id);
    assert.equal(renewed.currentKey, next.key);
    const again = await chains.renew(renewed, deviceKey().key, 'data-2', at + 2000);
    assert.equal(again.expiresAt, at + 2000 + HOUR);
  });

  it('renewals never pass maxSessionTime, and the idToken is valid for what is left (at least 1 s)', async () => {
    const chains = chainsWith(5400); // 1.5 h cap, 1 h idle window
    const { chain } = await signIn(chains, { sessionTime: 3600 });
    const endsAt = T0 + 1.5 * HOUR;
    const at = T0 + 50 * 60_000;
    const next = deviceKey();
    const renewal = await chains.renew(chain, next.key, 'data-1', at);
    assert.equal(renewal.expiresAt, endsAt);
    const claims = decodeJwt(decryptJson<{ idToken: string }>(next.priv, renewal.token).idToken);
    assert.equal(claims.exp! - claims.iat!, 40 * 60);
    // 0.4 s before the end: the idToken still gets a whole second (never 0, which jose reads as now).
    const last = deviceKey();
    const late = await chains.renew(await call(chains, next, endsAt - 400), last.key, 'data-2', endsAt - 400);
    assert.equal(late.expiresAt, endsAt);
    const lateClaims = decodeJwt(decryptJson<{ idToken: string }>(last.priv, late.token).idToken);
    assert.equal(lateClaims.exp! - lateClaims.iat!, 1);
    // 1.6 s before the end: rounded to 2 s.
    const { chain: other } = await signIn(chains, { sessionTime: 7200 });
    const k = deviceKey();
    const r = await chains.renew(other, k.key, 'd', endsAt - 1600);
    const rounded = decodeJwt(decryptJson<{ idToken: string }>(k.priv, r.token).idToken);
    assert.equal(rounded.exp! - rounded.iat!, 2);
  });

  it('a wrong signature is refused before the store is asked', async () => {
    const chains = chainsWith();
    const { first } = await signIn(chains);
    const stranger = deviceKey();
    const error = await refused(
      chains.caller(first.key, message, signStoreMessage(stranger.priv, message(first.key)), T0),
    );
    assert.equal(error.status, 401);
    assert.equal(error.code, 'BAD_SIGNATURE');
    assert.equal(error.message, 'Bad signature');
    assert.ok(!(error instanceof SessionError));
    // Signed over another message (the callback's, for this key) is wrong too.
    const other = await refused(
      chains.caller(first.key, message, signStoreMessage(first.priv, `other:${first.key}`), T0),
    );
    assert.equal(other.code, 'BAD_SIGNATURE');
  });

  it('an unknown key is not found', async () => {
    const chains = chainsWith();
    const k = deviceKey();
    const error = await refused(call(chains, k, T0));
    assert.ok(error instanceof SessionError);
    assert.equal(error.name, 'SessionError');
    assert.equal(error.status, 404);
    assert.equal(error.code, 'SESSION_NOT_FOUND');
    assert.equal(error.message, 'Session not found or expired');
  });

  it('the rotated key within the grace (two tabs) is told to use the new one; the chain lives on', async () => {
    const chains = chainsWith();
    const { first, chain } = await signIn(chains);
    const at = T0 + 60_000;
    const next = deviceKey();
    await chains.renew(chain, next.key, 'data-1', at);
    for (const when of [at, at + REUSE_GRACE_MS]) {
      const error = await refused(call(chains, first, when));
      assert.ok(error instanceof SessionError);
      assert.equal(error.status, 409);
      assert.equal(error.code, 'SESSION_ROTATED');
      assert.equal(error.message, 'This session was just renewed: use the new sessionId');
    }
    assert.equal((await call(chains, next, at + REUSE_GRACE_MS)).id, chain.id);
    assert.equal(REUSE_GRACE_MS, 30_000);
  });

  it('the rotated key past the grace ends the whole sign-in, its grant and mark, and is audited', async () => {
    const chains = chainsWith();
    const { first, chain, userId } = await signIn(chains, { clientId: 'reuse-app' });
    const at = T0 + 60_000;
    const next = deviceKey();
    await chains.renew(chain, next.key, 'data-1', at);
    await store.putSession(`mfa-grant:${next.key}`, 'grant', at + HOUR);
    await store.putSession(markName(chain.id), 'mark', at + HOUR);
    const late = at + REUSE_GRACE_MS + 1;
    const error = await refused(call(chains, first, late));
    assert.ok(error instanceof SessionError);
    assert.equal(error.status, 401);
    assert.equal(error.code, 'SESSION_REUSED');
    assert.equal(
      error.message,
      'This sessionId was renewed before: it may have been copied, so every session of this sign-in has ended',
    );
    // The thief's copy and the device's current key are both dead now.
    assert.equal(await store.getSession(next.key, late), undefined);
    assert.equal(await store.getSession(`mfa-grant:${next.key}`, late), undefined);
    assert.equal(await store.getSession(markName(chain.id), late), undefined);
    const current = await refused(call(chains, next, late));
    assert.equal(current.code, 'SESSION_NOT_FOUND');
    assert.equal(current.status, 404);
    const entries = await audit.read({ userId, event: 'session.reused' });
    assert.equal(entries.length, 1);
    assert.deepEqual(JSON.parse(entries[0]!.detail), {
      outcome: 'refused',
      clientId: 'reuse-app',
      reason: 'a sessionId was used after it was renewed',
    });
    // Presented again: not found (the chain has ended), and not audited twice.
    assert.equal((await refused(call(chains, first, late + 1))).code, 'SESSION_NOT_FOUND');
    assert.equal((await audit.read({ userId, event: 'session.reused' })).length, 1);
  });

  it('a renewal of a chain whose key moved on already (a race) is not found, and changes nothing', async () => {
    const chains = chainsWith();
    const { chain } = await signIn(chains);
    const winner = deviceKey();
    await chains.renew(chain, winner.key, 'data-1', T0 + 1000);
    const loser = deviceKey();
    const error = await refused(chains.renew(chain, loser.key, 'data-x', T0 + 1000));
    assert.ok(error instanceof SessionError);
    assert.equal(error.status, 404);
    assert.equal(error.code, 'SESSION_NOT_FOUND');
    assert.equal(error.message, 'Session not found or expired');
    assert.equal(await store.getSession(loser.key, T0 + 1000), undefined);
    assert.equal(await store.getSession(winner.key, T0 + 1000), 'data-1');
  });

  it('the MFA grant follows the session to its new key, until the new window ends', async () => {
    const chains = chainsWith();
    const { first, chain } = await signIn(chains);
    const grant = { userId: 'g', keyVerifier: 'jwt', network: 'sapphire_devnet' };
    const oldName = `mfa-grant:${first.key}`;
    await store.putSession(oldName, sealJson(envelope, oldName, grant), T0 + HOUR);
    const at = T0 + 10 * 60_000;
    const next = deviceKey();
    const { expiresAt } = await chains.renew(chain, next.key, 'data-1', at);
    assert.equal(await store.getSession(oldName, at), undefined);
    const newName = `mfa-grant:${next.key}`;
    const entry = await store.getSessionEntry(newName, at);
    assert.ok(entry, 'the grant moved');
    assert.equal(entry.expiresAt, expiresAt);
    assert.deepEqual(openJson(envelope, newName, entry.data), grant);
    // A session without a grant renews without one.
    const last = deviceKey();
    await store.deleteSession(newName);
    await chains.renew(await call(chains, next, at + 1), last.key, 'data-2', at + 1);
    assert.equal(await store.getSession(`mfa-grant:${last.key}`, at + 1), undefined);
  });

  it('ending a chain ends its session, grant and mark once; ending it again says so', async () => {
    const chains = chainsWith();
    const { first, chain } = await signIn(chains);
    await store.putSession(`mfa-grant:${first.key}`, 'grant', T0 + HOUR);
    await store.putSession(markName(chain.id), 'mark', T0 + HOUR);
    await store.putSession('mfa-grant:someone-else', 'grant', T0 + HOUR);
    assert.equal(await chains.end(chain, T0 + 1), true);
    assert.equal(await store.getSession(first.key, T0 + 1), undefined);
    assert.equal(await store.getSession(`mfa-grant:${first.key}`, T0 + 1), undefined);
    assert.equal(await store.getSession(markName(chain.id), T0 + 1), undefined);
    assert.equal(await store.getSession('mfa-grant:someone-else', T0 + 1), 'grant');
    assert.equal(await chains.end(chain, T0 + 2), false);
    assert.equal((await refused(call(chains, first, T0 + 3))).code, 'SESSION_NOT_FOUND');
  });

  it('lists the live sessions of the caller’s user in the caller’s app; the operator sees all apps', async () => {
    const chains = chainsWith(7200);
    const userId = `user-${++users}`;
    const a1 = await signIn(chains, { userId, clientId: 'a', now: T0, device: 'Phone' });
    const a2 = await signIn(chains, { userId, clientId: 'a', now: T0 + 1000 });
    const b1 = await signIn(chains, { userId, clientId: 'b', now: T0 + 2000 });
    await signIn(chains, { clientId: 'a', now: T0 });
    const mine = await chains.list(a1.chain, T0 + 5000);
    assert.deepEqual(mine.map((c) => c.id).sort(), [a1.chain.id, a2.chain.id].sort());
    const all = await chains.listOfUser(userId, T0 + 5000);
    assert.deepEqual(all.map((c) => c.id).sort(), [a1.chain.id, a2.chain.id, b1.chain.id].sort());
    const info = sessionInfo(mine.find((c) => c.id === a1.chain.id)!);
    assert.deepEqual(info, {
      id: a1.chain.id,
      clientId: 'a',
      createdAt: T0,
      lastUsedAt: T0,
      expiresAt: T0 + HOUR,
      endsAt: T0 + 2 * HOUR,
      device: 'Phone',
    });
    // An ended chain is not listed.
    await chains.end(a2.chain, T0 + 6000);
    assert.deepEqual(
      (await chains.list(a1.chain, T0 + 7000)).map((c) => c.id),
      [a1.chain.id],
    );
  });

  it('without a cap the chain has no end to show, and its id is fresh random hex', async () => {
    const chains = chainsWith();
    const one = await signIn(chains);
    const two = await signIn(chains);
    assert.match(one.chain.id, /^[0-9a-f]{32}$/);
    assert.notEqual(one.chain.id, two.chain.id);
    const [live] = await chains.list(one.chain, T0);
    assert.equal(sessionInfo(live!).endsAt, undefined);
    assert.equal(live!.idleMs, HOUR);
    assert.equal(live!.createdAt, T0);
  });

  it('the device name is kept printable and at most 200 characters; anything else is no name', async () => {
    const chains = chainsWith();
    const name = async (device: unknown) => (await signIn(chains, { device })).chain.device;
    assert.equal(await name('  Laptop\u0007\u200b (Firefox)\n '), 'Laptop (Firefox)');
    assert.equal(await name('x'.repeat(250)), 'x'.repeat(200));
    assert.equal(await name(` ${'y'.repeat(199)}z\u0000zz`), `${'y'.repeat(199)}z`);
    assert.equal(await name('\u0001\u0002 '), undefined);
    assert.equal(await name(''), undefined);
    assert.equal(await name(42), undefined);
    assert.equal(await name(undefined), undefined);
  });
});
