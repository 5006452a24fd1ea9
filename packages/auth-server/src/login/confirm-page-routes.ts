// The passkey confirmation page (`GET /confirm`) of an app's sign-in: the account's MFA passkey has
// this service as its relying party, so its WebAuthn answer can only be made on a page of this
// origin, never in the app. As for the account page (../account-api.ts), the app hands over a
// one-time ticket, never the session: the library asks for it with a signed session call
// (`/api/mfa/confirm/ticket`), opens `/confirm#ticket=…`, and the page trades it once
// (`/open`) for its own page token and a passkey challenge bound to the sign-in; the answer
// (`/answer`) is checked by the passkey factor's own check under the attempt limits and marks the
// sign-in. Tickets and tokens are random 32 bytes, stored only as their SHA-256 and sealed to the
// sign-in; when it ends, they open nothing. The library learns of the mark from `/status`.
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, randomBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { field, fields, optional, signedCall, string } from '../body.ts';
import { FACTORS } from '../factors/index.ts';
import { confirmChallenge } from '../factors/passkey.ts';
import { HttpError } from '../http.ts';
import type { ChainRow } from '../store.ts';
import { confirmSignIn } from './confirm-routes.ts';
import { type LoginContext, type Route, route } from './context.ts';
import { callerChain, liveChain } from './factor-check.ts';
import { openJson, sealJson } from './sealed.ts';

/** How long the app's ticket may wait for the page to open. */
export const CONFIRM_TICKET_SECONDS = 120;
/** How long the page may take to get the passkey's answer (never past the sign-in's end). */
export const CONFIRM_PAGE_SECONDS = 10 * 60;

/** What a ticket or page token stands for: one sign-in of one user. */
interface Holder {
  chainId: string;
  userId: string;
}

type Kind = 'confirm-ticket' | 'confirm-page';

const secret = field<string>('64 hex characters', (v) => typeof v === 'string' && /^[0-9a-f]{64}$/.test(v));

const nameOf = (kind: Kind, value: string) => `${kind}:${bytesToHex(sha256(utf8ToBytes(value)))}`;

/** Mints a random secret, stored (hashed, the holder sealed) for `ttlMs`. */
async function mint(ctx: LoginContext, kind: Kind, holder: Holder, ttlMs: number): Promise<string> {
  const { store, envelope, now } = ctx.deps;
  const value = bytesToHex(randomBytes(32));
  const name = nameOf(kind, value);
  await store.putSession(name, sealJson(envelope, name, holder), now() + ttlMs);
  return value;
}

const pageExpired = () =>
  new HttpError(
    401,
    'CONFIRM_PAGE_EXPIRED',
    'This confirmation page has expired or its session has ended: confirm again from the app',
  );

/** The page token's sign-in, still live; else 401 `CONFIRM_PAGE_EXPIRED`. */
async function pageChain(ctx: LoginContext, token: string): Promise<ChainRow> {
  const { store, envelope, now } = ctx.deps;
  const name = nameOf('confirm-page', token);
  const sealed = await store.getSession(name, now());
  if (!sealed) throw pageExpired();
  const holder = openJson<Holder>(envelope, name, sealed);
  const chain = await liveChain(ctx, holder.userId, holder.chainId);
  if (!chain) {
    await store.deleteSession(name);
    throw pageExpired();
  }
  return chain;
}

/**
 * `POST /api/mfa/confirm/ticket`, signed by the sessionId: a ticket for the confirmation page of
 * the session's sign-in, good for one opening within two minutes. Refused at once for an account
 * without the passkey factor (nothing to confirm with there).
 */
const ticket = route(signedCall(optional(fields({}))), async (ctx, body, path) => {
  const chain = await callerChain(ctx, path, body);
  const record = await ctx.mfaStore.load(chain.userId);
  if (!record) throw new HttpError(404, 'MFA_NOT_ENABLED', 'MFA is not enabled for this user');
  FACTORS.passkeysFactor.check!.ready(record);
  const holder = { chainId: chain.id, userId: chain.userId };
  const value = await mint(ctx, 'confirm-ticket', holder, CONFIRM_TICKET_SECONDS * 1000);
  return [200, { ticket: value, expiresIn: CONFIRM_TICKET_SECONDS }];
});

/**
 * `POST /api/mfa/confirm/open {ticket}`: the page trades the ticket, once, for its page token and a
 * passkey challenge bound to the sign-in. A ticket seen twice (a copied link) opens nothing.
 */
const open = route(fields({ ticket: secret }), async (ctx, body) => {
  const { store, envelope, now } = ctx.deps;
  const name = nameOf('confirm-ticket', body.ticket);
  const sealed = await store.getSession(name, now());
  if (!sealed || !(await store.deleteSession(name))) {
    throw new HttpError(
      401,
      'CONFIRM_TICKET_INVALID',
      'This confirmation link is unknown, used or expired: confirm again from the app',
    );
  }
  const holder = openJson<Holder>(envelope, name, sealed);
  const chain = await liveChain(ctx, holder.userId, holder.chainId);
  if (!chain) throw pageExpired();
  const ttlMs = Math.max(1000, Math.min(CONFIRM_PAGE_SECONDS * 1000, chain.endsAt - now()));
  const token = await mint(ctx, 'confirm-page', holder, ttlMs);
  const challenge = await confirmChallenge(ctx, chain.userId, chain.id);
  return [200, { token, expiresIn: Math.floor(ttlMs / 1000), ...challenge }];
});

/** `POST /api/mfa/confirm/challenge {token}`: another challenge (after a refused answer). */
const challenge = route(fields({ token: secret }), async (ctx, body) => {
  const chain = await pageChain(ctx, body.token);
  return [200, await confirmChallenge(ctx, chain.userId, chain.id)];
});

/**
 * `POST /api/mfa/confirm/answer {token, passkeyAssertion}`: the passkey's answer, checked by the
 * passkey factor (challenge bound to this sign-in, counter, attempt limits, audit); a right one
 * marks the sign-in and ends the page token.
 */
const answer = route(
  fields({ token: secret, passkeyAssertion: string }),
  async (ctx, body, _path, client) => {
    const chain = await pageChain(ctx, body.token);
    const factor = { module: FACTORS.passkeysFactor, value: body.passkeyAssertion };
    await confirmSignIn(ctx, chain, factor, client.address);
    await ctx.deps.store.deleteSession(nameOf('confirm-page', body.token));
    return [200, { ok: true }];
  },
);

export const confirmPageRoutes: Record<string, Route> = {
  '/api/mfa/confirm/ticket': ticket,
  '/api/mfa/confirm/open': open,
  '/api/mfa/confirm/challenge': challenge,
  '/api/mfa/confirm/answer': answer,
};
