// What the session-signed MFA calls share: the signed body, the checks of who signed it (the login's
// MFA grant, or the live sign-in), and a typed factor's check under the attempt limits.
import { type KeyShare, verifyStoreMessage } from '@portico/auth/protocol';
import { type AttemptSubjects, TooManyAttemptsError } from '../attempts.ts';
import type { CheckResult, FactorCaller, FactorModule } from '../factors/index.ts';
import { HttpError } from '../http.ts';
import type { ChainRow } from '../store.ts';
import type { Answer, Grant, LoginContext } from './context.ts';
import { openJson } from './sealed.ts';

/** A session-signed MFA call, as checked by its route's schema. */
export interface SignedBody {
  key: string;
  signature: string;
  payload?: unknown;
  proof?: string;
}

/** Checks a session-signed MFA call: the signature by the sessionId and the session's grant. */
export async function grantFor(ctx: LoginContext, path: string, body: SignedBody): Promise<Grant> {
  const { store, envelope, now } = ctx.deps;
  const { key, signature, payload } = body;
  if (!verifyStoreMessage(key, `${path}:${JSON.stringify(payload ?? {})}`, signature)) {
    throw new HttpError(401, 'BAD_SIGNATURE', 'Bad signature');
  }
  const name = `mfa-grant:${key}`;
  const sealed = await store.getSession(name, now());
  if (!sealed) throw new HttpError(403, 'MFA_SESSION_REQUIRED', 'No MFA session: log in again');
  return openJson<Grant>(envelope, name, sealed);
}

/** The live sign-in whose session signed the call. */
export function callerChain(ctx: LoginContext, path: string, body: SignedBody): Promise<ChainRow> {
  const { chains, now } = ctx.deps;
  const payloadJson = JSON.stringify(body.payload ?? {});
  return chains.caller(body.key, () => `${path}:${payloadJson}`, body.signature, now());
}

/** The sign-in `chainId` of `userId` while it is live (not ended, not expired); else undefined. */
export async function liveChain(ctx: LoginContext, userId: string, chainId: string) {
  return (await ctx.deps.chains.listOfUser(userId, ctx.deps.now())).find((c) => c.id === chainId);
}

/** A sign-in as a factor check's caller: its user, the key's verifier and the chain itself. */
export function chainCaller(ctx: LoginContext, chain: ChainRow): FactorCaller {
  const claims = openJson<{ verifier: string }>(ctx.deps.envelope, `chain-claims:${chain.id}`, chain.claims);
  return { userId: chain.userId, keyVerifier: claims.verifier, chainId: chain.id };
}

/**
 * Runs a typed-factor check under the attempt limits: refused while a wait runs (a right guess
 * too), a failure counted, a success clearing the user's count; each outcome audited.
 */
async function limitedFactor(
  ctx: LoginContext,
  subjects: AttemptSubjects,
  factor: string,
  check: () => Promise<CheckResult>,
): Promise<KeyShare> {
  const { attempts, audit, now } = ctx.deps;
  const where = { factor, address: subjects.address };
  const gate = await attempts.begin(subjects);
  if (!gate.allowed) {
    await audit.record('mfa.factor', subjects.userId, {
      ...where,
      outcome: 'refused',
      reason: gate.error.message,
    });
    throw gate.error;
  }
  let result: CheckResult;
  try {
    result = await check();
  } catch (err) {
    // A check that throws (a social login refused, the store down) has used the attempt `begin`
    // counted: the trail shows it as every other outcome.
    const reason = err instanceof HttpError ? err.message : 'the check failed';
    await audit.record('mfa.factor', subjects.userId, { ...where, outcome: 'failure', reason });
    throw err;
  }
  if ('share' in result) {
    await attempts.succeeded(subjects);
    await audit.record('mfa.factor', subjects.userId, { ...where, outcome: 'success' });
    return result.share;
  }
  await audit.record('mfa.factor', subjects.userId, { ...where, outcome: 'failure', reason: result.message });
  if (gate.notBefore > now()) {
    await audit.record('attempts.locked', subjects.userId, {
      ...where,
      until: gate.notBefore,
      subject: gate.locks,
    });
    const wait = new TooManyAttemptsError(gate.notBefore, Math.ceil((gate.notBefore - now()) / 1000));
    throw new HttpError(result.status, 'MFA_FACTOR_INVALID', `${result.message}. ${wait.message}`, {
      details: { retryAfter: wait.retryAfterSeconds },
    });
  }
  throw new HttpError(result.status, 'MFA_FACTOR_INVALID', result.message);
}

/** A typed factor's check under the attempt limits, by its module: the factor's share, or a refusal. */
export async function typedShare(
  ctx: LoginContext,
  grant: FactorCaller,
  module: FactorModule,
  value: unknown,
  address: string,
): Promise<KeyShare> {
  const check = module.check!;
  const record = await ctx.mfaStore.load(grant.userId);
  if (!record) throw new HttpError(404, 'MFA_NOT_ENABLED', 'MFA is not enabled for this user');
  check.ready(record);
  return limitedFactor(ctx, { userId: grant.userId, address }, check.auditName, () =>
    check.open(ctx, record, value, grant),
  );
}

/** `typedShare` as a route's answer (`{share}`). */
export async function typedFactor(
  ctx: LoginContext,
  grant: FactorCaller,
  module: FactorModule,
  value: unknown,
  address: string,
): Promise<Answer> {
  return [200, { share: await typedShare(ctx, grant, module, value, address) }];
}
