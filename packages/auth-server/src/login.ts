import { bytesToHex, randomBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import {
  type AuthLoginConfig,
  type AuthUserInfo,
  checkSetupChoice,
  DEFAULT_MFA_SETTINGS,
  decryptJson,
  type ExtraLoginOptions,
  ed25519PublicKey,
  encodeB64Params,
  encryptJsonTo,
  type FactorStep,
  type LoginRequest,
  MFA_FACTORS,
  type MfaFactor,
  type MfaSessionData,
  mfaPrompt,
  normalizeInitParams,
  ownValue,
  randomPrivKey,
  type SessionPayload,
  secp256k1PublicKey,
  setupOrder,
  storeKeyOf,
  validateLoginParams,
  verifyStoreMessage,
} from '@portico/auth';
import type { Envelope } from './envelope.ts';
import { HttpError } from './http.ts';
import { type DerivedKeys, KeyService, type TokenSigner, type Wallet, walletsFor } from './keys.ts';
import { accountOf, type LoginEvent, type PublicKeyPair } from './login-event.ts';
import { type MfaRecord, MfaStore, type SetupOutput, sessionMfa } from './mfa.ts';
import { pageWhiteLabel } from './page-view.ts';
import {
  isServiceDonePage,
  type RedirectPolicy,
  redirectRefusal,
  relayOriginRefusal,
  unusableRedirect,
} from './redirects.ts';
import type { AuthStore } from './store.ts';
import type { VerifierConfig } from './verifiers/config.ts';
import type { JwtVerifier } from './verifiers/jwt.ts';
import type { OidcFlow, OidcVerifier } from './verifiers/oidc.ts';
import { type Identity, VerifierError } from './verifiers/types.ts';

const FLOW_TTL_MS = 10 * 60 * 1000;
const HEX_PRIV = /^[0-9a-f]{64}$/;
/** A login's `state`: the library sends 32 hex characters; other clients any 16-128 URL-safe ones. */
const STATE = /^[A-Za-z0-9_-]{16,128}$/;

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
  /** By name; a Map so that names such as `constructor` are looked up, never inherited. */
  verifierConfigs: ReadonlyMap<string, VerifierConfig>;
  jwtVerifiers: Map<string, JwtVerifier>;
  oidcVerifiers: Map<string, OidcVerifier>;
  devLogin: boolean;
  sdkUrl: string;
  allowedRedirectOrigins?: string[];
  allowedRedirects?: Record<string, string[]>;
  /** Longest session, in seconds (unset: as long as the app asks). */
  maxSessionTime?: number;
  /** Told of every completed login, awaited before the result goes back (a failure is logged). */
  onLogin?: (event: LoginEvent) => Promise<void> | void;
  now: () => number;
  log: (line: string) => void;
}

/** Paths the client library calls from the app's origin. */
export const LOGIN_CORS_PATHS = [
  '/api/login/jwt',
  '/api/mfa/pending',
  '/api/mfa/setup',
  '/api/mfa/skip',
  '/api/mfa/social',
  '/api/mfa/device',
  '/api/mfa/revoke',
];

/** A login that stops for the MFA setup screen (page) or the library's setup call. */
export interface PendingMfa {
  step: 'setup';
  skippable: boolean;
  /** Enabled factors in setup order (ascending priority). */
  factors: FactorStep[];
  /** Custom (JWT) verifier: setup also yields a dappShare. */
  dappShare: boolean;
}

interface PendingState {
  provider: string;
  identity: Identity;
  skippable: boolean;
}

interface Grant {
  userId: string;
  keyVerifier: string;
  /** The login's network (absent in grants made before keys were separated by network). */
  network?: string;
}

interface SetupRequest {
  factors: MfaFactor[];
  password?: string;
  social?: { verifier: string; id: string };
}

/** A page login of an MFA user on a device without a valid device share: the recovery screen. */
export interface RecoverMfa {
  step: 'recover';
  /** Factors the page can take (the app's library rebuilds the key; the service never sees them). */
  factors: MfaFactor[];
}

type Completed =
  | { sessionId: string; redirect: string; setup?: SetupOutput }
  | { mfa: PendingMfa | RecoverMfa };

/** The idToken's wallets from public keys recorded when MFA was enabled (the service has no key then). */
function walletsFromRecord(record: MfaRecord, clientId: string, curve: 'secp256k1' | 'ed25519'): Wallet[] {
  const pick = (k: { secp: string; ed: string }) => (curve === 'ed25519' ? k.ed : k.secp);
  const app = ownValue(record.appKeys, clientId);
  const out: Wallet[] = [];
  if (app) out.push({ public_key: pick(app), type: 'web3auth_app_key', curve });
  out.push({
    public_key: pick({ secp: record.publicKey, ed: record.edPublicKey }),
    type: 'web3auth_threshold_key',
    curve,
  });
  return out;
}

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
  const redirectPolicy: RedirectPolicy = {
    allowedRedirects: deps.allowedRedirects,
    allowedRedirectOrigins: deps.allowedRedirectOrigins,
    sdkUrl,
  };
  const mfaStore = new MfaStore(store, envelope);

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
    const unusable = unusableRedirect(request.options.redirectUrl);
    if (unusable) throw new HttpError(400, unusable);
    const refusal = redirectRefusal(redirectPolicy, params.clientId, request.options.redirectUrl);
    if (refusal) throw new HttpError(403, refusal);
    const deviceId = request.mfa?.deviceId;
    const origin =
      typeof request.origin === 'string' && URL.canParse(request.origin)
        ? new URL(request.origin).origin
        : undefined;
    // The /done page hands the result to the window that opened the login, on this origin: it
    // must be one the client id may send results to, as a redirect's would.
    if (origin && isServiceDonePage(redirectPolicy, request.options.redirectUrl)) {
      const relayRefused = relayOriginRefusal(redirectPolicy, params.clientId, origin);
      if (relayRefused) throw new HttpError(403, relayRefused);
    }
    return {
      options: { ...params, sdkUrl, redirectUrl: request.options.redirectUrl },
      params: loginParams,
      actionType: 'login',
      origin,
      mfa: typeof deviceId === 'string' && /^[0-9a-f]{32}$/.test(deviceId) ? { deviceId } : undefined,
      state: typeof request.state === 'string' && STATE.test(request.state) ? request.state : undefined,
      popup: request.popup === true || undefined,
    };
  }

  function resolveProvider(request: LoginRequest, provider: string): ResolvedProvider {
    const entry = ownValue(request.options.loginConfig, provider);
    const keyVerifier = entry?.verifier ?? provider;
    const sub = entry?.verifierSubIdentifier;
    let authVerifier = keyVerifier;
    if (sub) {
      const aggregate = verifierConfigs.get(keyVerifier);
      if (aggregate?.type !== 'aggregate' || !aggregate.subVerifiers.includes(sub)) {
        throw new HttpError(
          400,
          `Verifier "${keyVerifier}" is not an aggregate verifier with sub-verifier "${sub}"`,
        );
      }
      authVerifier = sub;
    }
    const config = verifierConfigs.get(authVerifier);
    if (!config && !devLogin)
      throw new HttpError(400, `Verifier "${authVerifier}" is not configured on this auth service`);
    if (config?.type === 'oidc' && entry && entry.clientId !== config.clientId) {
      throw new HttpError(400, `loginConfig.${provider}.clientId does not match verifier "${authVerifier}"`);
    }
    return { provider, keyVerifier, authVerifier, typeOfLogin: entry?.typeOfLogin ?? provider, entry };
  }

  /** The login's ExtraLoginOptions: the loginConfig entry's jwtParameters, overridden by the login's own. */
  function extraFor(request: LoginRequest, target: ResolvedProvider): ExtraLoginOptions {
    return { ...target.entry?.jwtParameters, ...request.params.extraLoginOptions };
  }

  /**
   * The app's redirectUrl with the result in the fragment: the login's `state` and popup mark, and
   * its v5/v6 appState, echoed. On the service's own /done page the fragment also names the origin
   * the page may hand the result to (the app that opened the login popup).
   */
  function resultUrl(request: LoginRequest, result: Record<string, string>): string {
    const { appState } = request.params;
    const payload: Record<string, unknown> = { ...result };
    if (request.state !== undefined) payload.state = request.state;
    if (request.popup) payload.popup = true;
    if (appState !== undefined) payload.appState = appState;
    const { redirectUrl } = request.options;
    const relay =
      request.origin && isServiceDonePage(redirectPolicy, redirectUrl)
        ? `&origin=${encodeURIComponent(request.origin)}`
        : '';
    return `${redirectUrl.split('#')[0]}#b64Params=${encodeB64Params(payload)}${relay}`;
  }

  function isCustomVerifier(target: ResolvedProvider): boolean {
    return verifierConfigs.get(target.authVerifier)?.type === 'jwt';
  }

  function pendingFor(request: LoginRequest, target: ResolvedProvider, skippable: boolean): PendingMfa {
    return {
      step: 'setup',
      skippable,
      factors: setupOrder(request.options.mfaSettings ?? DEFAULT_MFA_SETTINGS),
      dappShare: isCustomVerifier(target),
    };
  }

  /**
   * Derives the keys, signs the idToken, stores the encrypted state under a new sessionId. With MFA
   * on, the session carries the service's share instead of the keys. A user without MFA may be
   * stopped here for the setup screen (per mfaLevel); `after` resumes such a login.
   */
  async function complete(
    loginId: string,
    request: LoginRequest,
    target: ResolvedProvider,
    identity: Identity,
    after?: { setup?: SetupRequest; skipped?: true },
    page = false,
  ): Promise<Completed> {
    const { clientId } = request.options;
    // The app's sessionTime, within the service's maxSessionTime (the library warns when it applies).
    const sessionTime = Math.min(request.options.sessionTime ?? 86400, deps.maxSessionTime ?? Infinity);
    const curve = request.params.curve ?? 'secp256k1';
    const scope = keyService.scope(request.options.network, identity.claim);
    const userId = KeyService.idOf(target.keyVerifier, identity.verifierId, scope);
    const record = await mfaStore.load(userId);
    let keys: DerivedKeys | undefined;
    let mfa: MfaSessionData | undefined;
    let wallets: Wallet[];
    let setup: SetupOutput | undefined;
    let dappShare = '';
    if (record) {
      // MFA on: whatever mfaLevel says, the key needs a second factor now.
      mfa = sessionMfa(record, request.mfa?.deviceId);
      wallets = walletsFromRecord(record, clientId, curve);
    } else {
      if (!after) {
        const count = await mfaStore.countLogin(userId);
        const p = mfaPrompt(request.params.mfaLevel ?? 'default', count, !!request.options.mfaSettings);
        if (p.prompt) {
          const pending: PendingState = { provider: target.provider, identity, skippable: p.skippable };
          const name = `mfa-pending:${storeKeyOf(loginId)}`;
          await store.deleteSession(name);
          await store.putSession(
            name,
            envelope.seal(name, utf8ToBytes(JSON.stringify(pending))),
            now() + FLOW_TTL_MS,
          );
          return { mfa: pendingFor(request, target, p.skippable) };
        }
      }
      keys = await keyService.keysFor(target.keyVerifier, identity.verifierId, clientId, scope);
      wallets = walletsFor(keys, curve);
      if (after?.setup) {
        setup = await mfaStore.enable(userId, keys.coreKitKey, target.keyVerifier, {
          ...after.setup,
          dappShare: isCustomVerifier(target),
          clientId,
        });
        mfa = { ...sessionMfa(setup.record, undefined), newDevice: setup.newDevice };
        dappShare = setup.dappShare ?? '';
        log(`auth: MFA enabled for a user of verifier ${target.keyVerifier}`);
      }
    }
    const idToken = await signer.sign(
      {
        nonce: bytesToHex(randomBytes(16)),
        email: identity.email,
        name: identity.name,
        verifier: target.keyVerifier,
        verifierId: identity.verifierId,
        aggregateVerifier: target.authVerifier !== target.keyVerifier ? target.authVerifier : undefined,
        wallets,
      },
      clientId,
      sessionTime,
    );
    const userInfo: AuthUserInfo = {
      email: identity.email ?? '',
      name: identity.name ?? '',
      profileImage: identity.profileImage ?? '',
      aggregateVerifier: target.authVerifier !== target.keyVerifier ? target.authVerifier : '',
      verifier: target.keyVerifier,
      verifierId: identity.verifierId,
      typeOfLogin: target.typeOfLogin,
      dappShare,
      idToken,
      oAuthIdToken: identity.oAuthIdToken ?? '',
      oAuthAccessToken: identity.oAuthAccessToken ?? '',
      isMfaEnabled: mfa !== undefined,
    };
    const state: SessionPayload = { ...keys, userInfo, mfa };
    const sessionId = randomPrivKey();
    const key = storeKeyOf(sessionId);
    const expiresAt = now() + sessionTime * 1000;
    await store.putSession(key, encryptJsonTo(key, state), expiresAt);
    if (mfa) {
      const grant: Grant = { userId, keyVerifier: target.keyVerifier, network: request.options.network };
      const name = `mfa-grant:${key}`;
      await store.putSession(name, envelope.seal(name, utf8ToBytes(JSON.stringify(grant))), expiresAt);
    }
    await announce(request, target, identity, keys, record);
    const redirect = resultUrl(request, { sessionId });
    log(`auth: login for verifier ${target.keyVerifier} (${target.typeOfLogin})`);
    if (record && page && !mfa?.deviceKey) {
      // The page asks for a second factor and hands it to the app in the result fragment.
      const factors = record.factors.filter((f) => f === 'backUpShareFactor' || f === 'passwordFactor');
      if (factors.length > 0) {
        const name = `mfa-recover:${storeKeyOf(loginId)}`;
        await store.deleteSession(name);
        const sealed = envelope.seal(name, utf8ToBytes(JSON.stringify({ redirect, factors })));
        await store.putSession(name, sealed, now() + FLOW_TTL_MS);
        return { mfa: { step: 'recover', factors } };
      }
    }
    await store.deleteSession(storeKeyOf(loginId));
    return { sessionId, redirect, setup };
  }

  /** Tells `onLogin` (if any) of a completed login: its accounts from the keys, or from an MFA record. */
  async function announce(
    request: LoginRequest,
    target: ResolvedProvider,
    identity: Identity,
    keys: DerivedKeys | undefined,
    record: MfaRecord | undefined,
  ): Promise<void> {
    if (!deps.onLogin) return;
    const { clientId, network } = request.options;
    try {
      const pairs: Array<['app' | 'core', PublicKeyPair]> = [];
      if (keys) {
        pairs.push([
          'app',
          { secp: secp256k1PublicKey(keys.privKey), ed: ed25519PublicKey(keys.ed25519PrivKey) },
        ]);
        pairs.push([
          'core',
          { secp: secp256k1PublicKey(keys.coreKitKey), ed: ed25519PublicKey(keys.coreKitEd25519PrivKey) },
        ]);
      } else if (record) {
        const app = ownValue(record.appKeys, clientId);
        if (app) pairs.push(['app', app]);
        pairs.push(['core', { secp: record.publicKey, ed: record.edPublicKey }]);
      }
      await deps.onLogin({
        clientId,
        network,
        verifier: target.keyVerifier,
        verifierId: identity.verifierId,
        accounts: pairs.map(([key, pair]) => accountOf(key, pair)),
      });
    } catch (err) {
      log(`auth: onLogin failed: ${(err as Error).message}`);
    }
  }

  async function takePending(loginId: string, remove: boolean): Promise<PendingState> {
    const name = `mfa-pending:${storeKeyOf(loginId)}`;
    const sealed = await store.getSession(name, now());
    if (!sealed) throw new HttpError(404, 'No MFA step pending for this login');
    const pending = JSON.parse(new TextDecoder().decode(envelope.open(name, sealed))) as PendingState;
    if (remove) await store.deleteSession(name);
    return pending;
  }

  /** Checks a session-signed MFA call: the signature by the sessionId and the session's grant. */
  async function grantFor(path: string, body: Record<string, unknown>): Promise<Grant> {
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
    return JSON.parse(new TextDecoder().decode(envelope.open(name, sealed))) as Grant;
  }

  /** Verifies a second login (social backup) with a JWT verifier other than the account's own. */
  async function socialIdentity(
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
    const verifier = jwtVerifiers.get(v.verifier);
    if (!verifier) throw new HttpError(400, `Verifier "${v.verifier}" is not a JWT verifier`);
    const identity = await verifier.verify(v.id_token);
    return {
      verifier: v.verifier,
      id: KeyService.idOf(v.verifier, identity.verifierId, keyService.scope(network)),
    };
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
    const list = [...verifierConfigs]
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
  ): Promise<{ url: string } | { devState: string } | { mfa: PendingMfa | RecoverMfa }> {
    const target = resolveProvider(request, provider);
    const config = verifierConfigs.get(target.authVerifier);
    if (config?.type === 'jwt') {
      const token = request.params.extraLoginOptions?.id_token;
      if (!token)
        throw new HttpError(400, `Verifier "${target.authVerifier}" needs extraLoginOptions.id_token`);
      const identity = await jwtVerifiers.get(target.authVerifier)!.verify(token, extraFor(request, target));
      const done = await complete(loginId, request, target, identity, undefined, true);
      return 'mfa' in done ? { mfa: done.mfa } : { url: done.redirect };
    }
    if (config?.type === 'oidc') {
      const flowId = newFlowId();
      const { url, flow } = await oidcVerifiers
        .get(target.authVerifier)!
        .start(`${sdkUrl}/callback`, extraFor(request, target), flowId);
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
      const done = await complete(flow.loginId, request, target, identity, undefined, true);
      // The MFA setup screen is on the login page: back to it, same loginId.
      return 'mfa' in done
        ? `${sdkUrl}/start#b64Params=${encodeB64Params({ loginId: flow.loginId, mfa: true })}`
        : done.redirect;
    } catch (err) {
      if (!(err instanceof VerifierError || err instanceof HttpError)) throw err;
      const code = err instanceof VerifierError ? err.code : 'LOGIN_FAILED';
      return resultUrl(request, { error: err.message, code });
    }
  }

  /** The login page's and the library's `/api/login/*` and `/api/dev-login` calls. */
  async function api(path: string, body: Record<string, unknown>): Promise<[number, unknown]> {
    switch (path) {
      case '/api/login/request': {
        const request = await readRequest(body.loginId);
        return [
          200,
          {
            whiteLabel: pageWhiteLabel(request, sdkUrl),
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
          return [200, { url: resultUrl(request, { error: err.message, code: err.code }) }];
        }
      }
      case '/api/login/cancel': {
        const request = await readRequest(body.loginId);
        await store.deleteSession(storeKeyOf(body.loginId as string));
        return [
          200,
          {
            url: resultUrl(request, { error: 'User cancelled.', code: 'USER_CANCELLED' }),
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
          const identity = await verifier.verify(token, extraFor(request, target));
          const done = await complete(body.loginId as string, request, target, identity);
          return [200, 'mfa' in done ? { mfa: done.mfa } : { sessionId: done.sessionId }];
        } catch (err) {
          if (err instanceof VerifierError) return [401, { error: err.message, code: err.code }];
          throw err;
        }
      }
      case '/api/dev-login': {
        if (!devLogin && ![...verifierConfigs.values()].some((c) => c.type === 'dev')) {
          throw new HttpError(404, 'Development login is off');
        }
        const flow = await takeFlow(typeof body.state === 'string' ? body.state : null);
        const request = await readRequest(flow.loginId);
        const email = typeof body.email === 'string' ? body.email.trim().toLowerCase() : '';
        if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw new HttpError(400, 'A valid email is required');
        const target = resolveProvider(request, flow.provider);
        const config = verifierConfigs.get(target.authVerifier);
        if (!flow.dev || flow.oidc || (config ? config.type !== 'dev' : !devLogin)) {
          throw new HttpError(403, 'This login cannot be completed by the development login');
        }
        const name =
          typeof body.name === 'string' && body.name.trim() ? body.name.trim() : email.split('@')[0];
        const done = await complete(
          flow.loginId,
          request,
          target,
          { verifierId: email, email, name },
          undefined,
          true,
        );
        return [200, 'mfa' in done ? { mfa: done.mfa } : { url: done.redirect }];
      }
      case '/api/mfa/pending': {
        const request = await readRequest(body.loginId);
        const recoverName = `mfa-recover:${storeKeyOf(body.loginId as string)}`;
        const recover = await store.getSession(recoverName, now());
        if (recover) {
          const { factors } = JSON.parse(new TextDecoder().decode(envelope.open(recoverName, recover))) as {
            factors: MfaFactor[];
          };
          return [200, { step: 'recover', factors }];
        }
        const pending = await takePending(body.loginId as string, false);
        const target = resolveProvider(request, pending.provider);
        return [200, pendingFor(request, target, pending.skippable)];
      }
      case '/api/mfa/recover': {
        await readRequest(body.loginId);
        const name = `mfa-recover:${storeKeyOf(body.loginId as string)}`;
        const sealed = await store.getSession(name, now());
        if (!sealed) throw new HttpError(404, 'No MFA recovery pending for this login');
        const { redirect: url } = JSON.parse(new TextDecoder().decode(envelope.open(name, sealed))) as {
          redirect: string;
        };
        await store.deleteSession(name);
        await store.deleteSession(storeKeyOf(body.loginId as string));
        return [200, { url }];
      }
      case '/api/mfa/skip': {
        const request = await readRequest(body.loginId);
        const pending = await takePending(body.loginId as string, false);
        if (!pending.skippable)
          throw new HttpError(403, 'MFA setup is mandatory for this app (mfaLevel "mandatory")');
        await takePending(body.loginId as string, true);
        const target = resolveProvider(request, pending.provider);
        const done = await complete(body.loginId as string, request, target, pending.identity, {
          skipped: true,
        });
        if ('mfa' in done) throw new HttpError(500, 'unexpected MFA step');
        return [200, { sessionId: done.sessionId, url: done.redirect }];
      }
      case '/api/mfa/setup': {
        const request = await readRequest(body.loginId);
        const pending = await takePending(body.loginId as string, false);
        const target = resolveProvider(request, pending.provider);
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
              [target.keyVerifier, target.authVerifier],
              body.socialBackup,
              request.options.network,
            );
          } catch (err) {
            if (err instanceof VerifierError) throw new HttpError(401, `Social backup login: ${err.message}`);
            throw err;
          }
          if (await mfaStore.socialOwner(social.id)) {
            throw new HttpError(409, 'That login is already the social backup of another account');
          }
        }
        await takePending(body.loginId as string, true);
        const done = await complete(body.loginId as string, request, target, pending.identity, {
          setup: { factors, password, social },
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
      }
      case '/api/mfa/social': {
        const grant = await grantFor(path, body);
        const record = await mfaStore.load(grant.userId);
        if (!record?.social) throw new HttpError(404, 'No social backup factor on this account');
        let social: { verifier: string; id: string };
        try {
          social = await socialIdentity(
            [grant.keyVerifier],
            body.payload,
            grant.network ?? keyService.legacyNetwork,
          );
        } catch (err) {
          if (err instanceof VerifierError) return [401, { error: err.message, code: err.code }];
          throw err;
        }
        if (social.id !== record.social.id || social.verifier !== record.social.verifier) {
          return [403, { error: 'This login is not the social backup of this account' }];
        }
        return [200, { share: record.social.share }];
      }
      case '/api/mfa/device': {
        const grant = await grantFor(path, body);
        try {
          return [200, await mfaStore.addDevice(grant.userId)];
        } catch (err) {
          throw new HttpError(400, (err as Error).message);
        }
      }
      case '/api/mfa/revoke': {
        const grant = await grantFor(path, body);
        const deviceId = (body.payload as { deviceId?: unknown } | undefined)?.deviceId;
        if (typeof deviceId !== 'string') throw new HttpError(400, 'payload.deviceId is required');
        const ok = await mfaStore.revokeDevice(grant.userId, deviceId);
        return ok ? [200, { ok: true }] : [404, { error: 'No such device, or already revoked' }];
      }
      default:
        throw new HttpError(404, 'Not found');
    }
  }

  return { api, callbackRedirect };
}
