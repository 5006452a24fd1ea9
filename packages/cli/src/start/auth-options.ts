// The auth service's options in production (`portico start`): what only development may do is
// refused here, at start, each with one line naming the field — no development login, no
// /dev/token, login results only to redirects on an allow-list, a master key given by the operator.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { StartAuthServerOptions, VerifierConfig } from '@portico/auth-server';
import { CliError } from '../errors.ts';
import type { AuthSection, StartConfig } from './config.ts';

export const MISSING_ALLOW_LIST =
  'auth.allowedRedirects: a production auth service sends login results only to redirects on an allow-list; set auth.allowedRedirects (per clientId) or auth.allowedRedirectOrigins';
export const MISSING_VERIFIERS =
  'auth.verifiers: name at least one verifier (jwt or oidc); portico start has no development login';
export const MISSING_MASTER_KEY =
  'auth.masterKey is required: set auth.masterKey, auth.masterKeyFile, or the PORTICO_AUTH_MASTER_KEY environment variable';
export const MISSING_AUTH_STORE =
  'auth needs a store: set dataDir (SQLite under <dataDir>/auth) or stores.kind: shared (PostgreSQL)';

export function productionAuthOptions(
  config: StartConfig,
  auth: AuthSection,
  env: NodeJS.ProcessEnv = process.env,
): StartAuthServerOptions & { port: number } {
  if (Object.keys(auth.verifiers).length === 0) throw new CliError(MISSING_VERIFIERS);
  const redirectsListed =
    Object.keys(auth.allowedRedirects ?? {}).length > 0 || (auth.allowedRedirectOrigins ?? []).length > 0;
  if (!redirectsListed) throw new CliError(MISSING_ALLOW_LIST);
  const masterKey = masterKeyOf(auth, env);
  const shared = config.stores?.kind === 'shared' ? config.stores : undefined;
  if (!shared && !config.dataDir) throw new CliError(MISSING_AUTH_STORE);
  return {
    port: auth.port,
    host: auth.host,
    publicUrl: auth.publicUrl,
    issuerUrl: auth.issuerUrl ?? auth.publicUrl,
    masterKey,
    // The store: the shared PostgreSQL when there is one, else SQLite in the data folder.
    databaseUrl: shared?.databaseUrl,
    dataDir: config.dataDir ? join(resolve(config.dataDir), 'auth') : undefined,
    verifiers: auth.verifiers as Record<string, VerifierConfig>,
    devLogin: false,
    allowedRedirects: withWalletCallback(auth, config.wallet),
    allowedRedirectOrigins: auth.allowedRedirectOrigins,
    maxSessionTime: auth.maxSessionTime,
    adminToken: auth.adminToken,
    exportPolicy: auth.exportPolicy,
    trustProxy: auth.trustProxy,
    attemptLimits: definedFields(auth.attemptLimits),
    rateLimits: definedFields(auth.rateLimits),
    auditWebhooks: auth.auditWebhooks,
    legacyNetwork: auth.legacyNetwork as StartAuthServerOptions['legacyNetwork'],
  };
}

/** A config section without its unset fields (they take the service's defaults). */
function definedFields<T extends object>(value: T | undefined): Partial<T> | undefined {
  if (value === undefined) return undefined;
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/**
 * The allow-list with the callback of the wallet this config runs (its users log in through this
 * service and come back to `<wallet>/login/callback/<nonce>`), for the wallet's clientId only: the
 * operator's entries for that clientId (or the allowed origins) stay. On a loopback host with port 0
 * the entry has no port, which allows any (RFC 8252 §7.3, as the service reads it).
 */
function withWalletCallback(
  auth: AuthSection,
  wallet: StartConfig['wallet'],
): Record<string, string[]> | undefined {
  if (!wallet?.enabled) return auth.allowedRedirects;
  const host = wallet.host.includes(':') ? `[${wallet.host}]` : wallet.host;
  const callback = `http://${host}${wallet.port ? `:${wallet.port}` : ''}/login/callback`;
  const own = auth.allowedRedirects?.[wallet.clientId] ?? auth.allowedRedirectOrigins ?? [];
  return { ...auth.allowedRedirects, [wallet.clientId]: [...own, callback] };
}

/** The master key from the config, its file or the environment; never a generated development key. */
function masterKeyOf(auth: AuthSection, env: NodeJS.ProcessEnv): string {
  if (auth.masterKey !== undefined && auth.masterKeyFile !== undefined)
    throw new CliError('auth.masterKey and auth.masterKeyFile are both set: keep one');
  let key = auth.masterKey;
  let field = 'auth.masterKey';
  if (auth.masterKeyFile !== undefined) {
    field = 'auth.masterKeyFile';
    try {
      key = readFileSync(auth.masterKeyFile, 'utf8').trim();
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      throw new CliError(`auth.masterKeyFile: cannot read ${auth.masterKeyFile} (${reason})`);
    }
  }
  if (key === undefined && env.PORTICO_AUTH_MASTER_KEY) {
    key = env.PORTICO_AUTH_MASTER_KEY;
    field = 'PORTICO_AUTH_MASTER_KEY';
  }
  if (!key) throw new CliError(MISSING_MASTER_KEY);
  if (!/^[0-9a-fA-F]{64}$/.test(key) && key.length < 32)
    throw new CliError(`${field} must be 64 hex characters or a passphrase of at least 32 characters`);
  return key;
}
