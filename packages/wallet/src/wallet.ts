import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { parseCaipAccountId } from '@metamask/utils';
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
import { AUTO_APPROVE_WARNING } from './banner.ts';
import { createChain, type ServedChain } from './chains/create.ts';
import {
  createKeyring,
  DEV_MNEMONIC,
  deriveAccounts,
  type KeyringNamespace,
  type NamespaceAccounts,
  type SolanaAccount,
} from './keyring.ts';
import { createLoginSessions, type LoginSessions } from './login.ts';
import { REQUEST_EXPIRED_CODE, RpcError } from './rpc.ts';
import { type AccountView, type BalanceView, createWalletServer, HttpError } from './server.ts';
import type { ConfirmSigning } from './signing/types.ts';
import type { StartWalletOptions, Wallet, WalletChainConfig } from './wallet-types.ts';

export { AUTO_APPROVE_WARNING, walletBannerLines, walletConfigOut } from './banner.ts';
export type { StartWalletOptions, Wallet, WalletChainConfig } from './wallet-types.ts';

/** Starts the reference wallet: keyring, chains, session store, dapp WebSocket and approval page. */
export async function startWallet(options: StartWalletOptions): Promise<Wallet> {
  const log = options.onLog ?? (() => {});
  const mnemonic = options.mnemonic ?? DEV_MNEMONIC;
  const accountCount = options.accountCount ?? 5;
  const devAccounts = options.devAccounts ?? true;
  let accountSource: 'dev' | 'login' | 'none' =
    (options.initialAccounts ?? (options.auth ? 'none' : 'dev')) === 'dev' ? 'dev' : 'none';
  if (accountSource === 'dev' && !devAccounts)
    throw new Error("initialAccounts: 'dev' needs devAccounts (it is off)");
  const keyring = createKeyring({ mnemonic: accountSource === 'dev' ? mnemonic : null, accountCount });
  const approvals = createApprovalQueue({ onLog: log, requestExpiryMs: options.requestExpiryMs });
  // Assigned below; signing requests only arrive once the engine serves connections.
  let engine: MultichainEngine;

  const confirm: ConfirmSigning = async (request, signal) => {
    if (options.autoApprove) {
      log(`wallet: auto-approved ${request.method} for ${request.origin} on ${request.scope}`);
      return;
    }
    const outcome = await approvals.requestSignature(request, { signal });
    if (outcome === 'rejected') throw new RpcError(4001, 'User rejected the request.');
    if (outcome === 'expired') {
      const seconds = approvals.expiryMs / 1000;
      throw new RpcError(
        REQUEST_EXPIRED_CODE,
        `Request expired: nobody answered it on the wallet's approval page within ${seconds} s.`,
      );
    }
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
    if (!login)
      throw new HttpError(
        404,
        'LOGIN_OFF',
        'no auth service is configured for this wallet (the auth option)',
      );
    return login;
  };

  async function useDevAccounts() {
    if (!devAccounts)
      throw new HttpError(404, 'DEV_ACCOUNTS_OFF', 'this wallet offers no dev accounts (devAccounts is off)');
    await login?.logout();
    await changeAccounts(() => holdAccounts('dev', deriveAccounts(mnemonic, accountCount)));
  }

  const view = (): AccountView => ({
    source: accountSource,
    user: login?.user ?? null,
    login: { available: Boolean(login), pending: login?.pending ?? false, error: login?.error ?? null },
    canFund: Boolean(options.fund),
    devAccounts,
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
    if (!options.fund) throw new HttpError(404, 'FUND_OFF', 'this wallet has no top-up (the fund option)');
    if (namespace !== 'eip155' && namespace !== 'solana')
      throw new HttpError(400, 'INVALID_BODY', 'namespace must be eip155 or solana');
    const held = keyring.addresses(namespace).find((a) => a.toLowerCase() === address.toLowerCase());
    if (!held)
      throw new HttpError(400, 'ACCOUNT_NOT_HELD', `the wallet holds no ${namespace} account ${address}`);
    try {
      await options.fund(namespace, held);
    } catch (error) {
      throw new HttpError(502, 'FUND_FAILED', `top-up failed: ${(error as Error).message}`);
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
  // Idle sockets outlive the clients' own idle timeouts (as the gateway and the auth service):
  // with Node's 5 s, a request on a socket the server was closing failed with ECONNRESET.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
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
