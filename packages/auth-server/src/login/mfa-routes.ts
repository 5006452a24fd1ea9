// The `/api/mfa/*` calls: the setup step of a login (pending, setup, skip), the page's recovery
// screen (recover), and a logged-in session's MFA calls signed by its sessionId (social, device,
// revoke).

import {
  checkSetupChoice,
  DEFAULT_MFA_SETTINGS,
  type KeyShare,
  MFA_FACTORS,
  type MfaFactor,
  mfaProofMessage,
  storeKeyOf,
  verifyStoreMessage,
} from '@portico/auth';
import { type AttemptSubjects, TooManyAttemptsError } from '../attempts.ts';
import { newAuthenticator } from '../authenticator.ts';
import { enrolmentName } from '../factors/authenticator.ts';
import { FACTORS, type FactorModule, typedFactorOf } from '../factors/index.ts';
import { HttpError } from '../http.ts';
import { complete, pendingFor, type SetupRequest } from './complete.ts';
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
  const name = enrolmentName(body.loginId as string);
  await store.deleteSession(name);
  await store.putSession(name, sealJson(envelope, name, { secret: made.secret }), now() + FLOW_TTL_MS);
  return [200, { uri: made.uri, qrSvg: made.qrSvg }];
};

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
  // Each factor's setup step (src/factors/) checks what the user gave before anything changes.
  const input: SetupRequest = { factors };
  for (const factor of factors) {
    Object.assign(
      input,
      await FACTORS[factor].prepare?.({
        ctx,
        loginId: body.loginId as string,
        request,
        target,
        pending: step,
        body,
      }),
    );
  }
  await takePending(ctx, body.loginId as string, true);
  const done = await complete(ctx, body.loginId as string, request, target, step.identity, {
    setup: input,
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

/** A typed factor's check under the attempt limits, by its module. */
async function typedFactor(
  ctx: LoginContext,
  grant: Grant,
  module: FactorModule,
  value: unknown,
  address: string,
): Promise<Answer> {
  const check = module.check!;
  const record = await ctx.mfaStore.load(grant.userId);
  if (!record) throw new HttpError(404, 'MFA is not enabled for this user');
  check.ready(record);
  return limitedFactor(ctx, { userId: grant.userId, address }, check.auditName, () =>
    check.open(ctx, record, value, grant),
  );
}

/** The social-backup login as a factor (`payload`: `{verifier, id_token}` of the second verifier). */
const social: Route = async (ctx, body, path, client) => {
  const grant = await grantFor(ctx, path, body);
  return typedFactor(ctx, grant, FACTORS.socialBackupFactor, body.payload, client.address);
};

/**
 * A typed second factor, checked here where attempts are counted: `{password}` opens the sealed
 * password share (never handed to a session), `{backupPhrase}` must rebuild the recorded key with
 * the service's share. The answer is the factor's share; nothing typed is stored or logged.
 */
const factor: Route = async (ctx, body, path, client) => {
  const grant = await grantFor(ctx, path, body);
  const payload = (body.payload ?? {}) as Record<string, unknown>;
  const module = typedFactorOf(payload);
  if (!module) {
    throw new HttpError(400, 'payload must be {password}, {backupPhrase} or {authenticatorCode}');
  }
  return typedFactor(ctx, grant, module, payload[module.check!.field], client.address);
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
