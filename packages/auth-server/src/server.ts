import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
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
  verifyStoreMessage,
} from '@portico/auth';
import { Envelope, resolveMasterKey } from './envelope.ts';
import { KeyService, TokenSigner, walletsFor } from './keys.ts';
import { type AuthStore, PostgresStore, SqliteStore } from './store.ts';
import { JwtVerifier, type JwtVerifierConfig } from './verifiers/jwt.ts';
import { type OidcFlow, OidcVerifier, type OidcVerifierConfig } from './verifiers/oidc.ts';
import { type Identity, VerifierError } from './verifiers/types.ts';

/** Several sub-verifiers sharing one key per user (the loginConfig entry's `verifierSubIdentifier`). */
export interface AggregateVerifierConfig {
  type: 'aggregate';
  subVerifiers: string[];
}

/** The built-in development login: a form that accepts any email. Never for production. */
export interface DevVerifierConfig {
  type: 'dev';
  name?: string;
}

export type VerifierConfig =
  | OidcVerifierConfig
  | JwtVerifierConfig
  | AggregateVerifierConfig
  | DevVerifierConfig;

export interface StartAuthServerOptions {
  /** Port to listen on (default 0: any free port). */
  port?: number;
  host?: string;
  /** SQLite file, development master key (default `.portico/auth`). */
  dataDir?: string;
  /** PostgreSQL connection string; when set, the store lives there instead of SQLite. */
  databaseUrl?: string;
  /** 64 hex characters or a 32+ character passphrase; else PORTICO_AUTH_MASTER_KEY; else a dev key file. */
  masterKey?: string;
  /** `iss` of the idTokens (default: the service's own base URL). */
  issuerUrl?: string;
  /** Public base URL when behind a proxy (default `http://<host>:<port>`). */
  publicUrl?: string;
  /** Verifiers by name. With none, the development login is on for every provider. */
  verifiers?: Record<string, VerifierConfig>;
  /** Offer the development login for providers without a configured verifier (default: no verifiers given). */
  devLogin?: boolean;
  /** When set, login results go only to redirect URLs on these origins. */
  allowedRedirectOrigins?: string[];
  onLog?: (line: string) => void;
  /** Clock for session and login-request expiry, in ms (tests move it forward). Default `Date.now`. */
  clock?: () => number;
}

export interface AuthServer {
  /** The login page base: the library's `sdkUrl`. */
  sdkUrl: string;
  /** The idToken signing keys. */
  jwksUrl: string;
  close(): Promise<void>;
}

const PAGE_DIR = resolve(new URL('.', import.meta.url).pathname, 'page');
const PAGE_FILES: Record<string, { file: string; type: string }> = {
  '/start': { file: 'start.html', type: 'text/html; charset=utf-8' },
  '/static/login.js': { file: 'login.js', type: 'text/javascript; charset=utf-8' },
  '/static/login.css': { file: 'login.css', type: 'text/css; charset=utf-8' },
  '/static/logo.svg': { file: 'logo.svg', type: 'image/svg+xml' },
  '/done': { file: 'done.html', type: 'text/html; charset=utf-8' },
};
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' https: data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** Endpoints the client library calls from the app's origin (no cookies: keys and signatures authenticate). */
const CORS_PATHS = new Set(['/api/session', '/api/session/get', '/api/session/invalidate', '/api/login/jwt']);
const FLOW_TTL_MS = 10 * 60 * 1000;
const MAX_BODY = 64 * 1024;
const HEX_KEY = /^04[0-9a-f]{128}$/;
const HEX_PRIV = /^[0-9a-f]{64}$/;

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

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

/**
 * Starts the auth service: login page, session store, verifiers, key service and JWKS.
 * With no options it runs a development service (dev login, SQLite in `.portico/auth`).
 */
export async function startAuthServer(options: StartAuthServerOptions = {}): Promise<AuthServer> {
  const log = options.onLog ?? (() => {});
  const now = options.clock ?? (() => Date.now());
  const dataDir = resolve(options.dataDir ?? '.portico/auth');
  const store: AuthStore = options.databaseUrl
    ? new PostgresStore(options.databaseUrl)
    : new SqliteStore(dataDir);
  const envelope = new Envelope(resolveMasterKey(options.masterKey, dataDir, log));
  const keyService = new KeyService(store, envelope);
  const verifierConfigs = options.verifiers ?? {};
  const devLogin = options.devLogin ?? Object.keys(verifierConfigs).length === 0;
  if (devLogin) log('auth: development login enabled: anyone can log in as any email (not for production)');

  const jwtVerifiers = new Map<string, JwtVerifier>();
  const oidcVerifiers = new Map<string, OidcVerifier>();
  for (const [name, config] of Object.entries(verifierConfigs)) {
    if (config.type === 'jwt') jwtVerifiers.set(name, new JwtVerifier(name, config, store));
    else if (config.type === 'oidc') oidcVerifiers.set(name, new OidcVerifier(name, config));
  }

  const server = createServer();
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => ok());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const sdkUrl = (options.publicUrl ?? `http://${host}:${address.port}`).replace(/\/+$/, '');
  let signer: TokenSigner;
  try {
    signer = await TokenSigner.load(store, envelope, options.issuerUrl ?? sdkUrl);
  } catch (err) {
    await new Promise<void>((ok) => server.close(() => ok()));
    await store.close();
    throw new Error(
      `auth: cannot open the stored signing key (wrong master key?): ${(err as Error).message}`,
    );
  }
  const pages = new Map<string, Buffer>();
  for (const [path, { file }] of Object.entries(PAGE_FILES))
    pages.set(path, readFileSync(resolve(PAGE_DIR, file)));

  const purgeTimer = setInterval(() => {
    store.purge(now()).catch((err: unknown) => log(`auth: purge failed: ${(err as Error).message}`));
  }, 60_000);
  purgeTimer.unref();

  // ---- helpers -----------------------------------------------------------------------------

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

  // ---- routes ------------------------------------------------------------------------------

  async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > MAX_BODY) throw new HttpError(413, 'Request body too large');
      chunks.push(chunk as Buffer);
    }
    try {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
      if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new Error('not an object');
      return body as Record<string, unknown>;
    } catch {
      throw new HttpError(400, 'Body must be a JSON object');
    }
  }

  function sendJson(res: ServerResponse, status: number, body: unknown): void {
    res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    res.end(JSON.stringify(body));
  }

  function redirect(res: ServerResponse, location: string): void {
    res.writeHead(302, { location, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' });
    res.end();
  }

  function errorPage(res: ServerResponse, status: number, message: string): void {
    const safe = message.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
    res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': CSP });
    res.end(`<!doctype html><meta charset="utf-8"><title>Login error</title><p>${safe}</p>`);
  }

  async function callback(url: URL, res: ServerResponse): Promise<void> {
    const flow = await takeFlow(url.searchParams.get('state'));
    const request = await readRequest(flow.loginId);
    try {
      const target = resolveProvider(request, flow.provider);
      const verifier = oidcVerifiers.get(target.authVerifier);
      if (!verifier || !flow.oidc)
        throw new VerifierError('Login state does not belong to an OpenID verifier');
      const identity = await verifier.finish(url, flow.oidc);
      redirect(res, (await complete(flow.loginId, request, target, identity)).redirect);
    } catch (err) {
      if (!(err instanceof VerifierError || err instanceof HttpError)) throw err;
      const code = err instanceof VerifierError ? err.code : 'LOGIN_FAILED';
      redirect(res, resultUrl(request.options.redirectUrl, { error: err.message, code }));
    }
  }

  async function api(path: string, body: Record<string, unknown>): Promise<[number, unknown]> {
    const at = now();
    switch (path) {
      case '/api/session': {
        const { key, data, signature, timeout } = body;
        if (typeof key !== 'string' || !HEX_KEY.test(key))
          throw new HttpError(400, 'key must be an uncompressed public key (hex)');
        if (typeof data !== 'string' || typeof signature !== 'string')
          throw new HttpError(400, 'data and signature are required');
        if (typeof timeout !== 'number' || !Number.isInteger(timeout) || timeout < 1 || timeout > 600) {
          throw new HttpError(400, 'timeout must be 1 to 600 seconds');
        }
        if (!verifyStoreMessage(key, data, signature)) throw new HttpError(401, 'Bad signature');
        if (!(await store.putSession(key, data, at + timeout * 1000)))
          throw new HttpError(409, 'Key already in use');
        return [201, { ok: true }];
      }
      case '/api/session/get': {
        const key = body.key;
        if (typeof key !== 'string' || !HEX_KEY.test(key))
          throw new HttpError(400, 'key must be an uncompressed public key (hex)');
        const data = await store.getSession(key, at);
        if (!data) return [404, { error: 'Session not found or expired' }];
        return [200, { data }];
      }
      case '/api/session/invalidate': {
        const { key, signature } = body;
        if (typeof key !== 'string' || !HEX_KEY.test(key) || typeof signature !== 'string') {
          throw new HttpError(400, 'key and signature are required');
        }
        if (!verifyStoreMessage(key, `invalidate:${key}`, signature))
          throw new HttpError(401, 'Bad signature');
        const deleted = await store.deleteSession(key);
        return deleted ? [200, { ok: true }] : [404, { error: 'Session not found or expired' }];
      }
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

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', sdkUrl);
    if (CORS_PATHS.has(url.pathname)) {
      res.setHeader('access-control-allow-origin', '*');
      if (req.method === 'OPTIONS') {
        res.writeHead(204, {
          'access-control-allow-methods': 'POST',
          'access-control-allow-headers': 'content-type',
          'access-control-max-age': '600',
        });
        res.end();
        return;
      }
    }
    const run = async () => {
      if (req.method === 'GET') {
        const page = PAGE_FILES[url.pathname === '/start/' ? '/start' : url.pathname];
        if (page) {
          res.writeHead(200, {
            'content-type': page.type,
            'content-security-policy': CSP,
            'cache-control': 'no-store',
            'referrer-policy': 'no-referrer',
            'x-content-type-options': 'nosniff',
          });
          res.end(pages.get(url.pathname === '/start/' ? '/start' : url.pathname));
          return;
        }
        if (url.pathname === '/.well-known/jwks.json') return sendJson(res, 200, signer.jwks);
        if (url.pathname === '/.well-known/openid-configuration') {
          return sendJson(res, 200, { issuer: signer.issuer, jwks_uri: `${sdkUrl}/.well-known/jwks.json` });
        }
        if (url.pathname === '/callback') return await callback(url, res);
        if (url.pathname === '/health') return sendJson(res, 200, { ok: true });
        throw new HttpError(404, 'Not found');
      }
      if (req.method === 'POST' && url.pathname.startsWith('/api/')) {
        const [status, body] = await api(url.pathname, await readJson(req));
        return sendJson(res, status, body);
      }
      throw new HttpError(405, 'Method not allowed');
    };
    run().catch((err: unknown) => {
      const status = err instanceof HttpError ? err.status : 500;
      const message = err instanceof HttpError ? err.message : 'Internal error';
      if (status === 500) log(`auth: ${req.method} ${url.pathname} failed: ${(err as Error).message}`);
      if (res.headersSent) return res.end();
      if (url.pathname.startsWith('/api/')) sendJson(res, status, { error: message });
      else errorPage(res, status, message);
    });
  });

  log(`auth: login page ${sdkUrl}/start, JWKS ${sdkUrl}/.well-known/jwks.json`);
  return {
    sdkUrl,
    jwksUrl: `${sdkUrl}/.well-known/jwks.json`,
    async close() {
      clearInterval(purgeTimer);
      server.closeAllConnections();
      await new Promise<void>((ok) => server.close(() => ok()));
      await store.close();
    },
  };
}
