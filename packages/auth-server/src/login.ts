import { bytesToHex, randomBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import {
  type AuthLoginConfig,
  type AuthState,
  type AuthUserInfo,
  DEFAULT_PRIMARY_COLOR,
  decryptJson,
  encodeB64Params,
  encryptJsonTo,
  type LoginRequest,
  normalizeInitParams,
  randomPrivKey,
  storeKeyOf,
  validateLoginParams,
} from '@portico/auth';
import type { Envelope } from './envelope.ts';
import { HttpError } from './http.ts';
import type { KeyService, TokenSigner } from './keys.ts';
import { walletsFor } from './keys.ts';
import type { AuthStore } from './store.ts';
import type { VerifierConfig } from './verifiers/config.ts';
import type { JwtVerifier } from './verifiers/jwt.ts';
import type { OidcFlow, OidcVerifier } from './verifiers/oidc.ts';
import { type Identity, VerifierError } from './verifiers/types.ts';

const FLOW_TTL_MS = 10 * 60 * 1000;
const HEX_PRIV = /^[0-9a-f]{64}$/;

/** Where the login goes: the key's verifier, the verifier that authenticates, and how. */
interface ResolvedProvider {
  provider: string;
  keyVerifier: string;
  authVerifier: string;
  typeOfLogin: string;
  entry?: AuthLoginConfig;
}

/** Server-side state between the authorization request and the callback (sealed in the store). */
interface Flow {
  loginId: string;
  provider: string;
  oidc?: OidcFlow;
  /** Set only for flows the development login may complete. */
  dev?: true;
}

/** What the login path needs; handed in by `startAuthServer`. */
export interface LoginDeps {
  store: AuthStore;
  envelope: Envelope;
  keyService: KeyService;
  signer: TokenSigner;
  verifierConfigs: Record<string, VerifierConfig>;
  jwtVerifiers: Map<string, JwtVerifier>;
  oidcVerifiers: Map<string, OidcVerifier>;
  devLogin: boolean;
  sdkUrl: string;
  allowedRedirectOrigins?: string[];
  now: () => number;
  log: (line: string) => void;
}

/** Paths the client library calls from the app's origin. */
export const LOGIN_CORS_PATHS = ['/api/login/jwt'];

/**
 * The login path: parked request → provider → verifier → keys → idToken → encrypted session →
 * redirect. MFA (issue 6) slots in at `complete`, between the identity and the session.
 */
export function createLogin(deps: LoginDeps) {
  const {
    store,
    envelope,
    keyService,
    signer,
    verifierConfigs,
    jwtVerifiers,
    oidcVerifiers,
    devLogin,
    sdkUrl,
    now,
    log,
  } = deps;
  const options = { allowedRedirectOrigins: deps.allowedRedirectOrigins };

  async function readRequest(loginId: unknown): Promise<LoginRequest> {
    if (typeof loginId !== 'string' || !HEX_PRIV.test(loginId))
      throw new HttpError(400, 'loginId must be 64 hex characters');
    const stored = await store.getSession(storeKeyOf(loginId), now());
    if (!stored) throw new HttpError(404, 'Login request not found or expired: start the login again');
    let request: LoginRequest;
    try {
      request = decryptJson<LoginRequest>(loginId, stored);
    } catch {
      throw new HttpError(400, 'Login request could not be decrypted');
    }
    // The request comes from the app: validate it like the library does.
    let params: ReturnType<typeof normalizeInitParams>['params'];
    let loginParams: LoginRequest['params'];
    try {
      ({ params } = normalizeInitParams({ ...request.options, sdkUrl: undefined, redirectUrl: undefined }));
      loginParams = validateLoginParams(request.params, params);
    } catch (err) {
      throw new HttpError(400, (err as Error).message);
    }
    if (typeof request.options?.redirectUrl !== 'string' || !URL.canParse(request.options.redirectUrl)) {
      throw new HttpError(400, 'Login request has no valid redirectUrl');
    }
    const redirectUrl = new URL(request.options.redirectUrl);
    if (redirectUrl.protocol !== 'https:' && redirectUrl.protocol !== 'http:') {
      throw new HttpError(400, 'redirectUrl must be http(s)');
    }
    const allowed = options.allowedRedirectOrigins;
    if (
      allowed &&
      !allowed.includes(redirectUrl.origin) &&
      !request.options.redirectUrl.startsWith(`${sdkUrl}/done`)
    ) {
      throw new HttpError(
        403,
        `redirectUrl origin ${redirectUrl.origin} is not allowed on this auth service`,
      );
    }
    return {
      options: { ...params, sdkUrl, redirectUrl: request.options.redirectUrl },
      params: loginParams,
      actionType: 'login',
    };
  }

  function resolveProvider(request: LoginRequest, provider: string): ResolvedProvider {
    const entry = request.options.loginConfig?.[provider];
    const keyVerifier = entry?.verifier ?? provider;
    const sub = entry?.verifierSubIdentifier;
    let authVerifier = keyVerifier;
    if (sub) {
      const aggregate = verifierConfigs[keyVerifier];
      if (aggregate?.type !== 'aggregate' || !aggregate.subVerifiers.includes(sub)) {
        throw new HttpError(
          400,
          `Verifier "${keyVerifier}" is not an aggregate verifier with sub-verifier "${sub}"`,
        );
      }
      authVerifier = sub;
    }
    const config = verifierConfigs[authVerifier];
    if (!config && !devLogin)
      throw new HttpError(400, `Verifier "${authVerifier}" is not configured on this auth service`);
    if (config?.type === 'oidc' && entry && entry.clientId !== config.clientId) {
      throw new HttpError(400, `loginConfig.${provider}.clientId does not match verifier "${authVerifier}"`);
    }
    return { provider, keyVerifier, authVerifier, typeOfLogin: entry?.typeOfLogin ?? provider, entry };
  }

  function resultUrl(redirectUrl: string, result: Record<string, string>): string {
    return `${redirectUrl.split('#')[0]}#b64Params=${encodeB64Params(result)}`;
  }

  /** Derives the keys, signs the idToken, stores the encrypted state under a new sessionId. */
  async function complete(
    loginId: string,
    request: LoginRequest,
    target: ResolvedProvider,
    identity: Identity,
  ) {
    const { clientId, sessionTime } = request.options;
    const keys = await keyService.keysFor(target.keyVerifier, identity.verifierId, clientId);
    const curve = request.params.curve ?? 'secp256k1';
    const idToken = await signer.sign(
      {
        nonce: bytesToHex(randomBytes(16)),
        email: identity.email,
        name: identity.name,
        verifier: target.keyVerifier,
        verifierId: identity.verifierId,
        aggregateVerifier: target.authVerifier !== target.keyVerifier ? target.authVerifier : undefined,
        wallets: walletsFor(keys, curve),
      },
      clientId,
      sessionTime ?? 86400,
    );
    const userInfo: AuthUserInfo = {
      email: identity.email ?? '',
      name: identity.name ?? '',
      profileImage: identity.profileImage ?? '',
      aggregateVerifier: target.authVerifier !== target.keyVerifier ? target.authVerifier : '',
      verifier: target.keyVerifier,
      verifierId: identity.verifierId,
      typeOfLogin: target.typeOfLogin,
      dappShare: '',
      idToken,
      oAuthIdToken: identity.oAuthIdToken ?? '',
      oAuthAccessToken: identity.oAuthAccessToken ?? '',
      isMfaEnabled: false,
    };
    const state: AuthState = { ...keys, userInfo };
    const sessionId = randomPrivKey();
    const key = storeKeyOf(sessionId);
    await store.putSession(key, encryptJsonTo(key, state), now() + (sessionTime ?? 86400) * 1000);
    await store.deleteSession(storeKeyOf(loginId));
    log(`auth: login for verifier ${target.keyVerifier} (${target.typeOfLogin})`);
    return { sessionId, redirect: resultUrl(request.options.redirectUrl, { sessionId }) };
  }

  function newFlowId(): string {
    return bytesToHex(randomBytes(24));
  }

  async function putFlow(flow: Flow, id = newFlowId()): Promise<string> {
    const name = `flow:${id}`;
    await store.putSession(name, envelope.seal(name, utf8ToBytes(JSON.stringify(flow))), now() + FLOW_TTL_MS);
    return id;
  }

  async function takeFlow(id: string | null): Promise<Flow> {
    if (!id || !/^[0-9a-f]{48}$/.test(id)) throw new HttpError(400, 'Missing or malformed login state');
    const name = `flow:${id}`;
    const sealed = await store.getSession(name, now());
    if (!sealed || !(await store.deleteSession(name)))
      throw new HttpError(400, 'Login state unknown, used or expired');
    return JSON.parse(new TextDecoder().decode(envelope.open(name, sealed))) as Flow;
  }

  function providersFor(request: LoginRequest): Array<{ id: string; name: string; typeOfLogin: string }> {
    const lc = request.options.loginConfig;
    if (lc && Object.keys(lc).length > 0) {
      return Object.entries(lc)
        .filter(([, e]) => e.showOnModal !== false)
        .map(([id, e]) => ({ id, name: e.name ?? id, typeOfLogin: e.typeOfLogin }));
    }
    const list = Object.entries(verifierConfigs)
      .filter(([, c]) => c.type === 'oidc' || c.type === 'dev')
      .map(([id, c]) => ({
        id,
        name: (c as { name?: string }).name ?? id,
        typeOfLogin: c.type === 'oidc' ? 'oidc' : 'dev',
      }));
    if (list.length === 0 && devLogin)
      list.push({ id: 'portico-dev', name: 'Development login', typeOfLogin: 'dev' });
    return list;
  }

  /** Starts a login with a provider: the URL the page goes to next. */
  async function authorize(
    loginId: string,
    request: LoginRequest,
    provider: string,
  ): Promise<{ url: string } | { devState: string }> {
    const target = resolveProvider(request, provider);
    const config = verifierConfigs[target.authVerifier];
    if (config?.type === 'jwt') {
      const token = request.params.extraLoginOptions?.id_token;
      if (!token)
        throw new HttpError(400, `Verifier "${target.authVerifier}" needs extraLoginOptions.id_token`);
      const identity = await jwtVerifiers.get(target.authVerifier)!.verify(token);
      return { url: (await complete(loginId, request, target, identity)).redirect };
    }
    if (config?.type === 'oidc') {
      const flowId = newFlowId();
      const { url, flow } = await oidcVerifiers
        .get(target.authVerifier)!
        .start(
          `${sdkUrl}/callback`,
          { ...target.entry?.jwtParameters, ...request.params.extraLoginOptions },
          flowId,
        );
      await putFlow({ loginId, provider, oidc: flow }, flowId);
      return { url };
    }
    if (config?.type === 'aggregate')
      throw new HttpError(400, `Verifier "${target.authVerifier}" is an aggregate`);
    // Development login (configured `dev` verifier, or devLogin for an unconfigured one).
    return { devState: await putFlow({ loginId, provider, dev: true }) };
  }

  /** The OIDC callback: where to send the browser next (the app, with a sessionId or an error). */
  async function callbackRedirect(url: URL): Promise<string> {
    const flow = await takeFlow(url.searchParams.get('state'));
    const request = await readRequest(flow.loginId);
    try {
      const target = resolveProvider(request, flow.provider);
      const verifier = oidcVerifiers.get(target.authVerifier);
      if (!verifier || !flow.oidc)
        throw new VerifierError('Login state does not belong to an OpenID verifier');
      const identity = await verifier.finish(url, flow.oidc);
      return (await complete(flow.loginId, request, target, identity)).redirect;
    } catch (err) {
      if (!(err instanceof VerifierError || err instanceof HttpError)) throw err;
      const code = err instanceof VerifierError ? err.code : 'LOGIN_FAILED';
      return resultUrl(request.options.redirectUrl, { error: err.message, code });
    }
  }

  /** The login page's and the library's `/api/login/*` and `/api/dev-login` calls. */
  async function api(path: string, body: Record<string, unknown>): Promise<[number, unknown]> {
    switch (path) {
      case '/api/login/request': {
        const request = await readRequest(body.loginId);
        const wl = request.options.whiteLabel ?? {};
        return [
          200,
          {
            whiteLabel: {
              appName: wl.appName ?? wl.appUrl ?? new URL(request.options.redirectUrl).origin,
              logoLight: wl.logoLight,
              logoDark: wl.logoDark,
              defaultLanguage: wl.defaultLanguage ?? 'en',
              mode: wl.mode ?? 'auto',
              primary: wl.theme?.primary ?? DEFAULT_PRIMARY_COLOR,
              appUrl: wl.appUrl ?? new URL(request.options.redirectUrl).origin,
              useLogoLoader: wl.useLogoLoader ?? false,
            },
            providers: providersFor(request),
            loginProvider: request.params.loginProvider,
            redirectUrl: request.options.redirectUrl,
          },
        ];
      }
      case '/api/login/authorize': {
        const request = await readRequest(body.loginId);
        const provider = typeof body.provider === 'string' ? body.provider : request.params.loginProvider;
        if (!provider) throw new HttpError(400, 'provider is required');
        try {
          return [200, await authorize(body.loginId as string, request, provider)];
        } catch (err) {
          if (!(err instanceof VerifierError)) throw err;
          return [
            200,
            { url: resultUrl(request.options.redirectUrl, { error: err.message, code: err.code }) },
          ];
        }
      }
      case '/api/login/cancel': {
        const request = await readRequest(body.loginId);
        await store.deleteSession(storeKeyOf(body.loginId as string));
        return [
          200,
          {
            url: resultUrl(request.options.redirectUrl, { error: 'User cancelled.', code: 'USER_CANCELLED' }),
          },
        ];
      }
      case '/api/login/jwt': {
        const request = await readRequest(body.loginId);
        const provider = request.params.loginProvider ?? 'jwt';
        const target = resolveProvider(request, provider);
        const verifier = jwtVerifiers.get(target.authVerifier);
        if (!verifier) throw new HttpError(400, `Verifier "${target.authVerifier}" is not a JWT verifier`);
        const token = request.params.extraLoginOptions?.id_token;
        if (!token) throw new HttpError(400, 'extraLoginOptions.id_token is required');
        try {
          const identity = await verifier.verify(token);
          const { sessionId } = await complete(body.loginId as string, request, target, identity);
          return [200, { sessionId }];
        } catch (err) {
          if (err instanceof VerifierError) return [401, { error: err.message, code: err.code }];
          throw err;
        }
      }
      case '/api/dev-login': {
        if (!devLogin && !Object.values(verifierConfigs).some((c) => c.type === 'dev')) {
          throw new HttpError(404, 'Development login is off');
        }
        const flow = await takeFlow(typeof body.state === 'string' ? body.state : null);
        const request = await readRequest(flow.loginId);
        const email = typeof body.email === 'string' ? body.email.trim().toLowerCase() : '';
        if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw new HttpError(400, 'A valid email is required');
        const target = resolveProvider(request, flow.provider);
        const config = verifierConfigs[target.authVerifier];
        if (!flow.dev || flow.oidc || (config ? config.type !== 'dev' : !devLogin)) {
          throw new HttpError(403, 'This login cannot be completed by the development login');
        }
        const name =
          typeof body.name === 'string' && body.name.trim() ? body.name.trim() : email.split('@')[0];
        return [
          200,
          {
            url: (await complete(flow.loginId, request, target, { verifierId: email, email, name })).redirect,
          },
        ];
      }
      default:
        throw new HttpError(404, 'Not found');
    }
  }

  return { api, callbackRedirect };
}
