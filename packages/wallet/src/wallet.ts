import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { isCaipChainId, parseCaipAccountId, parseCaipChainId } from '@metamask/utils';
import {
  type ApprovalDecision,
  attachWebSocketServer,
  createMultichainEngine,
  type MultichainEngine,
  openSessionStore,
  type SupportedScopes,
} from '@portico/multichain/node';
import type { LocalAccount } from 'viem/accounts';
import { createApprovalQueue } from './approvals.ts';
import { createEip155Chain, type Eip155Chain } from './chains/eip155.ts';
import { createSolanaChain } from './chains/solana.ts';
import {
  createKeyring,
  DEV_MNEMONIC,
  deriveAccounts,
  type Keyring,
  type KeyringNamespace,
  type NamespaceAccounts,
  type SolanaAccount,
} from './keyring.ts';
import {
  createLoginSessions,
  type LoginSessions,
  type WalletAuthOptions,
  type WalletLoginParams,
  type WalletLoginStart,
  type WalletUser,
} from './login.ts';
import { RpcError } from './rpc.ts';
import { type AccountView, type BalanceView, createWalletServer, HttpError } from './server.ts';
import type { ConfirmSigning, KnownContract } from './signing/types.ts';

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
  /** Tops an account up (a faucet on dev chains): with it the approval page shows "Top up" per account. */
  fund?: (namespace: 'eip155' | 'solana', address: string) => Promise<void>;
  /** Contracts whose calls the approval page shows decoded: name, function and arguments. */
  contracts?: KnownContract[];
  /** Approves every connection and signing request, without asking. Development only. */
  autoApprove?: boolean;
  /** Token for the approval page's API; default random per start. */
  approvalToken?: string;
  /** Polling period for subscriptions on chains without wsRpcUrl; default 1 000 ms. */
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

type ServedChain = Pick<Eip155Chain, 'methods' | 'notifications' | 'invoke' | 'balance' | 'close'>;

/** Builds the chain a config names: eip155 (reads through rpcUrl, local signing) or solana. */
function createChain(
  config: WalletChainConfig,
  {
    keyring,
    options,
    confirm,
    log,
  }: { keyring: Keyring; options: StartWalletOptions; confirm: ConfirmSigning; log: (line: string) => void },
): ServedChain {
  if (!isCaipChainId(config.chainId)) throw new Error(`invalid CAIP-2 chain id: ${config.chainId}`);
  const { namespace, reference } = parseCaipChainId(config.chainId);
  if (namespace === 'solana')
    return createSolanaChain({
      chainId: config.chainId,
      rpcUrl: config.rpcUrl,
      keyring,
      confirm,
      onLog: log,
    });
  if (namespace !== 'eip155')
    throw new Error(`${config.chainId}: the wallet supports eip155 and solana chains`);
  return createEip155Chain({
    chainId: Number(reference),
    rpcUrl: config.rpcUrl,
    wsRpcUrl: config.wsRpcUrl,
    keyring,
    confirm,
    contracts: options.contracts,
    pollingIntervalMs: options.pollingIntervalMs,
    onLog: log,
  });
}

/** The warning to print whenever the wallet runs with autoApprove. */
export const AUTO_APPROVE_WARNING =
  'WARNING: the wallet auto-approves every connection and signing request with all accounts. Development only: any web page on this machine can connect, sign and send transactions with these keys.';

/** Lines for a start-up banner (no keys, ever). */
export function walletBannerLines(wallet: Wallet): string[] {
  return [
    `Wallet (Multichain API) ws:   ${wallet.wsUrl}`,
    `Wallet approval page:         ${wallet.approvalUrl}`,
    `Wallet chains:                ${wallet.chains.join(', ')}`,
    `Wallet accounts (eip155):     ${(wallet.accounts.eip155 ?? []).join(', ')}`,
    ...(wallet.chains.some((chain) => chain.startsWith('solana:'))
      ? [`Wallet accounts (solana):     ${(wallet.accounts.solana ?? []).join(', ')}`]
      : []),
    ...(wallet.authClient
      ? [`Wallet login:                 "Log in" on the approval page (auth ${wallet.authClient.sdkUrl})`]
      : []),
    ...(wallet.autoApprove ? [AUTO_APPROVE_WARNING] : []),
  ];
}

/** The `wallet` section of `portico dev --config-out`. */
export function walletConfigOut(wallet: Wallet): {
  wsUrl: string;
  approvalUrl: string;
  chains: string[];
  accounts: Record<string, string[]>;
  accountSource: Wallet['accountSource'];
  auth: { sdkUrl: string; clientId: string } | null;
  autoApprove: boolean;
} {
  return {
    wsUrl: wallet.wsUrl,
    approvalUrl: wallet.approvalUrl,
    chains: wallet.chains,
    accounts: wallet.accounts,
    accountSource: wallet.accountSource,
    auth: wallet.authClient ?? null,
    autoApprove: wallet.autoApprove,
  };
}

/** Starts the reference wallet: keyring, chains, session store, dapp WebSocket and approval page. */
export async function startWallet(options: StartWalletOptions): Promise<Wallet> {
  const log = options.onLog ?? (() => {});
  const mnemonic = options.mnemonic ?? DEV_MNEMONIC;
  const accountCount = options.accountCount ?? 5;
  let accountSource: 'dev' | 'login' | 'none' =
    (options.initialAccounts ?? (options.auth ? 'none' : 'dev')) === 'dev' ? 'dev' : 'none';
  const keyring = createKeyring({ mnemonic: accountSource === 'dev' ? mnemonic : null, accountCount });
  const approvals = createApprovalQueue({ onLog: log });
  // Assigned below; signing requests only arrive once the engine serves connections.
  let engine: MultichainEngine;

  const confirm: ConfirmSigning = async (request, signal) => {
    if (options.autoApprove) {
      log(`wallet: auto-approved ${request.method} for ${request.origin} on ${request.scope}`);
      return;
    }
    const outcome = await approvals.requestSignature(request, { signal });
    if (outcome === 'rejected') throw new RpcError(4001, 'User rejected the request.');
    // The account may have left the session (or the wallet) while the person decided.
    const scopes = (await engine.getSession(request.origin))?.sessionScopes ?? {};
    const granted = Object.hasOwn(scopes, request.scope)
      ? scopes[request.scope as keyof typeof scopes]
      : undefined;
    const eip155 = request.scope.startsWith('eip155:');
    const stillGranted = granted?.accounts.some((account) => {
      const { address } = parseCaipAccountId(account);
      return eip155 ? address.toLowerCase() === request.account.toLowerCase() : address === request.account;
    });
    if (outcome === 'account-removed' || !stillGranted) {
      throw new RpcError(4100, 'The requested account and/or method has not been authorized by the user.');
    }
  };

  const chains = new Map<string, ServedChain>();
  const serve = (config: WalletChainConfig) => {
    if (chains.has(config.chainId)) throw new Error(`${config.chainId} is already served`);
    chains.set(config.chainId, createChain(config, { keyring, options, confirm, log }));
  };
  for (const config of options.chains) serve(config);

  // Read at every request, so chains added or removed at run time count at once.
  const supportedScopes = (): SupportedScopes => {
    const supported: SupportedScopes = { wallet: { methods: [], notifications: [] } };
    for (const [scope, chain] of chains)
      supported[scope] = { methods: chain.methods, notifications: chain.notifications };
    if ([...chains.keys()].some((id) => id.startsWith('eip155:')))
      supported['wallet:eip155'] = { methods: [], notifications: [] };
    return supported;
  };

  const store = await openSessionStore({ dataDir: options.dataDir, databaseUrl: options.databaseUrl });
  engine = createMultichainEngine({
    store,
    onLog: log,
    getSupportedScopes: supportedScopes,
    getAccounts: (namespace) => keyring.addresses(namespace),
    approve: async (request, { signal }): Promise<ApprovalDecision> => {
      if (options.autoApprove) {
        log(`wallet: auto-approved ${request.origin} for ${Object.keys(request.scopes).join(', ')}`);
        return { approved: true, accounts: request.accounts };
      }
      return approvals.request(request, { signal });
    },
    invoke: async (scope, request, context) => {
      const chain = chains.get(scope);
      if (!chain) throw new RpcError(-32601, `${request.method} is not supported on ${scope}`);
      return chain.invoke(request, context);
    },
  });

  await engine.reconcile();

  const holds = (namespace: string, address: string) =>
    keyring.addresses(namespace).some((held) => held.toLowerCase() === address.toLowerCase());

  async function replaceAccounts<N extends KeyringNamespace>(
    namespace: N,
    accounts: readonly NamespaceAccounts[N][],
  ) {
    keyring.replace(namespace, accounts);
    const held = keyring.addresses(namespace);
    log(`wallet: ${namespace} accounts replaced (${held.length} held)`);
    approvals.withdrawSignatures(holds);
    await engine.replaceAccounts(namespace, held);
  }

  /**
   * Replaces the accounts of both namespaces at once (a login, a logout, the dev accounts): each
   * affected origin hears one wallet_sessionChanged with the final scopes, not one per namespace.
   */
  async function holdAccounts(
    source: typeof accountSource,
    accounts: { eip155: LocalAccount[]; solana: SolanaAccount[] },
  ) {
    accountSource = source;
    keyring.replace('eip155', accounts.eip155);
    keyring.replace('solana', accounts.solana);
    log(
      `wallet: holding ${source === 'none' ? 'no accounts' : `the ${source === 'dev' ? 'dev' : 'logged-in user’s'} accounts`}`,
    );
    approvals.withdrawSignatures(holds);
    await engine.reconcile();
  }

  // Account changes (logins, logouts, dev accounts) run one at a time, in the order asked.
  let accountChanges: Promise<unknown> = Promise.resolve();
  const changeAccounts = <T>(change: () => Promise<T>): Promise<T> => {
    const next = accountChanges.then(change);
    accountChanges = next.catch(() => {});
    return next;
  };

  const token = options.approvalToken ?? randomBytes(24).toString('base64url');
  const host = options.host ?? '127.0.0.1';
  const urlHost = host.includes(':') ? `[${host}]` : host;
  let baseUrl = '';
  const login: LoginSessions | undefined = options.auth
    ? createLoginSessions({
        auth: options.auth,
        callbackUrl: (nonce) => `${baseUrl}/login/callback/${nonce}`,
        onLogin: (_user, accounts) =>
          changeAccounts(() =>
            holdAccounts('login', { eip155: [accounts.eip155], solana: [accounts.solana] }),
          ),
        onLogout: () => changeAccounts(() => holdAccounts('none', { eip155: [], solana: [] })),
        onLog: log,
      })
    : undefined;
  const requireLogin = () => {
    if (!login) throw new HttpError(404, 'no auth service is configured for this wallet (the auth option)');
    return login;
  };

  async function useDevAccounts() {
    await login?.logout();
    await changeAccounts(() => holdAccounts('dev', deriveAccounts(mnemonic, accountCount)));
  }

  const view = (): AccountView => ({
    source: accountSource,
    user: login?.user ?? null,
    login: { available: Boolean(login), pending: login?.pending ?? false, error: login?.error ?? null },
    canFund: Boolean(options.fund),
    accounts: { eip155: keyring.addresses('eip155'), solana: keyring.addresses('solana') },
  });

  async function balances(): Promise<BalanceView[]> {
    const reads: Promise<BalanceView>[] = [];
    for (const [chainId, chain] of chains) {
      for (const address of keyring.addresses(chainId.split(':')[0])) {
        reads.push(
          chain.balance(address).then(
            (balance) => ({ chainId, address, balance }),
            (error: unknown) => ({ chainId, address, balance: null, error: (error as Error).message }),
          ),
        );
      }
    }
    return Promise.all(reads);
  }

  async function fund(namespace: string, address: string) {
    if (!options.fund) throw new HttpError(404, 'this wallet has no top-up (the fund option)');
    if (namespace !== 'eip155' && namespace !== 'solana')
      throw new HttpError(400, 'namespace must be eip155 or solana');
    const held = keyring.addresses(namespace).find((a) => a.toLowerCase() === address.toLowerCase());
    if (!held) throw new HttpError(400, `the wallet holds no ${namespace} account ${address}`);
    try {
      await options.fund(namespace, held);
    } catch (error) {
      throw new HttpError(502, `top-up failed: ${(error as Error).message}`);
    }
    log(`wallet: topped up ${namespace} ${held}`);
  }

  const server = createWalletServer({
    token,
    approvals,
    engine,
    account: {
      view,
      balances,
      login: (params) => requireLogin().start(params),
      cancelLogin: () => login?.cancel() ?? false,
      arriveLogin: (nonce, href) => login?.arrive(nonce, href) ?? false,
      logout: async () => {
        await requireLogin().logout();
      },
      useDevAccounts,
      fund,
    },
  });
  const ws = attachWebSocketServer(engine, { server, path: '/multichain', onLog: log });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  baseUrl = `http://${urlHost}:${port}`;
  if (options.autoApprove) log(AUTO_APPROVE_WARNING);

  let closing: Promise<void> | undefined;
  return {
    wsUrl: `ws://${urlHost}:${port}/multichain`,
    approvalUrl: `${baseUrl}/approve#token=${token}`,
    get accounts() {
      return { eip155: keyring.addresses('eip155'), solana: keyring.addresses('solana') };
    },
    get chains() {
      return [...chains.keys()];
    },
    autoApprove: options.autoApprove ?? false,
    engine,
    get accountSource() {
      return accountSource;
    },
    get user() {
      return login?.user;
    },
    authClient: options.auth ? { sdkUrl: options.auth.sdkUrl, clientId: options.auth.clientId } : undefined,
    login: (params) => requireLogin().start(params),
    logout: async () => {
      await requireLogin().logout();
    },
    useDevAccounts,
    replaceAccounts: (namespace, accounts) => changeAccounts(() => replaceAccounts(namespace, accounts)),
    async addChain(config) {
      serve(config);
      log(`wallet: now serving ${config.chainId}`);
    },
    async removeChain(chainId) {
      const chain = chains.get(chainId);
      if (!chain) return false;
      chains.delete(chainId);
      chain.close();
      log(`wallet: stopped serving ${chainId}`);
      await engine.reconcile();
      return true;
    },
    close() {
      closing ??= (async () => {
        approvals.rejectAll();
        login?.cancel();
        // The user's session ends with the wallet: it lived only in this process's memory.
        await login?.logout();
        ws.close();
        for (const chain of chains.values()) chain.close();
        await engine.close();
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
        await store.close();
      })();
      return closing;
    },
  };
}
