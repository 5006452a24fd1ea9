// Passkeys (WebAuthn, with @simplewebauthn/server): the login page's ceremony calls and the
// library's link call. A passkey signs in to the account it was registered for, by (verifier,
// verifierId, claim), so its key is that account's key: a passkey linked by a signed-in user gets
// the key of the verifier the user signed in with; one registered without a session is a fresh
// account of the passkey verifier. Challenges are single-use (taken from the store once) and
// expire; the relying party is this service (RP ID: `publicUrl`'s host name, origin its origin).
import { randomBytes } from '@noble/hashes/utils.js';
import type { LoginRequest } from '@portico/auth';
import { storeKeyOf } from '@portico/auth/protocol';
import {
  type AuthenticationResponseJSON,
  type AuthenticatorTransportFuture,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import { isoBase64URL } from '@simplewebauthn/server/helpers';
import { challengeId, fields, loginId, oneOf, optional, signedCall, string } from '../body.ts';
import type { Envelope } from '../envelope.ts';
import { HttpError } from '../http.ts';
import { KeyService } from '../keys.ts';
import type { PasskeyVerifierConfig } from '../verifiers/config.ts';
import { type Identity, VerifierError } from '../verifiers/types.ts';
import { PASSKEY_ALGORITHMS, relyingParty } from '../webauthn.ts';
import { complete } from './complete.ts';
import { FLOW_TTL_MS, type LoginContext, type ResolvedProvider, type Route, route } from './context.ts';
import { newFlowId } from './flows.ts';
import { readRequest, resolveProvider } from './request.ts';
import { openJson, sealJson } from './sealed.ts';

/** The account a passkey signs in to (sealed in its store row). */
export interface PasskeyAccount {
  verifier: string;
  verifierId: string;
  /** The id claim, when the account was found through another one than the verifier's own. */
  claim?: string;
  email?: string;
  name?: string;
}

/** An issued challenge, sealed in the store until answered (once) or expired. */
interface Challenge {
  /** The login it was issued for (its public key). */
  login: string;
  provider: string;
  mode: 'login' | 'register';
  challenge: string;
  account?: PasskeyAccount;
  userHandle?: string;
  linked?: boolean;
}

const DEFAULT_TIMEOUT_SECONDS = 300;
const MAX_TIMEOUT_SECONDS = 600;

export function checkPasskeyConfig(name: string, config: PasskeyVerifierConfig): void {
  const t = config.timeoutSeconds;
  if (t !== undefined && (!Number.isSafeInteger(t) || t < 30 || t > MAX_TIMEOUT_SECONDS)) {
    throw new Error(`auth: verifiers.${name}.timeoutSeconds must be a whole number from 30 to 600`);
  }
  if (config.userVerification !== undefined && !['required', 'preferred'].includes(config.userVerification)) {
    throw new Error(`auth: verifiers.${name}.userVerification must be "required" or "preferred"`);
  }
}

/** The passkey verifier a login's provider resolves to, or 400. */
function passkeyTarget(
  ctx: LoginContext,
  request: LoginRequest,
  provider: string | undefined,
): { target: ResolvedProvider; config: PasskeyVerifierConfig } {
  const name = provider ?? request.params.loginProvider;
  if (!name) throw new HttpError(400, 'PROVIDER_INVALID', 'provider is required');
  const target = resolveProvider(ctx, request, name);
  const config = ctx.deps.verifierConfigs.get(target.authVerifier);
  if (config?.type !== 'passkey') {
    throw new HttpError(
      400,
      'PROVIDER_INVALID',
      `Verifier "${target.authVerifier}" is not a passkey verifier`,
    );
  }
  return { target, config };
}

/**
 * The WebAuthn user handle of an account: a MAC of its store id under the master key, so the
 * handle a browser or authenticator sees names no email and cannot be tested against one.
 */
export function userHandleOf(envelope: Envelope, account: PasskeyAccount): string {
  const id = KeyService.idOf(account.verifier, account.verifierId, { claim: account.claim });
  return isoBase64URL.fromBuffer(new Uint8Array(envelope.mac(`passkey-user-handle:${id}`)));
}

const linkName = (loginId: string) => `passkey-link:${storeKeyOf(loginId)}`;

async function readLink(ctx: LoginContext, loginId: string): Promise<PasskeyAccount | undefined> {
  const name = linkName(loginId);
  const sealed = await ctx.deps.store.getSession(name, ctx.deps.now());
  return sealed ? openJson<PasskeyAccount>(ctx.deps.envelope, name, sealed) : undefined;
}

/** What the login page's passkey screen offers (answered by `/api/login/authorize`). */
export async function passkeyStep(
  ctx: LoginContext,
  loginId: string,
  config: PasskeyVerifierConfig,
): Promise<{ link: boolean; register: boolean }> {
  const link = (await readLink(ctx, loginId)) !== undefined;
  return { link, register: link || config.allowRegistration !== false };
}

/** A display name the page sent for a fresh account: printable, at most 64 characters. */
function cleanName(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const name = value
    .replace(/[\p{Cc}\p{Cf}]/gu, '')
    .trim()
    .slice(0, 64);
  return name || undefined;
}

const OPTIONS = fields({
  loginId,
  provider: optional(string),
  mode: oneOf(['login', 'register']),
  name: optional(string),
});

const options = route(OPTIONS, async (ctx, body) => {
  const { store, envelope, now } = ctx.deps;
  const { loginId } = body;
  const parked = await readRequest(ctx, loginId);
  const { target, config } = passkeyTarget(ctx, parked, body.provider);
  const { rpID } = relyingParty(ctx.deps.sdkUrl);
  const timeoutMs = (config.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS) * 1000;
  const userVerification = config.userVerification ?? 'required';
  let record: Challenge;
  let answer: unknown;
  if (body.mode === 'login') {
    // Discoverable credentials: the authenticator offers the passkeys it holds for this RP.
    const made = await generateAuthenticationOptions({ rpID, userVerification, timeout: timeoutMs });
    record = {
      login: storeKeyOf(loginId),
      provider: target.provider,
      mode: 'login',
      challenge: made.challenge,
    };
    answer = made;
  } else {
    const linked = await readLink(ctx, loginId);
    if (!linked && config.allowRegistration === false) {
      throw new HttpError(
        403,
        'PASSKEY_REGISTRATION_OFF',
        'New accounts cannot be made with a passkey here: sign in another way, then link a passkey',
      );
    }
    const account: PasskeyAccount = linked ?? {
      verifier: target.keyVerifier,
      verifierId: isoBase64URL.fromBuffer(randomBytes(16)),
      name: cleanName(body.name),
    };
    const userHandle = userHandleOf(envelope, account);
    const existing = await store.listPasskeys(userHandle);
    const label = account.email || account.name || (linked ? account.verifierId : 'Passkey account');
    const made = await generateRegistrationOptions({
      rpName: config.rpName ?? 'Portico',
      rpID,
      userName: label,
      userDisplayName: account.name || label,
      userID: isoBase64URL.toBuffer(userHandle),
      timeout: timeoutMs,
      attestationType: 'none',
      excludeCredentials: existing.map((p) => ({
        id: p.credentialId,
        transports: p.transports as AuthenticatorTransportFuture[],
      })),
      authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification },
      supportedAlgorithmIDs: PASSKEY_ALGORITHMS,
    });
    record = {
      login: storeKeyOf(loginId),
      provider: target.provider,
      mode: 'register',
      challenge: made.challenge,
      account,
      userHandle,
      linked: linked !== undefined,
    };
    answer = made;
  }
  const id = newFlowId();
  const name = `passkey-challenge:${id}`;
  await store.putSession(name, sealJson(envelope, name, record), now() + timeoutMs);
  return [200, { challengeId: id, options: answer }];
});

/** Takes an issued challenge (deleting it: one answer per challenge), or 400. */
async function takeChallenge(ctx: LoginContext, id: string, loginId: string): Promise<Challenge> {
  const { store, envelope, now } = ctx.deps;
  const name = `passkey-challenge:${id}`;
  const unknown = () =>
    new HttpError(
      400,
      'PASSKEY_CHALLENGE_INVALID',
      'Passkey challenge unknown, used or expired: start again',
    );
  const sealed = await store.getSession(name, now());
  if (!sealed) throw unknown();
  const challenge = openJson<Challenge>(envelope, name, sealed);
  // Checked before it is used up: another login cannot spend this login's challenge.
  if (challenge.login !== storeKeyOf(loginId))
    throw new HttpError(400, 'PASSKEY_CHALLENGE_INVALID', 'The challenge belongs to another login');
  if (!(await store.deleteSession(name))) throw unknown();
  return challenge;
}

/** `response`: the credential the browser returned, checked by the WebAuthn library. */
const VERIFY = fields({ loginId, challengeId, response: fields({ id: string }) });

const verify = route(VERIFY, async (ctx, body, _path, client) => {
  const { store, envelope, now, keyService, audit } = ctx.deps;
  const { loginId } = body;
  const parked = await readRequest(ctx, loginId);
  const challenge = await takeChallenge(ctx, body.challengeId, loginId);
  const { target, config } = passkeyTarget(ctx, parked, challenge.provider);
  const { clientId, network } = parked.options;
  const { rpID, origin } = relyingParty(ctx.deps.sdkUrl);
  const requireUserVerification = (config.userVerification ?? 'required') === 'required';
  const response = body.response;
  const event = challenge.mode === 'login' ? 'passkey.login' : 'passkey.registered';
  // The credential id as the authenticator gave it (base64url); anything else is refused unnamed.
  const credential = /^[A-Za-z0-9_-]{1,1366}$/.test(response.id) ? response.id : undefined;

  const where = { clientId, network, address: client.address, credential };
  try {
    if (!credential) throw new VerifierError('response must be the credential the browser returned');
    let account: PasskeyAccount;
    if (challenge.mode === 'login') {
      const row = await store.getPasskey(credential);
      if (!row) throw new VerifierError('Unknown passkey: it is not registered on this service');
      const answer = response as AuthenticationResponseJSON;
      let verified: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
      try {
        verified = await verifyAuthenticationResponse({
          response: answer,
          expectedChallenge: challenge.challenge,
          expectedOrigin: origin,
          expectedRPID: rpID,
          credential: {
            id: row.credentialId,
            publicKey: isoBase64URL.toBuffer(row.publicKey),
            counter: row.counter,
            transports: row.transports as AuthenticatorTransportFuture[],
          },
          requireUserVerification,
        });
      } catch (err) {
        throw new VerifierError(`Passkey refused: ${(err as Error).message}`, 'LOGIN_FAILED', err);
      }
      if (!verified.verified) throw new VerifierError('Passkey refused: the signature does not verify');
      const handle = answer.response?.userHandle;
      if (handle !== undefined && handle !== row.userHandle) {
        throw new VerifierError('Passkey refused: it answered for another user');
      }
      if (
        !(await store.usePasskey(
          row.credentialId,
          row.counter,
          verified.authenticationInfo.newCounter,
          now(),
        ))
      ) {
        throw new VerifierError('Passkey refused: it was used for another sign-in at the same time');
      }
      account = openJson<PasskeyAccount>(envelope, `passkey-account:${row.credentialId}`, row.account);
    } else {
      if (!challenge.account || !challenge.userHandle)
        throw new HttpError(400, 'PASSKEY_CHALLENGE_INVALID', 'Malformed challenge');
      let verified: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
      try {
        verified = await verifyRegistrationResponse({
          response: response as RegistrationResponseJSON,
          expectedChallenge: challenge.challenge,
          expectedOrigin: origin,
          expectedRPID: rpID,
          requireUserVerification,
          supportedAlgorithmIDs: PASSKEY_ALGORITHMS,
        });
      } catch (err) {
        throw new VerifierError(`Passkey refused: ${(err as Error).message}`, 'LOGIN_FAILED', err);
      }
      if (!verified.verified || !verified.registrationInfo) {
        throw new VerifierError('Passkey refused: the registration does not verify');
      }
      const made = verified.registrationInfo.credential;
      account = challenge.account;
      const at = now();
      const stored = await store.putPasskey({
        credentialId: made.id,
        userHandle: challenge.userHandle,
        account: sealJson(envelope, `passkey-account:${made.id}`, account),
        publicKey: isoBase64URL.fromBuffer(made.publicKey),
        counter: made.counter,
        transports: made.transports ?? [],
        createdAt: at,
        lastUsed: at,
      });
      if (!stored) throw new VerifierError('This passkey is registered already');
      if (challenge.linked) await store.deleteSession(linkName(loginId));
    }
    const scope = keyService.scope(network, account.claim);
    const userId = KeyService.idOf(account.verifier, account.verifierId, scope);
    await audit.record(event, userId, {
      ...where,
      outcome: 'success',
      verifier: account.verifier,
      mode: challenge.mode === 'register' ? (challenge.linked ? 'link' : 'new') : undefined,
    });
    const identity: Identity = {
      verifierId: account.verifierId,
      claim: account.claim,
      email: account.email,
      name: account.name,
    };
    // The account's own verifier keys the login; the passkey verifier authenticated it.
    const resolved: ResolvedProvider = { ...target, keyVerifier: account.verifier, typeOfLogin: 'passkey' };
    const done = await complete(ctx, loginId, parked, resolved, identity, undefined, true);
    return [200, 'mfa' in done ? { mfa: done.mfa } : { url: done.redirect }];
  } catch (err) {
    if (!(err instanceof VerifierError)) throw err;
    await audit.record(event, undefined, {
      ...where,
      outcome: 'failure',
      verifier: target.authVerifier,
      reason: err.message,
    });
    throw err;
  }
});

/**
 * The library's `linkPasskey()`: signed by the sessionId of a signed-in user over the path and
 * `{ loginId }` (a login the library just parked with `loginProvider: 'passkey'`). The passkey
 * that login registers then signs in to this session's account.
 */
const link = route(signedCall(fields({ loginId })), async (ctx, body, path) => {
  const { store, envelope, now, chains, keyService } = ctx.deps;
  const { key, payload, signature } = body;
  const chain = await chains.caller(key, () => `${path}:${JSON.stringify(payload)}`, signature, now());
  if (!(await store.getSession(key, now())))
    throw new HttpError(404, 'SESSION_NOT_FOUND', 'Session not found or expired');
  const { loginId } = payload;
  const parked = await readRequest(ctx, loginId);
  passkeyTarget(ctx, parked, undefined);
  if (parked.options.clientId !== chain.clientId) {
    throw new HttpError(403, 'PASSKEY_LINK_REFUSED', 'The login belongs to another app than the session');
  }
  const claims = openJson<Record<string, unknown>>(envelope, `chain-claims:${chain.id}`, chain.claims);
  const account: PasskeyAccount = {
    verifier: String(claims.verifier),
    verifierId: String(claims.verifierId),
    email: typeof claims.email === 'string' ? claims.email : undefined,
    name: typeof claims.name === 'string' ? claims.name : undefined,
  };
  // The session's key must be this account's on the login's network (an account found through
  // another id claim than the verifier's own is keyed apart: not linkable yet).
  if (
    KeyService.idOf(account.verifier, account.verifierId, keyService.scope(parked.options.network)) !==
    chain.userId
  ) {
    throw new HttpError(
      400,
      'PASSKEY_LINK_REFUSED',
      "This session's account cannot link a passkey (another network or id claim)",
    );
  }
  const name = linkName(loginId);
  await store.deleteSession(name);
  await store.putSession(name, sealJson(envelope, name, account), now() + FLOW_TTL_MS);
  return [200, { ok: true }];
});

export const passkeyRoutes: Record<string, Route> = {
  '/api/login/passkey/options': options,
  '/api/login/passkey/verify': verify,
  '/api/passkey/link': link,
};
