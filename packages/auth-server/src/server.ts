import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { type KeyExportPolicy, NETWORKS, type Network } from '@portico/auth';
import { ADMIN_PREFIX, adminApi, checkAdminToken } from './admin.ts';
import { AttemptLimiter, type AttemptLimits, checkAttemptLimits } from './attempts.ts';
import { AuditLog } from './audit.ts';
import { type AuditWebhook, AuditWebhooks, checkAuditWebhooks } from './audit-webhooks.ts';
import {
  DEV_JWT_VERIFIER,
  DEV_TOKEN_SECONDS,
  type DevJwtOptions,
  devJwtVerifier,
  devTokenClaims,
  signDevToken,
} from './dev-jwt.ts';
import { Envelope, resolveMasterKey } from './envelope.ts';
import { CSP, errorPage, HttpError, readJson, redirect, sendJson } from './http.ts';
import { DEFAULT_LEGACY_NETWORK, KeyService, TokenSigner } from './keys.ts';
import { createLogin, LOGIN_CORS_PATHS } from './login.ts';
import type { LoginEvent } from './login-event.ts';
import { checkRateLimits, RateLimitedError, RateLimiter, type RateLimits } from './rate-limit.ts';
import { checkRedirectEntries } from './redirects.ts';
import { SESSION_PATHS, sessionApi } from './session-api.ts';
import { SessionChains, SessionError } from './sessions.ts';
import { type AuthStore, PostgresStore, SqliteStore } from './store.ts';
import type { VerifierConfig } from './verifiers/config.ts';
import { JwtVerifier } from './verifiers/jwt.ts';
import { OidcVerifier } from './verifiers/oidc.ts';

export type { AggregateVerifierConfig, DevVerifierConfig, VerifierConfig } from './verifiers/config.ts';

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
  /** When set, login results go only to redirect URLs on these origins (clients without `allowedRedirects`). */
  allowedRedirectOrigins?: string[];
  /**
   * Per clientId, the redirect URLs its login results may go to: web URLs or origins, loopback
   * addresses (`http://127.0.0.1/cb` matches any port) and native apps' custom schemes
   * (`com.example.app://auth`, which are refused unless listed here).
   */
  allowedRedirects?: Record<string, string[]>;
  onLog?: (line: string) => void;
  /**
   * Longest sign-in in seconds, renewals included (the absolute cap). A session lasts the app's
   * `sessionTime` (at most this much; longer requests are cut and the library warns the app) and
   * each renewal while the app is used grants another `sessionTime`, never past `maxSessionTime`
   * from the login. Unset: no cap (the spec sets none), so a session used often enough lives on.
   */
  maxSessionTime?: number;
  /**
   * The network whose users keep the keys made before keys were separated by network (default
   * `sapphire_mainnet`, v7's production network). Every other network gets unrelated keys.
   */
  legacyNetwork?: Network;
  /** Clock for session and login-request expiry, in ms (tests move it forward). Default `Date.now`. */
  clock?: () => number;
  /**
   * Told of every completed login (who, which app, the addresses of its keys; never keys or
   * tokens). Awaited before the result goes back to the app; a failure is logged, the login stands.
   */
  onLogin?: (event: LoginEvent) => Promise<void> | void;
  /**
   * **Development only** (`portico dev`): a custom-JWT verifier (default name `jwt`) trusting
   * `key`, and `POST /dev/token {sub, email?, name?}`, which signs a token for any user id.
   * Anyone who can reach the service can then log in as anyone. Never in production.
   */
  devJwt?: DevJwtOptions;
  /**
   * Limits on typed second factors (password, backup phrase, social-backup login), per user and
   * per client address, counted in the store. Defaults follow Keycloak's brute-force detection:
   * see `DEFAULT_ATTEMPT_LIMITS`.
   */
  attemptLimits?: Partial<AttemptLimits>;
  /** Turns the admin API on (`/admin/*`, `Authorization: Bearer <adminToken>`); 32+ characters. */
  adminToken?: string;
  /**
   * Behind a reverse proxy: take the client address from the last `X-Forwarded-For` entry (the one
   * the proxy added). Off by default: the socket's address.
   */
  trustProxy?: boolean;
  /**
   * Per-address requests per minute (per instance): `tokensPerMinute` (default 300) to each of
   * `/dev/token`, `/api/session` (parking a login), `/api/login/jwt`, `/api/dev-login`;
   * `readsPerMinute` (default 1200) to `/api/session/get`.
   */
  rateLimits?: Partial<RateLimits>;
  /** Every audit entry is also POSTed to these URLs, signed with HMAC-SHA256 (see audit-webhooks.ts). */
  auditWebhooks?: AuditWebhook[];
  /**
   * Who may read a user's key, per clientId (beyond the seed): `app` (the default, as v7: the
   * session carries the keys and `getPrivKey()` returns them), `user` (the app never receives key
   * material: identity and the idToken's public keys only) or `off` (the same, and no export is
   * ever offered). A clientId not listed is `app`.
   */
  exportPolicy?: Record<string, KeyExportPolicy>;
}

export interface AuthServer {
  /** The login page base: the library's `sdkUrl`. */
  sdkUrl: string;
  /** The idToken signing keys. */
  jwksUrl: string;
  close(): Promise<void>;
}

const PAGE_DIR = resolve(new URL('.', import.meta.url).pathname, 'page');
const PAGE_FILES = new Map<string, { file: string; type: string }>([
  ['/start', { file: 'start.html', type: 'text/html; charset=utf-8' }],
  ['/static/login.js', { file: 'login.js', type: 'text/javascript; charset=utf-8' }],
  ['/static/mfa.js', { file: 'mfa.js', type: 'text/javascript; charset=utf-8' }],
  ['/static/factors.js', { file: 'factors.js', type: 'text/javascript; charset=utf-8' }],
  ['/static/page.js', { file: 'page.js', type: 'text/javascript; charset=utf-8' }],
  ['/static/strings.js', { file: 'strings.js', type: 'text/javascript; charset=utf-8' }],
  ['/static/done.js', { file: 'done.js', type: 'text/javascript; charset=utf-8' }],
  ['/static/login.css', { file: 'login.css', type: 'text/css; charset=utf-8' }],
  ['/static/logo.svg', { file: 'logo.svg', type: 'image/svg+xml' }],
  ['/done', { file: 'done.html', type: 'text/html; charset=utf-8' }],
]);
/** The development token endpoint (only with `devJwt`). */
const DEV_TOKEN_PATH = '/dev/token';
/** Endpoints the client library calls from the app's origin (no cookies: keys and signatures authenticate). */
const CORS_PATHS = new Set([...SESSION_PATHS, ...LOGIN_CORS_PATHS]);

const EXPORT_POLICIES: readonly KeyExportPolicy[] = ['app', 'user', 'off'];

function checkExportPolicy(policy: Record<string, unknown> | undefined): void {
  for (const [clientId, value] of Object.entries(policy ?? {})) {
    if (!EXPORT_POLICIES.includes(value as KeyExportPolicy)) {
      throw new Error(`auth: exportPolicy["${clientId}"] must be one of ${EXPORT_POLICIES.join(', ')}`);
    }
  }
}

/**
 * Starts the auth service: login page, session store, verifiers, key service and JWKS.
 * With no options it runs a development service (dev login, SQLite in `.portico/auth`).
 */
export async function startAuthServer(options: StartAuthServerOptions = {}): Promise<AuthServer> {
  const log = options.onLog ?? (() => {});
  if (
    options.maxSessionTime !== undefined &&
    (!Number.isSafeInteger(options.maxSessionTime) || options.maxSessionTime < 1)
  ) {
    throw new Error('auth: maxSessionTime must be a whole number of seconds, 1 or more');
  }
  const legacyNetwork = options.legacyNetwork ?? DEFAULT_LEGACY_NETWORK;
  if (!(NETWORKS as readonly string[]).includes(legacyNetwork)) {
    throw new Error(`auth: legacyNetwork must be one of ${NETWORKS.join(', ')}`);
  }
  for (const [clientId, entries] of Object.entries(options.allowedRedirects ?? {})) {
    checkRedirectEntries(clientId, entries);
  }
  const now = options.clock ?? (() => Date.now());
  const attemptLimits = checkAttemptLimits(options.attemptLimits);
  checkAdminToken(options.adminToken);
  checkExportPolicy(options.exportPolicy);
  checkAuditWebhooks(options.auditWebhooks);
  const rateLimiter = new RateLimiter(
    checkRateLimits(options.rateLimits),
    new Set([DEV_TOKEN_PATH, '/api/session', '/api/login/jwt', '/api/dev-login', '/api/login/request']),
    new Set(['/api/session/get']),
    now,
  );
  const dataDir = resolve(options.dataDir ?? '.portico/auth');
  const store: AuthStore = options.databaseUrl
    ? await PostgresStore.open(options.databaseUrl)
    : new SqliteStore(dataDir);
  const envelope = new Envelope(resolveMasterKey(options.masterKey, dataDir, log));
  const keyService = new KeyService(store, envelope, legacyNetwork);
  const attempts = new AttemptLimiter(store, attemptLimits, now);
  const webhooks = options.auditWebhooks?.length ? new AuditWebhooks(options.auditWebhooks, log) : undefined;
  const audit = new AuditLog(store, now, log, webhooks);
  const verifierConfigs = new Map(Object.entries(options.verifiers ?? {}));
  const devLogin = options.devLogin ?? verifierConfigs.size === 0;
  if (devLogin) log('auth: development login enabled: anyone can log in as any email (not for production)');
  const devJwt = options.devJwt;
  const devJwtName = devJwt?.verifier ?? DEV_JWT_VERIFIER;
  if (devJwt) {
    if (verifierConfigs.has(devJwtName)) {
      throw new Error(`auth: verifier "${devJwtName}" is configured and is also devJwt's verifier`);
    }
    verifierConfigs.set(devJwtName, devJwtVerifier(devJwt.key));
  }

  const jwtVerifiers = new Map<string, JwtVerifier>();
  const oidcVerifiers = new Map<string, OidcVerifier>();
  for (const [name, config] of verifierConfigs) {
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
  const chains = new SessionChains({
    store,
    envelope,
    audit,
    signer,
    maxSessionTime: options.maxSessionTime,
  });
  const pages = new Map<string, Buffer>();
  for (const [path, { file }] of PAGE_FILES) pages.set(path, readFileSync(resolve(PAGE_DIR, file)));

  const purgeTimer = setInterval(() => {
    store.purge(now()).catch((err: unknown) => log(`auth: purge failed: ${(err as Error).message}`));
  }, 60_000);
  purgeTimer.unref();

  const login = createLogin({
    store,
    envelope,
    keyService,
    signer,
    verifierConfigs,
    jwtVerifiers,
    oidcVerifiers,
    devLogin,
    sdkUrl,
    allowedRedirectOrigins: options.allowedRedirectOrigins,
    allowedRedirects: options.allowedRedirects,
    maxSessionTime: options.maxSessionTime,
    onLogin: options.onLogin,
    now,
    log,
    attempts,
    audit,
    chains,
    exportPolicy: new Map(Object.entries(options.exportPolicy ?? {})),
  });

  async function api(
    path: string,
    body: Record<string, unknown>,
    address: string,
  ): Promise<[number, unknown]> {
    if (SESSION_PATHS.includes(path))
      return sessionApi({ store, envelope, audit, chains }, path, body, now());
    return login.api(path, body, { address });
  }

  const clientAddress = (req: IncomingMessage): string => {
    const forwarded = req.headers['x-forwarded-for'];
    if (options.trustProxy && typeof forwarded === 'string') {
      const last = forwarded.split(',').at(-1)?.trim();
      if (last) return last;
    }
    return req.socket.remoteAddress ?? 'unknown';
  };

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', sdkUrl);
    if (CORS_PATHS.has(url.pathname) || (devJwt && url.pathname === DEV_TOKEN_PATH)) {
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
      if (req.method === 'POST') rateLimiter.take(url.pathname, clientAddress(req));
      if (url.pathname.startsWith(ADMIN_PREFIX)) {
        const [status, body] = await adminApi(
          { adminToken: options.adminToken, store, audit, now, chains },
          req.method ?? 'GET',
          url,
          req.headers.authorization,
          () => readJson(req),
        );
        return sendJson(res, status, body);
      }
      if (req.method === 'GET') {
        const page = PAGE_FILES.get(url.pathname === '/start/' ? '/start' : url.pathname);
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
        if (url.pathname === '/callback') return redirect(res, await login.callbackRedirect(url));
        if (url.pathname === '/health') return sendJson(res, 200, { ok: true });
        throw new HttpError(404, 'Not found');
      }
      if (devJwt && req.method === 'POST' && url.pathname === DEV_TOKEN_PATH) {
        const claims = devTokenClaims(await readJson(req));
        return sendJson(res, 200, {
          id_token: await signDevToken(devJwt.key, claims),
          verifier: devJwtName,
          verifierIdField: 'sub',
          expiresIn: DEV_TOKEN_SECONDS,
        });
      }
      if (req.method === 'POST' && url.pathname.startsWith('/api/')) {
        const [status, body] = await api(url.pathname, await readJson(req), clientAddress(req));
        return sendJson(res, status, body);
      }
      throw new HttpError(405, 'Method not allowed');
    };
    run().catch((err: unknown) => {
      const status = err instanceof HttpError ? err.status : 500;
      const message = err instanceof HttpError ? err.message : 'Internal error';
      if (status === 500) log(`auth: ${req.method} ${url.pathname} failed: ${(err as Error).message}`);
      if (res.headersSent) return res.end();
      if (err instanceof RateLimitedError) {
        res.setHeader('retry-after', String(err.retryAfterSeconds));
        return sendJson(res, 429, {
          error: message,
          code: 'RATE_LIMITED',
          retryAfter: err.retryAfterSeconds,
        });
      }
      if (
        url.pathname.startsWith('/api/') ||
        url.pathname.startsWith(ADMIN_PREFIX) ||
        url.pathname === DEV_TOKEN_PATH
      ) {
        sendJson(res, status, { error: message, code: err instanceof SessionError ? err.code : undefined });
      } else errorPage(res, status, message);
    });
  });

  log(`auth: login page ${sdkUrl}/start, JWKS ${sdkUrl}/.well-known/jwks.json`);
  if (devJwt) {
    log(
      `auth: development JWT issuer enabled: POST ${sdkUrl}${DEV_TOKEN_PATH} signs a token for any user id (verifier "${devJwtName}"; not for production)`,
    );
  }
  return {
    sdkUrl,
    jwksUrl: `${sdkUrl}/.well-known/jwks.json`,
    async close() {
      clearInterval(purgeTimer);
      webhooks?.close();
      server.closeAllConnections();
      await new Promise<void>((ok) => server.close(() => ok()));
      await store.close();
    },
  };
}
