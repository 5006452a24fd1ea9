// The parked login request: reading and checking it, the provider it names, the providers the
// page lists, and the result URL the login ends on.
import {
  type ExtraLoginOptions,
  encodeB64Params,
  type LoginRequest,
  normalizeInitParams,
  validateLoginParams,
} from '@portico/auth';
import { decryptJson, ownValue, storeKeyOf } from '@portico/auth/protocol';
import { HttpError } from '../http.ts';
import { isServiceDonePage, redirectRefusal, relayOriginRefusal, unusableRedirect } from '../redirects.ts';
import type { LoginContext, ResolvedProvider } from './context.ts';

const HEX_PRIV = /^[0-9a-f]{64}$/;
/** A login's `state`: the library sends 32 hex characters; other clients any 16-128 URL-safe ones. */
const STATE = /^[A-Za-z0-9_-]{16,128}$/;

export async function readRequest(ctx: LoginContext, loginId: unknown): Promise<LoginRequest> {
  const { store, now, sdkUrl } = ctx.deps;
  if (typeof loginId !== 'string' || !HEX_PRIV.test(loginId))
    throw new HttpError(400, 'INVALID_BODY', 'loginId must be 64 hex characters');
  const stored = await store.getSession(storeKeyOf(loginId), now());
  if (!stored)
    throw new HttpError(404, 'LOGIN_NOT_FOUND', 'Login request not found or expired: start the login again');
  let request: LoginRequest;
  try {
    request = decryptJson<LoginRequest>(loginId, stored);
  } catch {
    throw new HttpError(400, 'LOGIN_REQUEST_INVALID', 'Login request could not be decrypted');
  }
  // The request comes from the app: validate it like the library does.
  let params: ReturnType<typeof normalizeInitParams>['params'];
  let loginParams: LoginRequest['params'];
  try {
    ({ params } = normalizeInitParams({ ...request.options, sdkUrl: undefined, redirectUrl: undefined }));
    loginParams = validateLoginParams(request.params, params);
  } catch (err) {
    throw new HttpError(400, 'LOGIN_REQUEST_INVALID', (err as Error).message);
  }
  if (typeof request.options?.redirectUrl !== 'string' || !URL.canParse(request.options.redirectUrl)) {
    throw new HttpError(400, 'LOGIN_REQUEST_INVALID', 'Login request has no valid redirectUrl');
  }
  const unusable = unusableRedirect(request.options.redirectUrl);
  if (unusable) throw new HttpError(400, 'LOGIN_REQUEST_INVALID', unusable);
  const refusal = redirectRefusal(ctx.redirectPolicy, params.clientId, request.options.redirectUrl);
  if (refusal) throw new HttpError(403, 'REDIRECT_NOT_ALLOWED', refusal);
  const deviceId = request.mfa?.deviceId;
  const origin =
    typeof request.origin === 'string' && URL.canParse(request.origin)
      ? new URL(request.origin).origin
      : undefined;
  // The /done page hands the result to the window that opened the login, on this origin: it
  // must be one the client id may send results to, as a redirect's would.
  if (origin && isServiceDonePage(ctx.redirectPolicy, request.options.redirectUrl)) {
    const relayRefused = relayOriginRefusal(ctx.redirectPolicy, params.clientId, origin);
    if (relayRefused) throw new HttpError(403, 'REDIRECT_NOT_ALLOWED', relayRefused);
  }
  return {
    options: { ...params, sdkUrl, redirectUrl: request.options.redirectUrl },
    params: loginParams,
    actionType: 'login',
    origin,
    mfa: typeof deviceId === 'string' && /^[0-9a-f]{32}$/.test(deviceId) ? { deviceId } : undefined,
    state: typeof request.state === 'string' && STATE.test(request.state) ? request.state : undefined,
    popup: request.popup === true || undefined,
    // A label only (the session list cleans and cuts it).
    device: typeof request.device === 'string' ? request.device : undefined,
  };
}

export function resolveProvider(
  ctx: LoginContext,
  request: LoginRequest,
  provider: string,
): ResolvedProvider {
  const { verifierConfigs, devLogin } = ctx.deps;
  const entry = ownValue(request.options.loginConfig, provider);
  const keyVerifier = entry?.verifier ?? provider;
  const sub = entry?.verifierSubIdentifier;
  let authVerifier = keyVerifier;
  if (sub) {
    const aggregate = verifierConfigs.get(keyVerifier);
    if (aggregate?.type !== 'aggregate' || !aggregate.subVerifiers.includes(sub)) {
      throw new HttpError(
        400,
        'PROVIDER_INVALID',
        `Verifier "${keyVerifier}" is not an aggregate verifier with sub-verifier "${sub}"`,
      );
    }
    authVerifier = sub;
  }
  const config = verifierConfigs.get(authVerifier);
  if (!config && !devLogin)
    throw new HttpError(
      400,
      'PROVIDER_INVALID',
      `Verifier "${authVerifier}" is not configured on this auth service`,
    );
  if (config?.type === 'oidc' && entry && entry.clientId !== config.clientId) {
    throw new HttpError(
      400,
      'PROVIDER_INVALID',
      `loginConfig.${provider}.clientId does not match verifier "${authVerifier}"`,
    );
  }
  return { provider, keyVerifier, authVerifier, typeOfLogin: entry?.typeOfLogin ?? provider, entry };
}

/** The login's ExtraLoginOptions: the loginConfig entry's jwtParameters, overridden by the login's own. */
export function extraFor(request: LoginRequest, target: ResolvedProvider): ExtraLoginOptions {
  return { ...target.entry?.jwtParameters, ...request.params.extraLoginOptions };
}

export function isCustomVerifier(ctx: LoginContext, target: ResolvedProvider): boolean {
  return ctx.deps.verifierConfigs.get(target.authVerifier)?.type === 'jwt';
}

/**
 * The app's redirectUrl with the result in the fragment: the login's `state` and popup mark, and
 * its v5/v6 appState, echoed. On the service's own /done page the fragment also names the origin
 * the page may hand the result to (the app that opened the login popup).
 */
export function resultUrl(ctx: LoginContext, request: LoginRequest, result: Record<string, string>): string {
  const { appState } = request.params;
  const payload: Record<string, unknown> = { ...result };
  if (request.state !== undefined) payload.state = request.state;
  if (request.popup) payload.popup = true;
  if (appState !== undefined) payload.appState = appState;
  const { redirectUrl } = request.options;
  const relay =
    request.origin && isServiceDonePage(ctx.redirectPolicy, redirectUrl)
      ? `&origin=${encodeURIComponent(request.origin)}`
      : '';
  return `${redirectUrl.split('#')[0]}#b64Params=${encodeB64Params(payload)}${relay}`;
}

/** The login page's buttons: the app's loginConfig, else the service's OpenID and dev verifiers. */
export function providersFor(
  ctx: LoginContext,
  request: LoginRequest,
): Array<{ id: string; name: string; typeOfLogin: string }> {
  const { verifierConfigs, devLogin } = ctx.deps;
  const lc = request.options.loginConfig;
  if (lc && Object.keys(lc).length > 0) {
    return Object.entries(lc)
      .filter(([, e]) => e.showOnModal !== false)
      .map(([id, e]) => ({ id, name: e.name ?? id, typeOfLogin: e.typeOfLogin }));
  }
  const list = [...verifierConfigs]
    .filter(([, c]) => c.type === 'oidc' || c.type === 'dev' || c.type === 'passkey')
    .map(([id, c]) => ({
      id,
      name: (c as { name?: string }).name ?? (c.type === 'passkey' ? 'Passkey' : id),
      typeOfLogin: c.type,
    }));
  // A passkey verifier alone does not hide the development login's button.
  if (devLogin && list.every((p) => p.typeOfLogin === 'passkey'))
    list.push({ id: 'portico-dev', name: 'Development login', typeOfLogin: 'dev' });
  return list;
}
