// The reference wallet's options and the running wallet's surface.
import type { MultichainEngine } from '@portico/multichain/node';
import type { KeyringNamespace, NamespaceAccounts } from './keyring.ts';
import type { WalletAuthOptions, WalletLoginParams, WalletLoginStart, WalletUser } from './login.ts';
import type { KnownContract } from './signing/types.ts';

export type WalletChainConfig = {
  /** CAIP-2 chain id, e.g. `eip155:31337` or `solana:<genesis hash prefix>`. */
  chainId: string;
  /** HTTP JSON-RPC URL for reads and broadcasts (in `portico dev`: `<baseUrl>/v3/<apiKey>`). */
  rpcUrl: string;
  /** WebSocket JSON-RPC URL for eth_subscribe; without it the wallet polls HTTP filters. */
  wsRpcUrl?: string;
};

export type StartWalletOptions = {
  /** Port for the dapp WebSocket and the approval page; 0 (default) lets the OS pick. */
  port?: number;
  /** Interface to listen on; default 127.0.0.1. */
  host?: string;
  /** Sessions persist in `<dataDir>/multichain-sessions.sqlite`; without it (and databaseUrl) they live in memory. */
  dataDir?: string;
  /** PostgreSQL connection string for the session store (a hosted wallet); wins over dataDir. */
  databaseUrl?: string;
  chains: WalletChainConfig[];
  /** BIP-39 mnemonic of the "dev accounts"; default the well-known dev mnemonic `test test … junk`. */
  mnemonic?: string;
  /** How many accounts to derive from the mnemonic per namespace; default 5. */
  accountCount?: number;
  /**
   * The auth service the wallet's user logs in through (the approval page's "Log in"); the wallet
   * then holds that user's eip155 and Solana keys for `clientId`.
   */
  auth?: WalletAuthOptions;
  /**
   * What the wallet holds at start: `dev` (the mnemonic's accounts) or `none` (nothing until a
   * login or "Use dev accounts"). Default `none` with `auth`, else `dev`.
   */
  initialAccounts?: 'dev' | 'none';
  /**
   * Whether the page offers "Use dev accounts" (the mnemonic's accounts). Default true; `portico
   * start` turns it off: in production the wallet holds only the logged-in user's keys.
   */
  devAccounts?: boolean;
  /** Tops an account up (a faucet on dev chains): with it the approval page shows "Top up" per account. */
  fund?: (namespace: 'eip155' | 'solana', address: string) => Promise<void>;
  /** Contracts whose calls the approval page shows decoded: name, function and arguments. */
  contracts?: KnownContract[];
  /** Approves every connection and signing request, without asking. Development only. */
  autoApprove?: boolean;
  /** Token for the approval page's API; default random per start. */
  approvalToken?: string;
  /** Polling period for subscriptions on chains without wsRpcUrl; default 1 000 ms. */
  /**
   * How long a signing request waits on the approval page before the dapp is answered with
   * `REQUEST_EXPIRED_CODE` (8000); default 300 000 (5 minutes).
   */
  requestExpiryMs?: number;
  pollingIntervalMs?: number;
  onLog?: (line: string) => void;
};

export type Wallet = {
  /** The dapp-facing WebSocket (the dapp's origin is the connection's Origin header). */
  wsUrl: string;
  /** The approval page, with its access token in the fragment. */
  approvalUrl: string;
  /** Addresses held now per namespace, e.g. `{ eip155: ['0xf39f…'] }`. */
  readonly accounts: Record<string, string[]>;
  /** CAIP-2 ids of the chains served now. */
  readonly chains: string[];
  autoApprove: boolean;
  engine: MultichainEngine;
  /** Whose accounts the wallet holds: the mnemonic's (`dev`), the logged-in user's, or none. */
  readonly accountSource: 'dev' | 'login' | 'none';
  /** The logged-in user, if any (no keys, no tokens). */
  readonly user: WalletUser | undefined;
  /** The auth service and clientId the wallet's user logs in with (the `auth` option), if any. */
  authClient: { sdkUrl: string; clientId: string } | undefined;
  /**
   * Logs the wallet's user in through the auth service (`auth` option). A JWT login
   * (`{ loginProvider, extraLoginOptions: { id_token } }`) resolves `{ user }` once the wallet holds
   * the user's accounts; any other resolves `{ loginUrl }`, the login page to open in a browser (the
   * approval page's "Log in" does this in a popup). Connected dapps lose the accounts the wallet no
   * longer holds (wallet_sessionChanged).
   */
  login: (params?: WalletLoginParams) => Promise<WalletLoginStart>;
  /** Ends the login (also on the auth service); the wallet then holds no accounts. */
  logout: () => Promise<void>;
  /** Ends any login and holds the mnemonic's accounts again. */
  useDevAccounts: () => Promise<void>;
  /**
   * Replaces every account the wallet holds in a namespace (e.g. with the keys of the user who logged
   * in). Connected dapps lose the replaced accounts at once (wallet_sessionChanged with the full
   * updated scopes to every connection of every affected origin; a session left without accounts
   * ends). New accounts are granted only when a person approves them.
   */
  replaceAccounts: <N extends KeyringNamespace>(
    namespace: N,
    accounts: readonly NamespaceAccounts[N][],
  ) => Promise<void>;
  /** Starts serving one more chain; dapps can ask for it in their next wallet_createSession. */
  addChain: (config: WalletChainConfig) => Promise<void>;
  /**
   * Stops serving a chain: it leaves every session (wallet_sessionChanged to every connection of
   * every affected origin; a session left without a chain ends) and is no longer granted. Resolves
   * false when the chain was not served.
   */
  removeChain: (chainId: string) => Promise<boolean>;
  close: () => Promise<void>;
};
