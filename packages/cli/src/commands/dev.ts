import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadDevJwtKey, startAuthServer } from '@portico/auth-server';
import type { AuthAdminTarget } from '@portico/dashboard';
import {
  type Anvil,
  createDevFaucet,
  createFaucetHandler,
  PorticoDemo,
  seedEvmChain,
  setBlockTime,
  startAnvil,
  startSolanaLedger,
} from '@portico/devchain';
import { type Gateway, type KeyStore, onShutdown, parseConfig, startGateway } from '@portico/gateway';
import { AUTO_APPROVE_WARNING, startWallet, walletBannerLines, walletConfigOut } from '@portico/wallet';
import pino from 'pino';
import { printBanner } from '../banner.ts';
import { dataDirSecret, defaultDataDir, writeDataDirSecret } from '../data-dir.ts';
import type { DevConfigOut } from '../dev-config-out.ts';
import {
  devJwtConfigOut,
  devJwtKeyFile,
  faucetConfigOut,
  fundNewLogins,
  removeRunning,
  writeRunning,
} from '../dev-services.ts';
import { CliError } from '../errors.ts';
import { dashboardHandlers, networksOut, StartedParts } from '../parts.ts';

const HELP = `portico dev [options]

Runs everything on embedded defaults: an anvil EVM chain and a LiteSVM Solana ledger (both
seeded with activity), the gateway, the reference wallet, the auth service, the dashboard and a
development API key. Nothing else to install. For development only: its auth service lets anyone
log in as any user (a login form for any email, and POST /dev/token for any user id, also
\`portico dev-token USER_ID\`), and a faucet funds new users and \`portico fund ADDRESS\`.

  --port N            gateway port (default 8545; 0 picks a free port)
  --data-dir DIR      keeps keys, usage and the admin token (default ${defaultDataDir()})
  --api-key KEY       use this development API key
  --config-out FILE   write the endpoints and keys as JSON to FILE
  --block-time S      seconds between blocks (default 2; 0 mines one block per transaction)
  --wallet-auto-approve
                      the reference wallet approves every connection and signing request
                      with all its accounts (for scripts and CI only: any page on this
                      machine could then sign and send)

With --port N (not 0) the wallet listens on N+1 and the auth service on N+2.`;

/**
 * The project clientId the reference wallet logs its user in with in `portico dev` (shaped like a
 * Web3Auth client id: base64url of 0x04 ‖ sha512("portico dev wallet")). A user's wallet accounts
 * are the keys `@portico/auth` gives that user for this clientId.
 */
export const DEV_WALLET_CLIENT_ID =
  'BLebhfEh0ZAuMuzbCpFXFKGMZIXyNOQ29dJAPfT-rXRJON9xB8PXjPpbZ5YtAlFE3ith5WUjNsmbaVpztXivSXs';

export async function runDev(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      port: { type: 'string', default: '8545' },
      'data-dir': { type: 'string' },
      'api-key': { type: 'string' },
      'config-out': { type: 'string' },
      'block-time': { type: 'string', default: '2' },
      'wallet-auto-approve': { type: 'boolean' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  const port = integerFlag(values.port, '--port', 0, 65533);
  const blockTime = integerFlag(values['block-time'], '--block-time', 0, 3600);
  const dataDir = resolve(values['data-dir'] ?? defaultDataDir());
  const autoApprove = values['wallet-auto-approve'] === true;
  const logger = pino({ level: process.env.PORTICO_LOG_LEVEL ?? 'warn' });
  const portFor = (offset: number) => (port === 0 ? 0 : port + offset);

  const started = new StartedParts();
  const closeAll = started.close;
  let stopped: Promise<void> = Promise.resolve();
  try {
    const anvil: Anvil = await startAnvil({ extraArgs: ['--slots-in-an-epoch', '2'] });
    started.add({ close: anvil.stop });
    const seed = await seedEvmChain(anvil.url);
    await setBlockTime(anvil.url, blockTime);
    const solana = await startSolanaLedger({ dataDir: join(dataDir, 'solana'), seed: true });
    started.add({ close: solana.stop });
    // Only on these embedded chains: new users' first logins, `portico fund`, POST /dev/fund.
    const faucet = await createDevFaucet({ anvil, solana });

    const adminToken = dataDirSecret(dataDir, 'admin-token');
    // The auth service's admin API has its own token; only the dashboard handler holds it.
    const authAdminToken = dataDirSecret(dataDir, 'auth-admin-token');
    let authAdmin: AuthAdminTarget | undefined;
    const gateway: Gateway = await startGateway(
      parseConfig({
        port,
        dataDir,
        adminToken,
        logLevel: logger.level,
        networks: [
          // anvil serves its WebSocket on the HTTP port: heads are pushed. Tags still go to anvil as
          // they are: it mines each transaction the moment it arrives, and a read right after a
          // write must see it, which a push a few milliseconds behind might not.
          {
            name: 'local',
            kind: 'evm',
            chainId: 'eip155:31337',
            upstreams: [anvil.url],
            headPush: true,
            blockTags: 'upstream',
          },
          { name: 'solana-local', kind: 'solana', chainId: solana.chainId, upstreams: [solana.url] },
        ],
      }),
      {
        logger,
        extraHandlers: [
          ...dashboardHandlers(true, { adminToken, authAdmin: () => authAdmin }),
          createFaucetHandler(faucet),
        ],
      },
    );
    started.add(gateway);
    const apiKey = await ensureDevKey(gateway.keys, dataDir, values['api-key']);
    const networks = networksOut(gateway, apiKey);

    const authLog = (line: string) => logger.info({ service: 'auth' }, line);
    const auth = await startAuthServer({
      port: portFor(2),
      // Its pages (login, passkeys, account) at http://localhost:<port>: WebAuthn refuses an IP
      // address as RP ID, so on 127.0.0.1 no passkey could be made or used.
      publicHost: 'localhost',
      dataDir: join(dataDir, 'auth'),
      devJwt: { key: await loadDevJwtKey(devJwtKeyFile(dataDir)) },
      onLogin: fundNewLogins(faucet, authLog),
      onLog: authLog,
      adminToken: authAdminToken,
    });
    started.add(auth);
    authAdmin = { url: auth.sdkUrl, adminToken: authAdminToken };

    // The reference wallet reads every chain through the gateway, metered on the dev key.
    const wallet = await startWallet({
      port: portFor(1),
      dataDir: join(dataDir, 'wallet'),
      chains: Object.values(networks).map((n) => ({ chainId: n.chainId, rpcUrl: n.rpcUrl })),
      // "Log in" on the approval page logs the user in through the dev auth service; the dev
      // accounts stay what the wallet holds until then, as before.
      auth: { sdkUrl: auth.sdkUrl, clientId: DEV_WALLET_CLIENT_ID },
      initialAccounts: 'dev',
      contracts: [{ name: 'PorticoDemo', address: seed.demoContract, abi: PorticoDemo.abi }],
      // "Top up" on the approval page: the dev faucet (dev chains only).
      fund: async (namespace, address) => {
        await faucet.fund(namespace, address);
      },
      autoApprove,
      onLog: (line) => logger.info({ service: 'wallet' }, line),
    });
    started.add(wallet);

    const configOut: DevConfigOut = {
      apiKey,
      adminToken,
      gatewayUrl: gateway.url,
      dataDir,
      networks,
      evm: {
        upstreamUrl: anvil.url,
        accounts: seed.accounts,
        demoContract: seed.demoContract,
        transactions: seed.transactions,
      },
      solana: {
        upstreamUrl: solana.url,
        wsUrl: solana.wsUrl,
        devAccounts: solana.devAccounts.map(({ name, address }) => ({ name, address })),
      },
      dashboard: { url: `${gateway.url}/dashboard/` },
      wallet: walletConfigOut(wallet),
      auth: { sdkUrl: auth.sdkUrl, jwksUrl: auth.jwksUrl, devJwt: devJwtConfigOut(auth.sdkUrl, dataDir) },
      faucet: faucetConfigOut(faucet, gateway.url, dataDir),
    };
    writeRunning(dataDir, { pid: process.pid, faucetUrl: configOut.faucet.url, sdkUrl: auth.sdkUrl });
    started.add({ close: async () => removeRunning(dataDir) });
    if (values['config-out']) writeFileSync(values['config-out'], `${JSON.stringify(configOut, null, 2)}\n`);
    // Listening for SIGTERM before the banner says it runs (a script may stop it on reading it).
    stopped = onShutdown(closeAll);
    printBanner(configOut, { blockTime, walletLines: walletBannerLines(wallet) });
    if (autoApprove) console.warn(`\n${AUTO_APPROVE_WARNING}\n`);
  } catch (error) {
    await closeAll();
    throw error;
  }
  await stopped;
  return 0;
}

/** The dev key: the one given with --api-key, else the one kept in the data folder, else a new one. */
async function ensureDevKey(keys: KeyStore, dataDir: string, requested: string | undefined): Promise<string> {
  if (requested) {
    if (!(await keys.authenticate(requested))) {
      try {
        await keys.create({ name: 'dev (--api-key)', key: requested });
      } catch (error) {
        throw new CliError(
          `cannot use --api-key: ${(error as Error).message.includes('UNIQUE') ? 'that key was revoked' : (error as Error).message}`,
        );
      }
    }
    return requested;
  }
  const kept = dataDirSecret(dataDir, 'dev-api-key', () => '');
  if (kept && (await keys.authenticate(kept))) return kept;
  const { key } = await keys.create({ name: 'dev' });
  writeDataDirSecret(dataDir, 'dev-api-key', key);
  return key;
}

function integerFlag(value: string | undefined, name: string, min: number, max: number): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < min || number > max)
    throw new CliError(`${name} must be an integer from ${min} to ${max}`);
  return number;
}
