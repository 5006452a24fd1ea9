import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isCaipChainId, parseCaipChainId } from '@metamask/utils';
import {
  type ApprovalDecision,
  attachWebSocketServer,
  createMultichainEngine,
  type MultichainEngine,
  openSessionStore,
  type SupportedScopes,
} from '@portico/multichain';
import { APPROVAL_PAGE } from './approval-page.ts';
import { createApprovalQueue } from './approvals.ts';
import { createEip155Chain, type Eip155Chain } from './chains/eip155.ts';
import { createSolanaChain } from './chains/solana.ts';
import { createKeyring } from './keyring.ts';
import { RpcError } from './rpc.ts';

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
  /** BIP-39 mnemonic; default the well-known dev mnemonic `test test … junk`. */
  mnemonic?: string;
  /** How many EVM accounts to derive; default 5. */
  accountCount?: number;
  /** Approves every request with all accounts, without asking. Development only. */
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
  /** Addresses per namespace, e.g. `{ eip155: ['0xf39f…'] }`. */
  accounts: Record<string, string[]>;
  /** CAIP-2 ids of the chains served. */
  chains: string[];
  autoApprove: boolean;
  engine: MultichainEngine;
  close: () => Promise<void>;
};

/** The warning to print whenever the wallet runs with autoApprove. */
export const AUTO_APPROVE_WARNING =
  'WARNING: the wallet auto-approves every connection request with all accounts. Development only: any web page on this machine can connect and sign with these keys.';

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
    ...(wallet.autoApprove ? [AUTO_APPROVE_WARNING] : []),
  ];
}

/** The `wallet` section of `portico dev --config-out`. */
export function walletConfigOut(wallet: Wallet): {
  wsUrl: string;
  approvalUrl: string;
  chains: string[];
  accounts: Record<string, string[]>;
  autoApprove: boolean;
} {
  return {
    wsUrl: wallet.wsUrl,
    approvalUrl: wallet.approvalUrl,
    chains: wallet.chains,
    accounts: wallet.accounts,
    autoApprove: wallet.autoApprove,
  };
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > 64 * 1024) throw new Error('body too large');
    chunks.push(chunk as Buffer);
  }
  return JSON.parse(Buffer.concat(chunks).toString() || 'null');
}

function send(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

/** Starts the reference wallet: keyring, chains, session store, dapp WebSocket and approval page. */
export async function startWallet(options: StartWalletOptions): Promise<Wallet> {
  const log = options.onLog ?? (() => {});
  const keyring = createKeyring({ mnemonic: options.mnemonic, accountCount: options.accountCount });
  const chains = new Map<string, Pick<Eip155Chain, 'methods' | 'notifications' | 'invoke' | 'close'>>();
  for (const config of options.chains) {
    if (!isCaipChainId(config.chainId)) throw new Error(`invalid CAIP-2 chain id: ${config.chainId}`);
    const { namespace, reference } = parseCaipChainId(config.chainId);
    if (namespace === 'solana') {
      chains.set(
        config.chainId,
        createSolanaChain({ chainId: config.chainId, rpcUrl: config.rpcUrl, keyring, onLog: log }),
      );
      continue;
    }
    if (namespace !== 'eip155')
      throw new Error(`${config.chainId}: the wallet supports eip155 and solana chains`);
    chains.set(
      config.chainId,
      createEip155Chain({
        chainId: Number(reference),
        rpcUrl: config.rpcUrl,
        wsRpcUrl: config.wsRpcUrl,
        keyring,
        pollingIntervalMs: options.pollingIntervalMs,
        onLog: log,
      }),
    );
  }

  const supported: SupportedScopes = { wallet: { methods: [], notifications: [] } };
  for (const [scope, chain] of chains)
    supported[scope] = { methods: chain.methods, notifications: chain.notifications };
  if ([...chains.keys()].some((id) => id.startsWith('eip155:'))) {
    supported['wallet:eip155'] = { methods: [], notifications: [] };
  }

  const approvals = createApprovalQueue({ onLog: log });
  const store = await openSessionStore({ dataDir: options.dataDir, databaseUrl: options.databaseUrl });
  const engine = createMultichainEngine({
    store,
    onLog: log,
    getSupportedScopes: () => supported,
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

  const token = options.approvalToken ?? randomBytes(24).toString('base64url');
  const tokenBuffer = Buffer.from(`Bearer ${token}`);
  const authorised = (req: IncomingMessage) => {
    const header = Buffer.from(req.headers.authorization ?? '');
    return header.length === tokenBuffer.length && timingSafeEqual(header, tokenBuffer);
  };

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    try {
      if (req.method === 'GET' && (url.pathname === '/' || url.pathname === '/approve')) {
        res.writeHead(200, {
          'content-type': 'text/html; charset=utf-8',
          'cache-control': 'no-store',
          'x-frame-options': 'DENY',
          'content-security-policy':
            "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'",
          'referrer-policy': 'no-referrer',
        });
        res.end(APPROVAL_PAGE);
        return;
      }
      if (req.method === 'GET' && url.pathname === '/health') return send(res, 200, { ok: true });
      if (!url.pathname.startsWith('/api/')) return send(res, 404, { error: 'not found' });
      if (!authorised(req)) return send(res, 401, { error: 'the approval token is missing or wrong' });
      if (req.method === 'GET' && url.pathname === '/api/approvals') return send(res, 200, approvals.list());
      if (req.method === 'GET' && url.pathname === '/api/sessions')
        return send(res, 200, await engine.listSessions());
      const decide = /^\/api\/approvals\/([^/]+)$/.exec(url.pathname);
      if (req.method === 'POST' && decide) {
        const body = (await readJson(req)) as {
          approved?: unknown;
          scopes?: unknown;
          accounts?: Record<string, unknown>;
        } | null;
        const decision: ApprovalDecision =
          body?.approved === true
            ? {
                approved: true,
                scopes: Array.isArray(body.scopes)
                  ? body.scopes.filter((s) => typeof s === 'string')
                  : undefined,
                accounts: Object.fromEntries(
                  Object.entries(body.accounts ?? {}).map(([ns, list]) => [
                    ns,
                    Array.isArray(list) ? list.filter((a) => typeof a === 'string') : [],
                  ]),
                ),
              }
            : { approved: false };
        const found = approvals.decide(decodeURIComponent(decide[1]), decision);
        return send(res, found ? 200 : 404, found ? { ok: true } : { error: 'no such pending request' });
      }
      if (req.method === 'POST' && url.pathname === '/api/sessions/revoke') {
        const body = (await readJson(req)) as { origin?: unknown } | null;
        if (typeof body?.origin !== 'string') return send(res, 400, { error: 'origin is required' });
        await engine.revokeSession(body.origin);
        return send(res, 200, { ok: true });
      }
      return send(res, 404, { error: 'not found' });
    } catch (error) {
      send(res, 400, { error: error instanceof Error ? error.message : String(error) });
    }
  });
  const ws = attachWebSocketServer(engine, { server, path: '/multichain', onLog: log });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  if (options.autoApprove) log(AUTO_APPROVE_WARNING);

  let closing: Promise<void> | undefined;
  return {
    wsUrl: `ws://${urlHost}:${port}/multichain`,
    approvalUrl: `http://${urlHost}:${port}/approve#token=${token}`,
    accounts: { eip155: keyring.addresses('eip155'), solana: keyring.addresses('solana') },
    chains: [...chains.keys()],
    autoApprove: options.autoApprove ?? false,
    engine,
    close() {
      closing ??= (async () => {
        approvals.rejectAll();
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
