// Reads the file `portico dev --config-out <file>` writes and keeps what a browser app may hold:
// the gateway RPC URLs (they carry an API key, which is how a dapp's calls are metered), the auth
// service's address, and the reference wallet's WebSocket and approval page. The admin token and
// the data folder stay out of the bundle.
import { readFileSync } from 'node:fs';
import type { DappConfig } from './src/config.ts';

type DevConfigFile = {
  apiKey: string;
  networks: Record<string, { baseUrl: string; chainId: string; rpcUrl: string; kind: string }>;
  auth: { sdkUrl: string };
  wallet: { wsUrl: string; approvalUrl: string };
};

/** The app's config from a --config-out file; `apiKey` replaces the dev key (a key of the app's own). */
export function readDappConfig(path: string, apiKey?: string): DappConfig {
  let file: DevConfigFile;
  try {
    file = JSON.parse(readFileSync(path, 'utf8')) as DevConfigFile;
  } catch (error) {
    throw new Error(
      `cannot read ${path} (${(error as Error).message}): start \`portico dev --config-out ${path}\` first, or set PORTICO_CONFIG`,
    );
  }
  const rpcUrl = (kind: string) => {
    const network = Object.values(file.networks).find((n) => n.kind === kind);
    if (!network) throw new Error(`${path} lists no ${kind} network`);
    return { chainId: network.chainId, rpcUrl: `${network.baseUrl}/v3/${apiKey || file.apiKey}` };
  };
  return {
    evm: rpcUrl('evm'),
    solana: rpcUrl('solana'),
    authUrl: file.auth.sdkUrl,
    walletUrl: file.wallet.wsUrl,
    walletPageUrl: file.wallet.approvalUrl,
  };
}
