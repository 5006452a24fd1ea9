import type { Json } from '@metamask/utils';
import {
  type ApprovalDecision,
  type ApprovalRequest,
  createInProcessTransport,
  createMemorySessionStore,
  createMultichainClient,
  createMultichainEngine,
  type InvokeContext,
  type MultichainEngine,
  type SessionScope,
  type SessionStore,
  type SupportedScopes,
  type WalletNotification,
} from '../src/index.ts';

export const ACCOUNT_A = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
export const ACCOUNT_B = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
export const EIP155_METHODS = ['personal_sign', 'eth_blockNumber', 'eth_subscribe', 'eth_accounts'];

export const SUPPORTED: SupportedScopes = {
  'eip155:1': { methods: EIP155_METHODS, notifications: ['eth_subscription'] },
  'eip155:10': { methods: EIP155_METHODS, notifications: ['eth_subscription'] },
  'wallet:eip155': { methods: [], notifications: [] },
  wallet: { methods: [], notifications: [] },
};

/** A scope as the test wallet grants it: everything it supports there, with these addresses. */
export function grantedScope(scope: string, ...addresses: string[]): SessionScope {
  const walletScope = scope === 'wallet' || scope.startsWith('wallet:');
  return {
    methods: walletScope ? [] : EIP155_METHODS,
    notifications: walletScope ? [] : ['eth_subscription'],
    accounts: addresses.map((address) => `${scope}:${address}` as SessionScope['accounts'][number]),
  };
}

/** The wallet_sessionChanged notification carrying these scopes. */
export function sessionChangedWith(sessionScopes: Record<string, SessionScope>): WalletNotification {
  return { jsonrpc: '2.0', method: 'wallet_sessionChanged', params: { sessionScopes } };
}

/** A test wallet: a real engine whose hooks record what they are given. */
export function createTestWallet(
  options: {
    store?: SessionStore;
    approve?: (r: ApprovalRequest) => ApprovalDecision;
    /** What the wallet supports, read at every request; default SUPPORTED. */
    supported?: () => SupportedScopes;
    /** The eip155 addresses the wallet holds, read at every request; default A and B. */
    accounts?: () => string[];
  } = {},
) {
  const approvals: ApprovalRequest[] = [];
  const invocations: { scope: string; method: string; params?: Json; context: InvokeContext }[] = [];
  let decide =
    options.approve ??
    ((request: ApprovalRequest) => ({ approved: true, accounts: request.accounts }) as ApprovalDecision);
  const engine: MultichainEngine = createMultichainEngine({
    store: options.store ?? createMemorySessionStore(),
    getSupportedScopes: options.supported ?? (() => SUPPORTED),
    getAccounts: (namespace) =>
      namespace === 'eip155' ? (options.accounts?.() ?? [ACCOUNT_A, ACCOUNT_B]) : [],
    approve: async (request) => {
      approvals.push(request);
      return decide(request);
    },
    invoke: async (scope, request, context) => {
      invocations.push({ scope, method: request.method, params: request.params, context });
      if (request.method === 'eth_blockNumber') return '0x10';
      if (request.method === 'eth_accounts') return context.accounts;
      if (request.method === 'eth_subscribe') return '0xsub1';
      throw { code: -32000, message: 'upstream said no', data: { why: 'test' } };
    },
  });
  return {
    engine,
    approvals,
    invocations,
    setApprove(next: (r: ApprovalRequest) => ApprovalDecision) {
      decide = next;
    },
  };
}

/** A dapp client of that engine through the in-process transport, collecting notifications. */
export function connectDapp(engine: MultichainEngine, origin = 'https://dapp.example') {
  const client = createMultichainClient({
    transport: createInProcessTransport(engine, { origin }),
    requestTimeoutMs: 5000,
  });
  const notifications: WalletNotification[] = [];
  client.onNotification((notification) => notifications.push(notification));
  return { client, notifications };
}

/** Resolves when `predicate` holds for a received notification (no timing: the test runner's timeout bounds it). */
export function nextNotification(
  client: { onNotification: (listener: (n: WalletNotification) => void) => () => void },
  predicate: (n: WalletNotification) => boolean,
): Promise<WalletNotification> {
  return new Promise((resolve) => {
    const off = client.onNotification((notification) => {
      if (predicate(notification)) {
        off();
        resolve(notification);
      }
    });
  });
}
