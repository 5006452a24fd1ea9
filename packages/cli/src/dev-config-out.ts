import type { EvmSeed } from '@portico/devchain';
import type { walletConfigOut } from '@portico/wallet';
import type { DevJwtConfigOut, FaucetConfigOut } from './dev-services.ts';

/** What `--config-out` writes: the contract other tools and tests rely on. */
export type DevConfigOut = {
  apiKey: string;
  adminToken: string;
  gatewayUrl: string;
  dataDir: string;
  networks: Record<string, { baseUrl: string; chainId: string; rpcUrl: string; kind: string }>;
  evm: {
    upstreamUrl: string;
    accounts: string[];
    demoContract: string;
    transactions: EvmSeed['transactions'];
  };
  solana: { upstreamUrl: string; wsUrl: string; devAccounts: { name: string; address: string }[] };
  dashboard: { url: string };
  wallet: ReturnType<typeof walletConfigOut>;
  auth: { sdkUrl: string; jwksUrl: string; devJwt: DevJwtConfigOut };
  faucet: FaucetConfigOut;
};
