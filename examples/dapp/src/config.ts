/** Where the app's services are; vite.config.ts fills it in from `portico dev --config-out`. */
export type DappConfig = {
  /** eip155 chain (`eip155:31337`) and its gateway URL with the app's API key. */
  evm: { chainId: string; rpcUrl: string };
  /** Solana chain (`solana:<genesis hash>`) and its gateway URL with the app's API key. */
  solana: { chainId: string; rpcUrl: string };
  /** The auth service (`sdkUrl` of @portico/auth). */
  authUrl: string;
  /** The reference wallet's Multichain API WebSocket. */
  walletUrl: string;
  /** The wallet's approval page; the app opens it when the wallet has something to ask. */
  walletPageUrl: string;
};

declare const __PORTICO_CONFIG__: DappConfig;

export const config: DappConfig = __PORTICO_CONFIG__;
