// What `portico dev` adds for development logins and funds: the dev JWT issuer's key file, the
// faucet wired to first logins, the `auth.devJwt` / `faucet` sections of --config-out, and the
// `running.json` file through which `portico fund` finds a running `portico dev`.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEV_JWT_VERIFIER, DEV_TOKEN_SECONDS, type LoginEvent } from '@portico/auth-server';
import { type DevFaucet, FAUCET_PATH, type FaucetNamespace, formatFaucetAmount } from '@portico/devchain';
import { CliError } from './errors.ts';

/** Where `portico dev` keeps the development JWT issuer's private key (mode 0600). */
export function devJwtKeyFile(dataDir: string): string {
  return join(dataDir, 'auth', 'dev-jwt-key.json');
}

/** `auth.devJwt` of --config-out: how to log in without a browser. */
export type DevJwtConfigOut = {
  verifier: string;
  loginProvider: string;
  verifierIdField: 'sub';
  tokenUrl: string;
  command: string;
  expiresIn: number;
};

/** `faucet` of --config-out. */
export type FaucetConfigOut = {
  url: string;
  command: string;
  /** What a new user's first login gets, and the default top-up, in ETH / SOL. */
  amounts: Record<FaucetNamespace, string>;
  chains: Partial<Record<FaucetNamespace, string>>;
};

export function devJwtConfigOut(sdkUrl: string, dataDir: string): DevJwtConfigOut {
  return {
    verifier: DEV_JWT_VERIFIER,
    loginProvider: DEV_JWT_VERIFIER,
    verifierIdField: 'sub',
    tokenUrl: `${sdkUrl}/dev/token`,
    command: `portico dev-token <user-id> --data-dir ${dataDir}`,
    expiresIn: DEV_TOKEN_SECONDS,
  };
}

export function faucetConfigOut(faucet: DevFaucet, gatewayUrl: string, dataDir: string): FaucetConfigOut {
  const units = (namespace: FaucetNamespace) =>
    formatFaucetAmount(namespace, faucet.amounts[namespace]).split(' ')[0];
  return {
    url: `${gatewayUrl}${FAUCET_PATH}`,
    command: `portico fund <address> [--amount N] --data-dir ${dataDir}`,
    amounts: { eip155: units('eip155'), solana: units('solana') },
    chains: faucet.chains,
  };
}

/**
 * `onLogin` of the dev auth service: every account of the login (app key and core key, EVM and
 * Solana) that holds nothing on the dev chains gets the faucet's amount — a new user's first
 * login, and the first login after a restart for EVM (anvil starts fresh each time).
 */
export function fundNewLogins(faucet: DevFaucet, log: (line: string) => void) {
  return async (event: LoginEvent): Promise<void> => {
    const funded = await Promise.all(
      event.accounts.flatMap((account) => [
        faucet.fundIfEmpty('eip155', account.eip155),
        faucet.fundIfEmpty('solana', account.solana),
      ]),
    );
    for (const result of funded) {
      if (result) log(`faucet: ${formatFaucetAmount(result.namespace, result.amount)} to ${result.address}`);
    }
  };
}

/** What `running.json` in the data folder holds while `portico dev` runs. */
export type RunningDev = { pid: number; faucetUrl: string; sdkUrl: string };

const RUNNING_FILE = 'running.json';

export function writeRunning(dataDir: string, running: RunningDev): void {
  writeFileSync(join(dataDir, RUNNING_FILE), `${JSON.stringify(running, null, 2)}\n`, { mode: 0o600 });
}

export function removeRunning(dataDir: string): void {
  rmSync(join(dataDir, RUNNING_FILE), { force: true });
}

/** The `portico dev` running on `dataDir`; a CliError saying so when there is none. */
export function readRunning(dataDir: string): RunningDev {
  const file = join(dataDir, RUNNING_FILE);
  const notRunning = () =>
    new CliError(`no portico dev is running on ${dataDir} (start it, or pass its --data-dir, or --url)`);
  if (!existsSync(file)) throw notRunning();
  let running: RunningDev;
  try {
    running = JSON.parse(readFileSync(file, 'utf8')) as RunningDev;
  } catch {
    throw notRunning();
  }
  try {
    process.kill(running.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') throw notRunning();
  }
  return running;
}
