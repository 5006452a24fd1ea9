// The login page's and the library's `/api/login/*` and `/api/dev-login` calls, and the OpenID
// callback: from the parked request to a provider, and from its answer to the app.
import { encodeB64Params, type LoginRequest, storeKeyOf } from '@portico/auth';
import { HttpError } from '../http.ts';
import { pageWhiteLabel } from '../page-view.ts';
import { VerifierError } from '../verifiers/types.ts';
import { complete } from './complete.ts';
import type { LoginContext, PendingMfa, RecoverMfa, Route } from './context.ts';
import { newFlowId, putFlow, takeFlow } from './flows.ts';
import { extraFor, providersFor, readRequest, resolveProvider, resultUrl } from './request.ts';

/** Starts a login with a provider: the URL the page goes to next. */
async function authorize(
  ctx: LoginContext,
  loginId: string,
  request: LoginRequest,
  provider: string,
): Promise<{ url: string } | { devState: string } | { mfa: PendingMfa | RecoverMfa }> {
  const { verifierConfigs, jwtVerifiers, oidcVerifiers, sdkUrl } = ctx.deps;
  const target = resolveProvider(ctx, request, provider);
  const config = verifierConfigs.get(target.authVerifier);
  if (config?.type === 'jwt') {
    const token = request.params.extraLoginOptions?.id_token;
    if (!token)
      throw new HttpError(400, `Verifier "${target.authVerifier}" needs extraLoginOptions.id_token`);
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
  if (config?.type === 'aggregate')
    throw new HttpError(400, `Verifier "${target.authVerifier}" is an aggregate`);
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

const request: Route = async (ctx, body) => {
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
};

const authorizeRoute: Route = async (ctx, body) => {
  const parked = await readRequest(ctx, body.loginId);
  const provider = typeof body.provider === 'string' ? body.provider : parked.params.loginProvider;
  if (!provider) throw new HttpError(400, 'provider is required');
  try {
    return [200, await authorize(ctx, body.loginId as string, parked, provider)];
  } catch (err) {
    if (!(err instanceof VerifierError)) throw err;
    return [200, { url: resultUrl(ctx, parked, { error: err.message, code: err.code }) }];
  }
};

const cancel: Route = async (ctx, body) => {
  const parked = await readRequest(ctx, body.loginId);
  await ctx.deps.store.deleteSession(storeKeyOf(body.loginId as string));
  return [200, { url: resultUrl(ctx, parked, { error: 'User cancelled.', code: 'USER_CANCELLED' }) }];
};

const jwt: Route = async (ctx, body, _path, client) => {
  const parked = await readRequest(ctx, body.loginId);
  const provider = parked.params.loginProvider ?? 'jwt';
  const target = resolveProvider(ctx, parked, provider);
  const verifier = ctx.deps.jwtVerifiers.get(target.authVerifier);
  if (!verifier) throw new HttpError(400, `Verifier "${target.authVerifier}" is not a JWT verifier`);
  const token = parked.params.extraLoginOptions?.id_token;
  if (!token) throw new HttpError(400, 'extraLoginOptions.id_token is required');
  try {
    const identity = await verifier.verify(token, extraFor(parked, target));
    const done = await complete(ctx, body.loginId as string, parked, target, identity);
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
      return [401, { error: err.message, code: err.code }];
    }
    throw err;
  }
};

const devLogin: Route = async (ctx, body) => {
  const { verifierConfigs } = ctx.deps;
  if (!ctx.deps.devLogin && ![...verifierConfigs.values()].some((c) => c.type === 'dev')) {
    throw new HttpError(404, 'Development login is off');
  }
  const flow = await takeFlow(ctx, typeof body.state === 'string' ? body.state : null);
  const parked = await readRequest(ctx, flow.loginId);
  const email = typeof body.email === 'string' ? body.email.trim().toLowerCase() : '';
  if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw new HttpError(400, 'A valid email is required');
  const target = resolveProvider(ctx, parked, flow.provider);
  const config = verifierConfigs.get(target.authVerifier);
  if (!flow.dev || flow.oidc || (config ? config.type !== 'dev' : !ctx.deps.devLogin)) {
    throw new HttpError(403, 'This login cannot be completed by the development login');
  }
  const name = typeof body.name === 'string' && body.name.trim() ? body.name.trim() : email.split('@')[0];
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
};

export const loginRoutes: Record<string, Route> = {
  '/api/login/request': request,
  '/api/login/authorize': authorizeRoute,
  '/api/login/cancel': cancel,
  '/api/login/jwt': jwt,
  '/api/dev-login': devLogin,
};
