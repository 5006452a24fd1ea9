// The `/api/mfa/*` calls: the setup step of a login (pending, setup, skip), the page's recovery
// screen (recover), and a logged-in session's MFA calls signed by its sessionId (social, factor,
// device, revoke). The confirmation calls are in ./confirm-routes.ts.

import { DEFAULT_MFA_SETTINGS, type KeyExportPolicy, MFA_FACTORS, type MfaFactor } from '@portico/auth';
import { checkSetupChoice, mfaProofMessage, storeKeyOf, verifyStoreMessage } from '@portico/auth/protocol';
import { newAuthenticator } from '../authenticator.ts';
import { fields, InvalidBodyError, listOf, loginId, oneOf, optional, signedCall, string } from '../body.ts';
import { enrolmentName } from '../factors/authenticator.ts';
import {
  FACTORS,
  SETUP_FIELDS,
  SOCIAL_LOGIN,
  TYPED_FACTOR_PAYLOAD,
  typedFactorOf,
} from '../factors/index.ts';
import { passkeyFactorRoute } from '../factors/passkey.ts';
import { HttpError } from '../http.ts';
import { requireSecondFactor } from '../second-factor.ts';
import { complete, pendingFor, type SetupRequest } from './complete.ts';
import { readConfirmStep } from './confirm-step.ts';
import type { Grant, LoginContext, PendingState, Route } from './context.ts';
import { FLOW_TTL_MS, route } from './context.ts';
import { callerChain, grantFor, type SignedBody, typedFactor } from './factor-check.ts';
import { readRequest, resolveProvider } from './request.ts';
import { openJson, sealJson } from './sealed.ts';

async function takePending(ctx: LoginContext, loginId: string, remove: boolean): Promise<PendingState> {
  const { store, envelope, now } = ctx.deps;
  const name = `mfa-pending:${storeKeyOf(loginId)}`;
  const sealed = await store.getSession(name, now());
  if (!sealed) throw new HttpError(404, 'MFA_NOT_PENDING', 'No MFA step pending for this login');
  const pending = openJson<PendingState>(envelope, name, sealed);
  if (remove) await store.deleteSession(name);
  return pending;
}

/**
 * A call that changes the account's MFA (a device added or revoked): the session's grant, and
 * `proof`, the call signed by the rebuilt coreKitKey. A session that passed only the first factor
 * holds the service's share but not the key, so it has no such right.
 */
async function secondFactorGrant(ctx: LoginContext, path: string, body: SignedBody): Promise<Grant> {
  const grant = await grantFor(ctx, path, body);
  const record = await ctx.mfaStore.load(grant.userId);
  const message = mfaProofMessage(path, body.key, JSON.stringify(body.payload ?? {}));
  if (!record || body.proof === undefined || !verifyStoreMessage(record.publicKey, message, body.proof)) {
    throw new HttpError(
      403,
      'SECOND_FACTOR_REQUIRED',
      'This call needs the second factor: rebuild the key (complete MFA) first',
    );
  }
  return grant;
}

/** The export policy of the app whose session signed the call (`app` for a key of no chain). */
async function policyOfCaller(ctx: LoginContext, key: string): Promise<KeyExportPolicy> {
  const found = await ctx.deps.store.chainOfKey(key);
  return (found && ctx.deps.exportPolicy.get(found.chain.clientId)) || 'app';
}

/**
 * A session's right to revoke a device. Under export policy `app` the session rebuilds the key and
 * signs `proof` with it (`secondFactorGrant`). Under `user` and `off` the app never holds the key
 * and gets no MFA grant: its live sign-in must carry the mark of `/api/mfa/confirm` (or the proof),
 * as for `endSession`. Answers the user whose MFA the call changes.
 */
async function revokeRight(ctx: LoginContext, path: string, body: SignedBody): Promise<string> {
  if ((await policyOfCaller(ctx, body.key)) === 'app')
    return (await secondFactorGrant(ctx, path, body)).userId;
  const chain = await callerChain(ctx, path, body);
  const mfaPublicKey = async (userId: string) => (await ctx.mfaStore.load(userId))?.publicKey;
  const payloadJson = JSON.stringify(body.payload ?? {});
  await requireSecondFactor(
    { store: ctx.deps.store, mfaPublicKey },
    chain,
    { path, key: body.key, payloadJson, proof: body.proof },
    ctx.deps.now(),
  );
  return chain.userId;
}

const LOGIN = fields({ loginId });

const pending = route(LOGIN, async (ctx, body) => {
  const { store, envelope, now } = ctx.deps;
  const request = await readRequest(ctx, body.loginId);
  const recoverName = `mfa-recover:${storeKeyOf(body.loginId)}`;
  const recover = await store.getSession(recoverName, now());
  if (recover) {
    const { factors } = openJson<{ factors: MfaFactor[] }>(envelope, recoverName, recover);
    return [200, { step: 'recover', factors }];
  }
  const confirming = await readConfirmStep(ctx, body.loginId);
  if (confirming) return [200, { step: 'confirm', factors: confirming.factors }];
  const step = await takePending(ctx, body.loginId, false);
  const target = step.target ?? resolveProvider(ctx, request, step.provider);
  return [200, pendingFor(ctx, request, target, step.skippable)];
});

const recover = route(LOGIN, async (ctx, body) => {
  const { store, envelope, now } = ctx.deps;
  await readRequest(ctx, body.loginId);
  const name = `mfa-recover:${storeKeyOf(body.loginId)}`;
  const sealed = await store.getSession(name, now());
  if (!sealed) throw new HttpError(404, 'MFA_NOT_PENDING', 'No MFA recovery pending for this login');
  const { redirect: url } = openJson<{ redirect: string }>(envelope, name, sealed);
  await store.deleteSession(name);
  await store.deleteSession(storeKeyOf(body.loginId));
  return [200, { url }];
});

const skip = route(LOGIN, async (ctx, body) => {
  const request = await readRequest(ctx, body.loginId);
  const step = await takePending(ctx, body.loginId, false);
  if (!step.skippable)
    throw new HttpError(
      403,
      'MFA_SETUP_REQUIRED',
      'MFA setup is mandatory for this app (mfaLevel "mandatory")',
    );
  await takePending(ctx, body.loginId, true);
  const target = step.target ?? resolveProvider(ctx, request, step.provider);
  const done = await complete(ctx, body.loginId, request, target, step.identity, { skipped: true });
  if ('mfa' in done) throw new HttpError(500, 'INTERNAL_ERROR', 'unexpected MFA step');
  return [200, { sessionId: done.sessionId, url: done.redirect }];
});

/**
 * The setup screen's authenticator step: a new secret for this login, kept (sealed) until setup,
 * and what the user scans. Asked again, it makes a new one (the last one counts).
 */
const authenticator = route(LOGIN, async (ctx, body) => {
  const { store, envelope, now } = ctx.deps;
  const request = await readRequest(ctx, body.loginId);
  const step = await takePending(ctx, body.loginId, false);
  const settings = request.options.mfaSettings ?? DEFAULT_MFA_SETTINGS;
  if (!settings.authenticatorFactor?.enable) {
    throw new HttpError(
      400,
      'MFA_SETUP_INVALID',
      'MFA factor authenticatorFactor is not enabled by this app',
    );
  }
  const issuer = request.options.whiteLabel?.appName || 'Portico';
  const made = newAuthenticator(issuer, step.identity.email || step.identity.verifierId);
  const name = enrolmentName(body.loginId);
  await store.deleteSession(name);
  await store.putSession(name, sealJson(envelope, name, { secret: made.secret }), now() + FLOW_TTL_MS);
  return [200, { uri: made.uri, qrSvg: made.qrSvg }];
});

const SETUP = fields({ loginId, factors: listOf(oneOf<MfaFactor>(MFA_FACTORS)), ...SETUP_FIELDS });

const setup = route(SETUP, async (ctx, body) => {
  const request = await readRequest(ctx, body.loginId);
  const step = await takePending(ctx, body.loginId, false);
  const target = step.target ?? resolveProvider(ctx, request, step.provider);
  const { factors } = body;
  try {
    checkSetupChoice(request.options.mfaSettings ?? DEFAULT_MFA_SETTINGS, { factors });
  } catch (err) {
    throw new HttpError(400, 'MFA_SETUP_INVALID', (err as Error).message);
  }
  // Each factor's setup step (src/factors/) checks what the user gave before anything changes.
  const input: SetupRequest = { factors };
  for (const factor of factors) {
    Object.assign(
      input,
      await FACTORS[factor].prepare?.({
        ctx,
        loginId: body.loginId,
        request,
        target,
        pending: step,
        body,
      }),
    );
  }
  await takePending(ctx, body.loginId, true);
  const done = await complete(ctx, body.loginId, request, target, step.identity, {
    setup: input,
  });
  if ('mfa' in done) throw new HttpError(500, 'INTERNAL_ERROR', 'unexpected MFA step');
  return [
    200,
    {
      sessionId: done.sessionId,
      url: done.redirect,
      // Shown once: the service keeps no copy.
      backupPhrase: done.setup?.backupPhrase,
    },
  ];
});

/** The social-backup login as a factor (`payload`: `{verifier, id_token}` of the second verifier). */
const social = route(signedCall(SOCIAL_LOGIN), async (ctx, body, path, client) => {
  const grant = await grantFor(ctx, path, body);
  return typedFactor(ctx, grant, FACTORS.socialBackupFactor, body.payload, client.address);
});

/**
 * A typed second factor, checked here where attempts are counted: `{password}` opens the sealed
 * password share (never handed to a session), `{backupPhrase}` must rebuild the recorded key with
 * the service's share. The answer is the factor's share; nothing typed is stored or logged.
 */
const factor = route(signedCall(TYPED_FACTOR_PAYLOAD), async (ctx, body, path, client) => {
  const grant = await grantFor(ctx, path, body);
  const found = typedFactorOf(body.payload);
  if (!found) {
    throw new InvalidBodyError(
      'payload',
      'payload must be {password}, {backupPhrase}, {authenticatorCode}, {passkeyAssertion} or {socialBackup}',
    );
  }
  return typedFactor(ctx, grant, found.module, found.value, client.address);
});

const device = route(signedCall(optional(fields({}))), async (ctx, body, path) => {
  const policy = await policyOfCaller(ctx, body.key);
  if (policy !== 'app') {
    await callerChain(ctx, path, body);
    // A device share is a share of the key, made on the device from two others: an app that may
    // not hold the key may hold no share either, second factor or not.
    throw new HttpError(
      403,
      'DEVICE_SHARE_WITHHELD',
      `This app's export policy is "${policy}": it holds no share of the key, so it cannot add a device share`,
    );
  }
  const { userId } = await secondFactorGrant(ctx, path, body);
  let added: Awaited<ReturnType<typeof ctx.mfaStore.addDevice>>;
  try {
    added = await ctx.mfaStore.addDevice(userId);
  } catch (err) {
    throw new HttpError(400, 'MFA_FACTOR_NOT_SET_UP', (err as Error).message, { cause: err });
  }
  await ctx.deps.audit.record('mfa.device.added', userId, { deviceId: added.deviceId });
  return [200, added];
});

const revoke = route(signedCall(fields({ deviceId: string })), async (ctx, body, path) => {
  const userId = await revokeRight(ctx, path, body);
  const { deviceId } = body.payload;
  if (!(await ctx.mfaStore.revokeDevice(userId, deviceId)))
    throw new HttpError(404, 'DEVICE_NOT_FOUND', 'No such device, or already revoked');
  await ctx.deps.audit.record('mfa.device.revoked', userId, { deviceId });
  return [200, { ok: true }];
});

export const mfaRoutes: Record<string, Route> = {
  '/api/mfa/pending': pending,
  '/api/mfa/recover': recover,
  '/api/mfa/passkey': passkeyFactorRoute,
  '/api/mfa/skip': skip,
  '/api/mfa/setup': setup,
  '/api/mfa/authenticator': authenticator,
  '/api/mfa/social': social,
  '/api/mfa/factor': factor,
  '/api/mfa/device': device,
  '/api/mfa/revoke': revoke,
};
