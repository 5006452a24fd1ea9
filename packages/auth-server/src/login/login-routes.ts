// The login page's and the library's `/api/login/*` and `/api/dev-login` calls, and the OpenID
// callback: from the parked request to a provider, and from its answer to the app.
import { encodeB64Params, type LoginRequest } from '@portico/auth';
import { storeKeyOf } from '@portico/auth/protocol';
import { field, fields, loginId, optional, string } from '../body.ts';
import { HttpError } from '../http.ts';
import { pageWhiteLabel } from '../page-view.ts';
import { VerifierError } from '../verifiers/types.ts';
import { complete } from './complete.ts';
import {
  type ConfirmMfa,
  type LoginContext,
  type PendingMfa,
  type RecoverMfa,
  type Route,
  route,
} from './context.ts';
import { newFlowId, putFlow, takeFlow } from './flows.ts';
import { passkeyStep } from './passkey-routes.ts';
import { extraFor, providersFor, readRequest, resolveProvider, resultUrl } from './request.ts';

/** Starts a login with a provider: the URL the page goes to next. */
async function authorize(
  ctx: LoginContext,
  loginId: string,
  request: LoginRequest,
  provider: string,
): Promise<
  | { url: string }
  | { devState: string }
  | { mfa: PendingMfa | RecoverMfa | ConfirmMfa }
  | { passkey: { link: boolean; register: boolean } }
> {
  const { verifierConfigs, jwtVerifiers, oidcVerifiers, sdkUrl } = ctx.deps;
  const target = resolveProvider(ctx, request, provider);
  const config = verifierConfigs.get(target.authVerifier);
  if (config?.type === 'jwt') {
    const token = request.params.extraLoginOptions?.id_token;
    if (!token)
      throw new HttpError(
        400,
        'PROVIDER_INVALID',
        `Verifier "${target.authVerifier}" needs extraLoginOptions.id_token`,
      );
    const identity = await jwtVerifiers.get(target.authVerifier)!.verify(token, extraFor(request, target));
    const done = await complete(ctx, loginId, request, target, identity, undefined, true);
    return 'mfa' in done ? { mfa: done.mfa } : { url: done.redirect };
  }
  if (config?.type === 'oidc') {
    const flowId = newFlowId();
    const { url, flow } = await oidcVerifiers
      .get(target.authVerifier)!
      .start(`${sdkUrl}/callback`, extraFor(request, target), flowId);
    await putFlow(ctx, { loginId, provider, oidc: flow }, flowId);
    return { url };
  }
  // Passkeys: the page runs the WebAuthn ceremony (/api/login/passkey/*).
  if (config?.type === 'passkey') return { passkey: await passkeyStep(ctx, loginId, config) };
  if (config?.type === 'aggregate')
    throw new HttpError(400, 'PROVIDER_INVALID', `Verifier "${target.authVerifier}" is an aggregate`);
  // Development login (configured `dev` verifier, or devLogin for an unconfigured one).
  return { devState: await putFlow(ctx, { loginId, provider, dev: true }) };
}

/** The OIDC callback: where to send the browser next (the app, with a sessionId or an error). */
export async function callbackRedirect(ctx: LoginContext, url: URL): Promise<string> {
  const flow = await takeFlow(ctx, url.searchParams.get('state'));
  const request = await readRequest(ctx, flow.loginId);
  try {
    const target = resolveProvider(ctx, request, flow.provider);
    const verifier = ctx.deps.oidcVerifiers.get(target.authVerifier);
    if (!verifier || !flow.oidc) throw new VerifierError('Login state does not belong to an OpenID verifier');
    const identity = await verifier.finish(url, flow.oidc);
    const done = await complete(ctx, flow.loginId, request, target, identity, undefined, true);
    // The MFA setup screen is on the login page: back to it, same loginId.
    return 'mfa' in done
      ? `${ctx.deps.sdkUrl}/start#b64Params=${encodeB64Params({ loginId: flow.loginId, mfa: true })}`
      : done.redirect;
  } catch (err) {
    if (!(err instanceof VerifierError || err instanceof HttpError)) throw err;
    const code = err instanceof VerifierError ? err.code : 'LOGIN_FAILED';
    await ctx.deps.audit.record('login', undefined, {
      outcome: 'failure',
      verifier: flow.provider,
      clientId: request.options.clientId,
      network: request.options.network,
      reason: err.message,
    });
    return resultUrl(ctx, request, { error: err.message, code });
  }
}

const LOGIN = fields({ loginId });

const request = route(LOGIN, async (ctx, body) => {
  const parked = await readRequest(ctx, body.loginId);
  return [
    200,
    {
      whiteLabel: pageWhiteLabel(parked, ctx.deps.sdkUrl),
      providers: providersFor(ctx, parked),
      loginProvider: parked.params.loginProvider,
      redirectUrl: parked.options.redirectUrl,
    },
  ];
});

const authorizeRoute = route(fields({ loginId, provider: optional(string) }), async (ctx, body) => {
  const parked = await readRequest(ctx, body.loginId);
  const provider = body.provider ?? parked.params.loginProvider;
  if (!provider) throw new HttpError(400, 'PROVIDER_INVALID', 'provider is required');
  try {
    return [200, await authorize(ctx, body.loginId, parked, provider)];
  } catch (err) {
    if (!(err instanceof VerifierError)) throw err;
    return [200, { url: resultUrl(ctx, parked, { error: err.message, code: err.code }) }];
  }
});

const cancel = route(LOGIN, async (ctx, body) => {
  const parked = await readRequest(ctx, body.loginId);
  await ctx.deps.store.deleteSession(storeKeyOf(body.loginId));
  return [200, { url: resultUrl(ctx, parked, { error: 'User cancelled.', code: 'USER_CANCELLED' }) }];
});

const jwt = route(LOGIN, async (ctx, body, _path, client) => {
  const parked = await readRequest(ctx, body.loginId);
  const provider = parked.params.loginProvider ?? 'jwt';
  const target = resolveProvider(ctx, parked, provider);
  const verifier = ctx.deps.jwtVerifiers.get(target.authVerifier);
  if (!verifier)
    throw new HttpError(400, 'PROVIDER_INVALID', `Verifier "${target.authVerifier}" is not a JWT verifier`);
  const token = parked.params.extraLoginOptions?.id_token;
  if (!token) throw new HttpError(400, 'PROVIDER_INVALID', 'extraLoginOptions.id_token is required');
  try {
    const identity = await verifier.verify(token, extraFor(parked, target));
    const done = await complete(ctx, body.loginId, parked, target, identity);
    return [200, 'mfa' in done ? { mfa: done.mfa } : { sessionId: done.sessionId }];
  } catch (err) {
    if (err instanceof VerifierError) {
      await ctx.deps.audit.record('login', undefined, {
        outcome: 'failure',
        verifier: target.authVerifier,
        clientId: parked.options.clientId,
        network: parked.options.network,
        address: client.address,
        reason: err.message,
      });
    }
    throw err;
  }
});

const EMAIL = /^[^\s@]+@[^\s@]+$/;

const DEV_LOGIN = fields({
  state: string,
  email: field<string>('an email address', (v) => typeof v === 'string' && EMAIL.test(v.trim())),
  name: optional(string),
});

const devLoginSubmit = route(DEV_LOGIN, async (ctx, body) => {
  const { verifierConfigs } = ctx.deps;
  const flow = await takeFlow(ctx, body.state);
  const parked = await readRequest(ctx, flow.loginId);
  const email = body.email.trim().toLowerCase();
  const target = resolveProvider(ctx, parked, flow.provider);
  const config = verifierConfigs.get(target.authVerifier);
  if (!flow.dev || flow.oidc || (config ? config.type !== 'dev' : !ctx.deps.devLogin)) {
    throw new HttpError(403, 'DEV_LOGIN_REFUSED', 'This login cannot be completed by the development login');
  }
  const name = body.name?.trim() || email.split('@')[0];
  const done = await complete(
    ctx,
    flow.loginId,
    parked,
    target,
    { verifierId: email, email, name },
    undefined,
    true,
  );
  return [200, 'mfa' in done ? { mfa: done.mfa } : { url: done.redirect }];
});

/** The development login's form, answered only where it is on (its body is checked after that). */
const devLogin: Route = (ctx, body, path, client) => {
  const { verifierConfigs } = ctx.deps;
  if (!ctx.deps.devLogin && ![...verifierConfigs.values()].some((c) => c.type === 'dev')) {
    throw new HttpError(404, 'DEV_LOGIN_OFF', 'Development login is off');
  }
  return devLoginSubmit(ctx, body, path, client);
};

export const loginRoutes: Record<string, Route> = {
  '/api/login/request': request,
  '/api/login/authorize': authorizeRoute,
  '/api/login/cancel': cancel,
  '/api/login/jwt': jwt,
  '/api/dev-login': devLogin,
};
