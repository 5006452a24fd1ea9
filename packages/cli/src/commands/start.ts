import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { type AuthServer, startAuthServer } from '@portico/auth-server';
import type { AuthAdminTarget } from '@portico/dashboard';
import { type Gateway, portNamed, printsBanner, type ServedPart, serveGateway } from '@portico/gateway';
import { startWallet, walletBannerLines } from '@portico/wallet';
import pino from 'pino';
import { CliError } from '../errors.ts';
import { dashboardHandlers, partsConfigOut, StartedParts } from '../parts.ts';
import { productionAuthOptions } from '../start/auth-options.ts';
import { loadStartConfig, type StartConfig } from '../start/config.ts';

const HELP = `portico start --config FILE [--workers N] [--config-out FILE]

Runs in production every part FILE names: the gateway in front of real nodes, and with
\`dashboard: { enabled: true }\` the dashboard at /dashboard/, with \`auth:\` the auth service, with
\`wallet:\` the reference wallet. FILE is YAML or JSON (see docs/deploying.md). The admin token may
come from PORTICO_ADMIN_TOKEN, the auth master key from PORTICO_AUTH_MASTER_KEY.

--workers N        N processes sharing the ports (one per core). Needs stores.kind: shared, so
                   that balances, keys and sessions are shared between them.
--config-out FILE  write the addresses as JSON to FILE (the keys portico dev writes, where they apply)

Development-only things are refused: no development login, no /dev/token, no faucet, no
wallet auto-approve.`;

export async function runStart(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      config: { type: 'string' },
      workers: { type: 'string' },
      'config-out': { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  if (!values.config) throw new CliError('--config FILE is required');
  const workers = values.workers === undefined ? 1 : Number(values.workers);
  if (!Number.isInteger(workers) || workers < 1 || workers > 64)
    throw new CliError('--workers must be an integer from 1 to 64');
  const config = loadStartConfig(values.config);
  config.adminToken ??= process.env.PORTICO_ADMIN_TOKEN;
  // Every refusal is checked here, before anything listens (and before workers are forked).
  if (config.dashboard.enabled && !config.adminToken)
    throw new CliError(
      'dashboard.enabled needs adminToken (the dashboard signs in with it), or PORTICO_ADMIN_TOKEN',
    );
  const authOptions = config.auth ? productionAuthOptions(config, config.auth) : undefined;
  const wallet = config.wallet?.enabled ? config.wallet : undefined;
  if (wallet) {
    if (!authOptions) throw new CliError('wallet needs auth: its user logs in through the auth service');
    if (workers > 1)
      throw new CliError(
        'wallet keeps its approvals in one process: run it without --workers (e.g. in a portico start of its own)',
      );
    const names = new Set(config.networks.map((n) => n.name));
    const unknown = (wallet.networks ?? []).filter((name) => !names.has(name));
    if (unknown.length) throw new CliError(`wallet.networks: no network named ${unknown.join(', ')}`);
  }
  const configOut = values['config-out'];
  // Set once the auth service of this process listens; the dashboard's Audit page reads through it.
  const audit: { target?: AuthAdminTarget } = {};
  return serveGateway(config, {
    workers,
    extraHandlers: dashboardHandlers(config.dashboard.enabled, {
      adminToken: config.adminToken,
      authAdmin: () => audit.target,
    }),
    startParts: async (gateway) => {
      const served = await startParts(config, gateway, authOptions, configOut);
      if (served.auth && authOptions?.adminToken)
        audit.target = { url: localAuthUrl(served.auth, authOptions), adminToken: authOptions.adminToken };
      return served;
    },
  });
}

/** Said at start: what `portico dev` has and this process does not. */
export const PRODUCTION_LINE =
  'Production: no development login, no /dev/token, no faucet, no wallet auto-approve (those are portico dev only)';

/** Where this process reaches its auth service: its own listening address, not its public one. */
function localAuthUrl(
  auth: AuthServer,
  options: { publicUrl?: string; host?: string; port: number },
): string {
  if (options.publicUrl === undefined || options.port === 0) return auth.sdkUrl;
  const host =
    options.host === undefined || options.host === '0.0.0.0' || options.host === '::'
      ? '127.0.0.1'
      : options.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${options.port}`;
}

/** The auth service and the wallet, next to the gateway in this process. */
async function startParts(
  config: StartConfig,
  gateway: Gateway,
  authOptions: ReturnType<typeof productionAuthOptions> | undefined,
  configOut: string | undefined,
): Promise<ServedPart & { auth?: AuthServer }> {
  const logger = pino({ level: config.logLevel });
  const parts = new StartedParts();
  const auth = authOptions
    ? await parts.start(() =>
        portNamed(
          () =>
            oneLine(() =>
              startAuthServer({ ...authOptions, onLog: (line) => logger.info({ service: 'auth' }, line) }),
            ),
          authOptions.port,
          'auth.port',
        ),
      )
    : undefined;
  const walletSection = config.wallet?.enabled ? config.wallet : undefined;
  const wallet =
    walletSection && auth
      ? await parts.start(() =>
          portNamed(
            () =>
              startWallet({
                port: walletSection.port,
                host: walletSection.host,
                databaseUrl: config.stores?.kind === 'shared' ? config.stores.databaseUrl : undefined,
                dataDir: config.dataDir ? join(resolve(config.dataDir), 'wallet') : undefined,
                // Reads every chain through this gateway, metered on the wallet's own key.
                chains: gateway.networks
                  .filter((n) => !walletSection.networks || walletSection.networks.includes(n.name))
                  .map((n) => ({ chainId: n.chainId, rpcUrl: `${n.baseUrl}/v3/${walletSection.apiKey}` })),
                auth: { sdkUrl: auth.sdkUrl, clientId: walletSection.clientId },
                initialAccounts: 'none',
                devAccounts: false,
                autoApprove: false,
                onLog: (line) => logger.info({ service: 'wallet' }, line),
              }),
            walletSection.port,
            'wallet.port',
          ),
        )
      : undefined;
  const out = partsConfigOut(gateway, {
    dashboard: config.dashboard.enabled,
    publicUrl: config.publicUrl,
    auth,
    wallet,
  });
  if (configOut && printsBanner) writeFileSync(configOut, `${JSON.stringify(out, null, 2)}\n`);
  const bannerLines = [
    ...(out.dashboard ? [`Dashboard        ${out.dashboard.url}   (sign in with the admin token)`] : []),
    ...(out.auth ? [`Auth service     ${out.auth.sdkUrl}   (apps' sdkUrl; JWKS ${out.auth.jwksUrl})`] : []),
    ...(wallet ? walletBannerLines(wallet) : []),
    PRODUCTION_LINE,
  ];
  return { close: parts.close, bannerLines, auth };
}

/**
 * The auth service's own refusals (a bad verifier, a master key that does not open the stored
 * signing key, …) as one line without a stack trace; failures of the system (a port, a database
 * that cannot be reached) go on as they are.
 */
async function oneLine<T>(starting: () => Promise<T>): Promise<T> {
  try {
    return await starting();
  } catch (error) {
    if (error instanceof Error && error.constructor === Error && !(error as NodeJS.ErrnoException).code) {
      throw new CliError(error.message.startsWith('auth') ? error.message : `auth: ${error.message}`);
    }
    throw error;
  }
}
