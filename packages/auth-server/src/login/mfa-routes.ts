// The `/api/mfa/*` calls: the setup step of a login (pending, setup, skip), the page's recovery
// screen (recover), and a logged-in session's MFA calls signed by its sessionId (social, device,
// revoke).

import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import {
  checkSetupChoice,
  combineShares,
  DEFAULT_MFA_SETTINGS,
  type KeyShare,
  MFA_FACTORS,
  type MfaFactor,
  mfaProofMessage,
  mnemonicToShare,
  openShareWithPassword,
  secp256k1PublicKey,
  storeKeyOf,
  verifyStoreMessage,
} from '@portico/auth';
import { type AttemptSubjects, TooManyAttemptsError } from '../attempts.ts';
import { type AuthenticatorSecret, checkAuthenticatorCode, newAuthenticator } from '../authenticator.ts';
import { HttpError } from '../http.ts';
import { KeyService } from '../keys.ts';
import { VerifierError } from '../verifiers/types.ts';
import { complete, pendingFor } from './complete.ts';
import type { Answer, Grant, LoginContext, PendingState, Route } from './context.ts';
import { FLOW_TTL_MS } from './context.ts';
import { readRequest, resolveProvider } from './request.ts';
import { openJson, sealJson } from './sealed.ts';

async function takePending(ctx: LoginContext, loginId: string, remove: boolean): Promise<PendingState> {
  const { store, envelope, now } = ctx.deps;
  const name = `mfa-pending:${storeKeyOf(loginId)}`;
  const sealed = await store.getSession(name, now());
  if (!sealed) throw new HttpError(404, 'No MFA step pending for this login');
  const pending = openJson<PendingState>(envelope, name, sealed);
  if (remove) await store.deleteSession(name);
  return pending;
}

/** Checks a session-signed MFA call: the signature by the sessionId and the session's grant. */
async function grantFor(ctx: LoginContext, path: string, body: Record<string, unknown>): Promise<Grant> {
  const { store, envelope, now } = ctx.deps;
  const { key, signature, payload } = body;
  if (typeof key !== 'string' || !/^04[0-9a-f]{128}$/.test(key) || typeof signature !== 'string') {
    throw new HttpError(400, 'key and signature are required');
  }
  if (!verifyStoreMessage(key, `${path}:${JSON.stringify(payload ?? {})}`, signature)) {
    throw new HttpError(401, 'Bad signature');
  }
  const name = `mfa-grant:${key}`;
  const sealed = await store.getSession(name, now());
  if (!sealed) throw new HttpError(403, 'No MFA session: log in again');
  return openJson<Grant>(envelope, name, sealed);
}

/**
 * A call that changes the account's MFA (a device added or revoked): the session's grant, and
 * `proof`, the call signed by the rebuilt coreKitKey. A session that passed only the first factor
 * holds the service's share but not the key, so it has no such right.
 */
async function secondFactorGrant(
  ctx: LoginContext,
  path: string,
  body: Record<string, unknown>,
): Promise<Grant> {
  const grant = await grantFor(ctx, path, body);
  const record = await ctx.mfaStore.load(grant.userId);
  const message = mfaProofMessage(path, body.key as string, JSON.stringify(body.payload ?? {}));
  if (
    !record ||
    typeof body.proof !== 'string' ||
    !verifyStoreMessage(record.publicKey, message, body.proof)
  ) {
    throw new HttpError(403, 'This call needs the second factor: rebuild the key (complete MFA) first');
  }
  return grant;
}

/** Verifies a second login (social backup) with a JWT verifier other than the account's own. */
async function socialIdentity(
  ctx: LoginContext,
  primaryVerifiers: string[],
  input: unknown,
  network: string,
): Promise<{ verifier: string; id: string }> {
  const v = (input ?? {}) as { verifier?: unknown; id_token?: unknown };
  if (typeof v.verifier !== 'string' || typeof v.id_token !== 'string') {
    throw new HttpError(400, 'socialBackup needs {verifier, id_token}');
  }
  if (primaryVerifiers.includes(v.verifier)) {
    throw new HttpError(400, 'The social backup factor needs a different verifier than the login');
  }
  const verifier = ctx.deps.jwtVerifiers.get(v.verifier);
  if (!verifier) throw new HttpError(400, `Verifier "${v.verifier}" is not a JWT verifier`);
  const identity = await verifier.verify(v.id_token);
  return {
    verifier: v.verifier,
    id: KeyService.idOf(v.verifier, identity.verifierId, ctx.deps.keyService.scope(network)),
  };
}

const pending: Route = async (ctx, body) => {
  const { store, envelope, now } = ctx.deps;
  const request = await readRequest(ctx, body.loginId);
  const recoverName = `mfa-recover:${storeKeyOf(body.loginId as string)}`;
  const recover = await store.getSession(recoverName, now());
  if (recover) {
    const { factors } = openJson<{ factors: MfaFactor[] }>(envelope, recoverName, recover);
    return [200, { step: 'recover', factors }];
  }
  const step = await takePending(ctx, body.loginId as string, false);
  const target = resolveProvider(ctx, request, step.provider);
  return [200, pendingFor(ctx, request, target, step.skippable)];
};

const recover: Route = async (ctx, body) => {
  const { store, envelope, now } = ctx.deps;
  await readRequest(ctx, body.loginId);
  const name = `mfa-recover:${storeKeyOf(body.loginId as string)}`;
  const sealed = await store.getSession(name, now());
  if (!sealed) throw new HttpError(404, 'No MFA recovery pending for this login');
  const { redirect: url } = openJson<{ redirect: string }>(envelope, name, sealed);
  await store.deleteSession(name);
  await store.deleteSession(storeKeyOf(body.loginId as string));
  return [200, { url }];
};

const skip: Route = async (ctx, body) => {
  const request = await readRequest(ctx, body.loginId);
  const step = await takePending(ctx, body.loginId as string, false);
  if (!step.skippable) throw new HttpError(403, 'MFA setup is mandatory for this app (mfaLevel "mandatory")');
  await takePending(ctx, body.loginId as string, true);
  const target = resolveProvider(ctx, request, step.provider);
  const done = await complete(ctx, body.loginId as string, request, target, step.identity, { skipped: true });
  if ('mfa' in done) throw new HttpError(500, 'unexpected MFA step');
  return [200, { sessionId: done.sessionId, url: done.redirect }];
};

/**
 * The setup screen's authenticator step: a new secret for this login, kept (sealed) until setup,
 * and what the user scans. Asked again, it makes a new one (the last one counts).
 */
const authenticator: Route = async (ctx, body) => {
  const { store, envelope, now } = ctx.deps;
  const request = await readRequest(ctx, body.loginId);
  const step = await takePending(ctx, body.loginId as string, false);
  const settings = request.options.mfaSettings ?? DEFAULT_MFA_SETTINGS;
  if (!settings.authenticatorFactor?.enable) {
    throw new HttpError(400, 'MFA factor authenticatorFactor is not enabled by this app');
  }
  const issuer = request.options.whiteLabel?.appName || 'Portico';
  const made = newAuthenticator(issuer, step.identity.email || step.identity.verifierId);
  const name = `mfa-totp:${storeKeyOf(body.loginId as string)}`;
  await store.deleteSession(name);
  await store.putSession(name, sealJson(envelope, name, { secret: made.secret }), now() + FLOW_TTL_MS);
  return [200, { uri: made.uri, qrSvg: made.qrSvg }];
};

/** The authenticator secret of this login's setup, confirmed by a code of the user's app. */
async function confirmedAuthenticator(
  ctx: LoginContext,
  loginId: string,
  code: unknown,
): Promise<AuthenticatorSecret> {
  const { store, envelope, now } = ctx.deps;
  const name = `mfa-totp:${storeKeyOf(loginId)}`;
  const sealed = await store.getSession(name, now());
  if (!sealed) throw new HttpError(400, 'Start the authenticator setup first (/api/mfa/authenticator)');
  const secret = openJson<AuthenticatorSecret>(envelope, name, sealed);
  const step = typeof code === 'string' ? checkAuthenticatorCode(secret, code, now()) : undefined;
  if (step === undefined)
    throw new HttpError(400, 'Wrong authenticator code: enter the code the app shows now');
  await store.deleteSession(name);
  return { secret: secret.secret, lastStep: step };
}

const setup: Route = async (ctx, body) => {
  const request = await readRequest(ctx, body.loginId);
  const step = await takePending(ctx, body.loginId as string, false);
  const target = resolveProvider(ctx, request, step.provider);
  const factors = Array.isArray(body.factors) ? (body.factors as unknown[]) : [];
  if (!factors.every((f): f is MfaFactor => MFA_FACTORS.includes(f as MfaFactor))) {
    throw new HttpError(400, `factors: a list of ${MFA_FACTORS.join(', ')}`);
  }
  try {
    checkSetupChoice(request.options.mfaSettings ?? DEFAULT_MFA_SETTINGS, { factors });
  } catch (err) {
    throw new HttpError(400, (err as Error).message);
  }
  const password = typeof body.password === 'string' ? body.password : undefined;
  if (factors.includes('passwordFactor') && (!password || password.length < 8)) {
    throw new HttpError(400, 'The password needs at least 8 characters');
  }
  let social: { verifier: string; id: string } | undefined;
  if (factors.includes('socialBackupFactor')) {
    try {
      social = await socialIdentity(
        ctx,
        [target.keyVerifier, target.authVerifier],
        body.socialBackup,
        request.options.network,
      );
    } catch (err) {
      if (err instanceof VerifierError) throw new HttpError(401, `Social backup login: ${err.message}`);
      throw err;
    }
    if (await ctx.mfaStore.socialOwner(social.id)) {
      throw new HttpError(409, 'That login is already the social backup of another account');
    }
  }
  const authenticatorSecret = factors.includes('authenticatorFactor')
    ? await confirmedAuthenticator(ctx, body.loginId as string, body.authenticatorCode)
    : undefined;
  await takePending(ctx, body.loginId as string, true);
  const done = await complete(ctx, body.loginId as string, request, target, step.identity, {
    setup: { factors, password, social, authenticator: authenticatorSecret },
  });
  if ('mfa' in done) throw new HttpError(500, 'unexpected MFA step');
  return [
    200,
    {
      sessionId: done.sessionId,
      url: done.redirect,
      // Shown once: the service keeps no copy.
      backupPhrase: done.setup?.backupPhrase,
    },
  ];
};

/** The answer to a typed factor while the user or the address must wait: 429, and when to try again. */
function tooMany(err: TooManyAttemptsError): Answer {
  return [429, { error: err.message, code: 'TOO_MANY_ATTEMPTS', retryAfter: err.retryAfterSeconds }];
}

/**
 * Runs a typed-factor check under the attempt limits: refused while a wait runs (a right guess
 * too), a failure counted, a success clearing the user's count; each outcome audited.
 */
async function limitedFactor(
  ctx: LoginContext,
  subjects: AttemptSubjects,
  factor: string,
  check: () => Promise<{ share: KeyShare } | { status: number; error: string }>,
): Promise<Answer> {
  const { attempts, audit, now } = ctx.deps;
  const where = { factor, address: subjects.address };
  const gate = await attempts.begin(subjects);
  if (!gate.allowed) {
    await audit.record('mfa.factor', subjects.userId, {
      ...where,
      outcome: 'refused',
      reason: gate.error.message,
    });
    return tooMany(gate.error);
  }
  const result = await check();
  if ('share' in result) {
    await attempts.succeeded(subjects);
    await audit.record('mfa.factor', subjects.userId, { ...where, outcome: 'success' });
    return [200, { share: result.share }];
  }
  await audit.record('mfa.factor', subjects.userId, { ...where, outcome: 'failure', reason: result.error });
  if (gate.notBefore > now()) {
    await audit.record('attempts.locked', subjects.userId, { ...where, until: gate.notBefore });
    const wait = new TooManyAttemptsError(gate.notBefore, Math.ceil((gate.notBefore - now()) / 1000));
    return [
      result.status,
      {
        error: `${result.error}. ${wait.message}`,
        code: 'MFA_FACTOR_INVALID',
        retryAfter: wait.retryAfterSeconds,
      },
    ];
  }
  return [result.status, { error: result.error, code: 'MFA_FACTOR_INVALID' }];
}

const social: Route = async (ctx, body, path, client) => {
  const grant = await grantFor(ctx, path, body);
  const record = await ctx.mfaStore.load(grant.userId);
  if (!record?.social) throw new HttpError(404, 'No social backup factor on this account');
  const bound = record.social;
  return limitedFactor(ctx, { userId: grant.userId, address: client.address }, 'social backup', async () => {
    let login: { verifier: string; id: string };
    try {
      login = await socialIdentity(
        ctx,
        [grant.keyVerifier],
        body.payload,
        grant.network ?? ctx.deps.keyService.legacyNetwork,
      );
    } catch (err) {
      if (err instanceof VerifierError) return { status: 401, error: err.message };
      throw err;
    }
    if (login.id !== bound.id || login.verifier !== bound.verifier) {
      return { status: 403, error: 'This login is not the social backup of this account' };
    }
    return { share: bound.share };
  });
};

/**
 * A typed second factor, checked here where attempts are counted: `{password}` opens the sealed
 * password share (never handed to a session), `{backupPhrase}` must rebuild the recorded key with
 * the service's share. The answer is the factor's share; nothing typed is stored or logged.
 */
const factor: Route = async (ctx, body, path, client) => {
  const grant = await grantFor(ctx, path, body);
  const record = await ctx.mfaStore.load(grant.userId);
  if (!record) throw new HttpError(404, 'MFA is not enabled for this user');
  const payload = (body.payload ?? {}) as {
    password?: unknown;
    backupPhrase?: unknown;
    authenticatorCode?: unknown;
  };
  const subjects = { userId: grant.userId, address: client.address };
  if (typeof payload.authenticatorCode === 'string') {
    const bound = record.authenticator;
    if (!bound) throw new HttpError(400, 'No authenticator app is set up for this account');
    const code = payload.authenticatorCode;
    return limitedFactor(ctx, subjects, 'authenticator', async () => {
      const at = ctx.deps.now();
      const step = checkAuthenticatorCode(bound, code, at);
      // A code is taken once (RFC 6238 §5.2), across instances: its step is marked in the store.
      const fresh =
        step !== undefined &&
        (await ctx.deps.store.markTokenUsed(
          bytesToHex(sha256(utf8ToBytes(`totp:${grant.userId}:${step}`))),
          (step + 3) * 30_000,
        ));
      return fresh ? { share: bound.share } : { status: 401, error: 'Wrong authenticator code' };
    });
  }
  if (typeof payload.password === 'string') {
    const sealed = record.passwordShare;
    if (!sealed) throw new HttpError(400, 'No password is set up for this account');
    const password = payload.password;
    return limitedFactor(ctx, subjects, 'password', async () => {
      try {
        return { share: await openShareWithPassword(sealed, password) };
      } catch {
        return { status: 401, error: 'Wrong password' };
      }
    });
  }
  if (typeof payload.backupPhrase === 'string') {
    const index = record.backupIndex;
    if (index === undefined) throw new HttpError(400, 'No backup phrase is set up for this account');
    const phrase = payload.backupPhrase;
    return limitedFactor(ctx, subjects, 'backup phrase', async () => {
      try {
        const share = mnemonicToShare(phrase, index);
        if (secp256k1PublicKey(await combineShares(record.serviceShare, share)) === record.publicKey) {
          return { share };
        }
      } catch {}
      return { status: 401, error: 'Wrong backup phrase' };
    });
  }
  throw new HttpError(400, 'payload must be {password}, {backupPhrase} or {authenticatorCode}');
};

const device: Route = async (ctx, body, path) => {
  const grant = await secondFactorGrant(ctx, path, body);
  let added: Awaited<ReturnType<typeof ctx.mfaStore.addDevice>>;
  try {
    added = await ctx.mfaStore.addDevice(grant.userId);
  } catch (err) {
    throw new HttpError(400, (err as Error).message);
  }
  await ctx.deps.audit.record('mfa.device.added', grant.userId, { deviceId: added.deviceId });
  return [200, added];
};

const revoke: Route = async (ctx, body, path) => {
  const grant = await secondFactorGrant(ctx, path, body);
  const deviceId = (body.payload as { deviceId?: unknown } | undefined)?.deviceId;
  if (typeof deviceId !== 'string') throw new HttpError(400, 'payload.deviceId is required');
  const ok = await ctx.mfaStore.revokeDevice(grant.userId, deviceId);
  if (ok) await ctx.deps.audit.record('mfa.device.revoked', grant.userId, { deviceId });
  return ok ? [200, { ok: true }] : [404, { error: 'No such device, or already revoked' }];
};

export const mfaRoutes: Record<string, Route> = {
  '/api/mfa/pending': pending,
  '/api/mfa/recover': recover,
  '/api/mfa/skip': skip,
  '/api/mfa/setup': setup,
  '/api/mfa/authenticator': authenticator,
  '/api/mfa/social': social,
  '/api/mfa/factor': factor,
  '/api/mfa/device': device,
  '/api/mfa/revoke': revoke,
};
