// The confirmation calls: a sign-in shows the service a second factor, which the service checks
// itself and marks the sign-in with (../second-factor.ts). Under export policy `user` or `off` the
// app never holds the key nor a share, so this is how its session gets the rights of a sign-in that
// passed the second factor. From the app: `/api/mfa/confirm` (a typed factor, signed by the
// sessionId), its passkey challenge, and `/status`. From the login page's confirmation step
// (./confirm-step.ts): `/login` (a factor for the sign-in the login just made) and `/later`.
// The passkey's own page (the app's passkey confirmation) is ./confirm-page-routes.ts.
import { fields, InvalidBodyError, loginId, optional, signedCall } from '../body.ts';
import { type FactorModule, TYPED_FACTOR_PAYLOAD, typedFactorOf } from '../factors/index.ts';
import { confirmChallenge } from '../factors/passkey.ts';
import { HttpError } from '../http.ts';
import { markName, markSecondFactor } from '../second-factor.ts';
import type { ChainRow } from '../store.ts';
import { CONFIRMABLE, endConfirmStep, readConfirmStep } from './confirm-step.ts';
import { type LoginContext, type Route, route } from './context.ts';
import { callerChain, chainCaller, liveChain, typedFactor } from './factor-check.ts';
import { readRequest } from './request.ts';

const CONFIRMABLE_FIELDS = '{password}, {backupPhrase}, {authenticatorCode} or {passkeyAssertion}';

/** The confirmable factor a checked typed-factor payload names; else 400 naming what is taken. */
function confirmableFactor(payload: Record<string, unknown>): { module: FactorModule; value: unknown } {
  const found = typedFactorOf(payload);
  if (!found || !CONFIRMABLE.includes(found.module.key)) {
    throw new InvalidBodyError('payload', `payload must be ${CONFIRMABLE_FIELDS}`);
  }
  return found;
}

/**
 * Checks a factor for the sign-in `chain` under the attempt limits (as `/api/mfa/factor`, audited
 * alike) and marks the sign-in. The factor's share is dropped here: nothing reaches the caller.
 */
export async function confirmSignIn(
  ctx: LoginContext,
  chain: ChainRow,
  factor: { module: FactorModule; value: unknown },
  address: string,
): Promise<void> {
  await typedFactor(ctx, chainCaller(ctx, chain), factor.module, factor.value, address);
  await markSecondFactor(ctx.deps.store, chain);
}

/**
 * A typed second factor checked for a session, marking its chain as having passed it. Nothing is
 * answered but `ok`: under export policy `user` or `off` the app holds no share, and this call
 * hands it none.
 */
const confirm = route(signedCall(TYPED_FACTOR_PAYLOAD), async (ctx, body, path, client) => {
  const chain = await callerChain(ctx, path, body);
  await confirmSignIn(ctx, chain, confirmableFactor(body.payload), client.address);
  return [200, { ok: true }];
});

/**
 * `POST /api/mfa/confirm/passkey`: a challenge for the session's `{passkeyAssertion}` on
 * `/api/mfa/confirm` (the account's factor passkey; relying party: this service). Bound to the
 * session's sign-in and single use.
 */
const confirmPasskey = route(signedCall(optional(fields({}))), async (ctx, body, path) => {
  const chain = await callerChain(ctx, path, body);
  return [200, await confirmChallenge(ctx, chain.userId, chain.id)];
});

/** `POST /api/mfa/confirm/status`: whether the session's sign-in is marked (the library waits on it). */
const status = route(signedCall(optional(fields({}))), async (ctx, body, path) => {
  const chain = await callerChain(ctx, path, body);
  const mark = await ctx.deps.store.getSession(markName(chain.id), ctx.deps.now());
  return [200, { confirmed: mark !== undefined }];
});

/** The sign-in a login's confirmation step marks, while the step and the sign-in last. */
async function stepChain(ctx: LoginContext, id: string) {
  await readRequest(ctx, id);
  const step = await readConfirmStep(ctx, id);
  if (!step) throw new HttpError(404, 'MFA_NOT_PENDING', 'No confirmation pending for this login');
  const chain = await liveChain(ctx, step.userId, step.chainId);
  if (!chain) throw new HttpError(404, 'SESSION_NOT_FOUND', 'The sign-in of this login has ended');
  return { step, chain };
}

/**
 * `POST /api/mfa/confirm/login {loginId, factor}`: the login page's confirmation step. The factor
 * is checked as on `/api/mfa/confirm` and marks the sign-in this login made; the answer is where
 * the page goes on (the app's result). A wrong factor may be tried again (within the attempt limits).
 */
const confirmLogin = route(
  fields({ loginId, factor: TYPED_FACTOR_PAYLOAD }),
  async (ctx, body, _path, client) => {
    const { step, chain } = await stepChain(ctx, body.loginId);
    const factor = typedFactorOf(body.factor);
    if (!factor || !CONFIRMABLE.includes(factor.module.key) || !step.factors.includes(factor.module.key)) {
      throw new InvalidBodyError('factor', `factor must be one of this account's ${CONFIRMABLE_FIELDS}`);
    }
    await confirmSignIn(ctx, chain, factor, client.address);
    await endConfirmStep(ctx, body.loginId);
    return [200, { url: step.redirect }];
  },
);

/** `POST /api/mfa/confirm/later {loginId}`: the user skips the step; the app may confirm later. */
const confirmLater = route(fields({ loginId }), async (ctx, body) => {
  await readRequest(ctx, body.loginId);
  const step = await readConfirmStep(ctx, body.loginId);
  if (!step) throw new HttpError(404, 'MFA_NOT_PENDING', 'No confirmation pending for this login');
  await endConfirmStep(ctx, body.loginId);
  return [200, { url: step.redirect }];
});

export const confirmRoutes: Record<string, Route> = {
  '/api/mfa/confirm': confirm,
  '/api/mfa/confirm/passkey': confirmPasskey,
  '/api/mfa/confirm/status': status,
  '/api/mfa/confirm/login': confirmLogin,
  '/api/mfa/confirm/later': confirmLater,
};
