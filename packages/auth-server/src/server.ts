import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { type KeyExportPolicy, NETWORKS } from '@portico/auth';
import { ACCOUNT_PATHS, ACCOUNT_TICKET_PATH, accountApi } from './account-api.ts';
import { ADMIN_PREFIX, adminApi, checkAdminToken } from './admin.ts';
import { AttemptLimiter, checkAttemptLimits } from './attempts.ts';
import { AuditLog } from './audit.ts';
import { AuditWebhooks, checkAuditWebhooks } from './audit-webhooks.ts';
import { BaseError } from './base-error.ts';
import {
  DEV_JWT_VERIFIER,
  DEV_TOKEN_SECONDS,
  devJwtVerifier,
  devTokenClaims,
  signDevToken,
} from './dev-jwt.ts';
import { Envelope, resolveMasterKey } from './envelope.ts';
import { CSP, errorPage, HttpError, readJson, redirect, sendErrorAnswer, sendJson } from './http.ts';
import { DEFAULT_LEGACY_NETWORK, KeyService, TokenSigner } from './keys.ts';
import { checkPasskeyConfig } from './login/passkey-routes.ts';
import { createLogin, LOGIN_CORS_PATHS } from './login.ts';
import { MfaStore } from './mfa.ts';
import { checkRateLimits, RateLimiter } from './rate-limit.ts';
import { checkRedirectEntries } from './redirects.ts';
import type { AuthServer, StartAuthServerOptions } from './server-options.ts';
import { SESSION_PATHS, sessionApi } from './session-api.ts';
import { SessionChains } from './sessions.ts';
import { type AuthStore, PostgresStore, SqliteStore } from './store.ts';
import { JwtVerifier } from './verifiers/jwt.ts';
import { OidcVerifier } from './verifiers/oidc.ts';

export type { AuthServer, StartAuthServerOptions } from './server-options.ts';
export type {
  AggregateVerifierConfig,
  DevVerifierConfig,
  PasskeyVerifierConfig,
  VerifierConfig,
} from './verifiers/config.ts';

const PAGE_DIR = resolve(new URL('.', import.meta.url).pathname, 'page');
const PAGE_FILES = new Map<string, { file: string; type: string }>([
  ['/start', { file: 'start.html', type: 'text/html; charset=utf-8' }],
  ['/static/login.js', { file: 'login.js', type: 'text/javascript; charset=utf-8' }],
  ['/static/mfa.js', { file: 'mfa.js', type: 'text/javascript; charset=utf-8' }],
  ['/static/factors.js', { file: 'factors.js', type: 'text/javascript; charset=utf-8' }],
  ['/static/passkey.js', { file: 'passkey.js', type: 'text/javascript; charset=utf-8' }],
  ['/static/webauthn.js', { file: 'webauthn.js', type: 'text/javascript; charset=utf-8' }],
  ['/static/page.js', { file: 'page.js', type: 'text/javascript; charset=utf-8' }],
  ['/static/strings.js', { file: 'strings.js', type: 'text/javascript; charset=utf-8' }],
  ['/static/strings-latin.js', { file: 'strings-latin.js', type: 'text/javascript; charset=utf-8' }],
  ['/static/strings-cjk.js', { file: 'strings-cjk.js', type: 'text/javascript; charset=utf-8' }],
  ['/static/done.js', { file: 'done.js', type: 'text/javascript; charset=utf-8' }],
  ['/static/login.css', { file: 'login.css', type: 'text/css; charset=utf-8' }],
  ['/static/logo.svg', { file: 'logo.svg', type: 'image/svg+xml' }],
  ['/done', { file: 'done.html', type: 'text/html; charset=utf-8' }],
  ['/account', { file: 'account.html', type: 'text/html; charset=utf-8' }],
  ['/static/account.js', { file: 'account.js', type: 'text/javascript; charset=utf-8' }],
  ['/static/account-strings.js', { file: 'account-strings.js', type: 'text/javascript; charset=utf-8' }],
  [
    '/static/account-strings-latin.js',
    { file: 'account-strings-latin.js', type: 'text/javascript; charset=utf-8' },
  ],
  [
    '/static/account-strings-cjk.js',
    { file: 'account-strings-cjk.js', type: 'text/javascript; charset=utf-8' },
  ],
  ['/confirm', { file: 'confirm.html', type: 'text/html; charset=utf-8' }],
  ['/static/confirm.js', { file: 'confirm.js', type: 'text/javascript; charset=utf-8' }],
  ['/static/confirm-strings.js', { file: 'confirm-strings.js', type: 'text/javascript; charset=utf-8' }],
]);
/** The development token endpoint (only with `devJwt`). */
const DEV_TOKEN_PATH = '/dev/token';
/** Endpoints the client library calls from the app's origin (no cookies: keys and signatures authenticate). */
const CORS_PATHS = new Set([...SESSION_PATHS, ...LOGIN_CORS_PATHS, ACCOUNT_TICKET_PATH]);

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
    new Set([
      DEV_TOKEN_PATH,
      '/api/session',
      '/api/login/jwt',
      '/api/dev-login',
      '/api/login/request',
      '/api/login/passkey/options',
      '/api/login/passkey/verify',
      '/api/passkey/link',
      '/api/mfa/passkey',
      '/api/mfa/confirm/passkey',
      '/api/mfa/confirm/ticket',
      '/api/mfa/confirm/open',
      '/api/mfa/confirm/challenge',
      '/api/mfa/confirm/answer',
      '/api/account/open',
    ]),
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
    else if (config.type === 'passkey') checkPasskeyConfig(name, config);
  }

  const server = createServer();
  // Longer than the idle timeout of the clients and proxies in front (undici keeps an idle socket
  // for the server's hint, load balancers for 60 s): with Node's 5 s, a request sent on a socket
  // the server was closing at that moment failed with ECONNRESET (seen in a renewal after a login
  // that took over 5 s on a loaded machine). The gateway does the same.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => ok());
  });
  const address = server.address() as AddressInfo;
  const host = options.publicHost ?? (address.family === 'IPv6' ? `[${address.address}]` : address.address);
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

  const exportPolicy = new Map(Object.entries(options.exportPolicy ?? {}));
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
    exportPolicy,
  });

  const mfaStore = new MfaStore(store, envelope, now);
  const mfaPublicKey = async (userId: string) => (await mfaStore.load(userId))?.publicKey;

  async function api(
    path: string,
    body: Record<string, unknown>,
    address: string,
  ): Promise<[number, unknown]> {
    if (SESSION_PATHS.includes(path))
      return sessionApi({ store, envelope, audit, chains, mfaPublicKey }, path, body, now());
    if (ACCOUNT_PATHS.includes(path)) {
      const mfaRecord = (userId: string) => mfaStore.load(userId);
      const revokeDevice = (userId: string, deviceId: string) => mfaStore.revokeDevice(userId, deviceId);
      const deps = {
        store,
        envelope,
        audit,
        chains,
        verifierConfigs,
        exportPolicy,
        mfaPublicKey,
        mfaRecord,
        revokeDevice,
        factorContext: login.context,
      };
      return accountApi(deps, path, body, now(), address);
    }
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
        throw new HttpError(404, 'NOT_FOUND', 'Not found');
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
      throw new HttpError(405, 'METHOD_NOT_ALLOWED', 'Method not allowed');
    };
    run().catch((err: unknown) => {
      const known = err instanceof BaseError && err.status !== undefined ? err : undefined;
      if ((known?.status ?? 500) >= 500)
        log(`auth: ${req.method} ${url.pathname} failed: ${(err as Error).message}`);
      if (res.headersSent) return res.end();
      if (
        url.pathname.startsWith('/api/') ||
        url.pathname.startsWith(ADMIN_PREFIX) ||
        url.pathname === DEV_TOKEN_PATH ||
        known?.status === 429
      ) {
        sendErrorAnswer(res, err);
      } else errorPage(res, known?.status ?? 500, known?.message ?? 'Internal error');
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
