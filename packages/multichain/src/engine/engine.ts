import { rpcErrors, serializeError } from '@metamask/rpc-errors';
import { isPlainObject } from '@metamask/utils';
import { methodNotFoundError } from '../caip/errors.ts';
import { sameAddress } from '../caip/normalize.ts';
import { own } from '../caip/own.ts';
import type { Json, JsonRpcError, Session, SessionScopes, WalletNotification } from '../caip/types.ts';
import { createMemorySessionStore } from '../store/memory.ts';
import type { SessionStore } from '../store/types.ts';
import {
  endsSession,
  withAccount,
  withoutAccounts,
  withoutScope,
  withSupportedOnly,
} from './session-updates.ts';
import type { MultichainHooks, SessionHooks } from './types.ts';
import { walletCreateSession } from './wallet-createSession.ts';
import { walletGetSession } from './wallet-getSession.ts';
import { walletInvokeMethod } from './wallet-invokeMethod.ts';
import { walletRevokeSession } from './wallet-revokeSession.ts';

export type JsonRpcId = string | number | null;
export type JsonRpcResponse =
  | { jsonrpc: '2.0'; id: JsonRpcId; result: Json }
  | { jsonrpc: '2.0'; id: JsonRpcId; error: JsonRpcError };

export type CreateMultichainEngineOptions = MultichainHooks & {
  /** Where sessions persist; default in memory. */
  store?: SessionStore;
  /** Session property keys the wallet keeps; default `['solana_accountChanged_notifications']`. */
  knownSessionProperties?: readonly string[];
  /** Called with one line per notable event (never with keys). */
  onLog?: (line: string) => void;
};

/** One dapp connection: its origin, a request handler, and where its notifications go. */
export type EngineConnection = {
  readonly origin: string;
  /** Handles one JSON-RPC message; resolves with the response (undefined for a notification). */
  handle: (message: unknown) => Promise<JsonRpcResponse | undefined>;
  /** Ends the connection's work (its subscriptions). */
  close: () => void;
};

export type MultichainEngine = {
  /** Attaches a dapp connection; `send` receives the wallet's notifications for its origin. */
  connect: (origin: string, send: (notification: WalletNotification) => void) => EngineConnection;
  getSession: (origin: string) => Promise<Session | undefined>;
  listSessions: () => Promise<{ origin: string; session: Session }[]>;
  /** Wallet-side revoke: removes the session and sends `{ sessionScopes: {} }`. */
  revokeSession: (origin: string) => Promise<void>;
  // Wallet-side changes. Each updates every session it affects and sends wallet_sessionChanged with
  // the full updated scopes to every connection of each affected origin. A session whose last chain
  // scope or last account the change removed ends (`{ sessionScopes: {} }`), as MetaMask revokes
  // the permission then. Change what the hooks report first, then call these.

  /** Grants one more address to every scope of its namespace in the origin's session. */
  addAccount: (origin: string, namespace: string, address: string) => Promise<void>;
  /** Removes an address from every session (the wallet no longer holds it). */
  removeAccount: (namespace: string, address: string) => Promise<void>;
  /**
   * The wallet now holds exactly `addresses` in `namespace` (e.g. another user logged in): every
   * session keeps only those of its accounts in the namespace. New addresses are not granted to
   * anyone; a person grants them (`addAccount`, or a new wallet_createSession).
   */
  replaceAccounts: (namespace: string, addresses: readonly string[]) => Promise<void>;
  /** Removes a chain scope from every session (the wallet no longer supports it). */
  removeScope: (scope: string) => Promise<void>;
  /**
   * Brings every stored session in line with what the wallet supports and holds now (e.g. after a
   * restart with fewer chains or accounts): drops unsupported scopes and accounts no longer held.
   */
  reconcile: () => Promise<void>;
  close: () => Promise<void>;
};

/**
 * Portico's extension of CAIP-25: the parameters of wallet_createSession, but the approved scopes are
 * added to the origin's session rather than replacing it (the browser bridge's EIP-1193
 * eth_requestAccounts / wallet_requestPermissions and Wallet Standard connect use it, so each
 * interface changes only its own namespace of the one per-origin permission). Resolves with the
 * whole session; the origin's other connections hear wallet_sessionChanged.
 */
export const REQUEST_SCOPES_METHOD = 'portico_requestScopes';

const DEFAULT_SESSION_PROPERTIES = ['solana_accountChanged_notifications'];

/**
 * The wallet side of the Multichain API: wallet_createSession, wallet_getSession,
 * wallet_invokeMethod, wallet_revokeSession, and the wallet_notify / wallet_sessionChanged events.
 * One session per dapp origin, no session ids; everything the wallet does arrives as hooks.
 */
export function createMultichainEngine(options: CreateMultichainEngineOptions): MultichainEngine {
  const store = options.store ?? createMemorySessionStore();
  const knownSessionProperties = options.knownSessionProperties ?? DEFAULT_SESSION_PROPERTIES;
  const log = options.onLog ?? (() => {});
  const connections = new Map<string, Set<(notification: WalletNotification) => void>>();
  const sessionWork = new Map<string, AbortController>();

  const sessionSignal = (origin: string) => {
    let controller = sessionWork.get(origin);
    if (!controller) {
      controller = new AbortController();
      sessionWork.set(origin, controller);
    }
    return controller.signal;
  };

  const sendToOrigin = (
    origin: string,
    notification: WalletNotification,
    except?: (notification: WalletNotification) => void,
  ) => {
    for (const send of connections.get(origin) ?? []) {
      if (send === except) continue;
      try {
        send(notification);
      } catch (error) {
        log(`multichain: could not deliver ${notification.method} to ${origin}: ${String(error)}`);
      }
    }
  };

  const sessionHooks: SessionHooks = {
    getSession: (origin) => store.get(origin),
    setSession: (origin, session) => store.set(origin, session),
    deleteSession: (origin) => store.delete(origin),
    emitSessionChanged: (origin, sessionScopes) => sendToOrigin(origin, sessionChanged(sessionScopes)),
    endSessionWork: (origin) => {
      sessionWork.get(origin)?.abort();
      sessionWork.delete(origin);
    },
  };

  type Caller = { origin: string; signal: AbortSignal; send: (notification: WalletNotification) => void };

  async function dispatch({ origin, signal, send }: Caller, method: string, params: unknown): Promise<Json> {
    switch (method) {
      case 'wallet_createSession':
      case REQUEST_SCOPES_METHOD: {
        // The origin's other connections (other tabs) hear of a new or replaced session at once
        // instead of finding out through 4100; the caller has the result.
        const setSession = async (target: string, session: Session) => {
          const previous = await store.get(target);
          await store.set(target, session);
          if (!sameScopes(previous?.sessionScopes, session.sessionScopes))
            sendToOrigin(target, sessionChanged(session.sessionScopes), send);
        };
        const merge = method === REQUEST_SCOPES_METHOD;
        const session = await walletCreateSession(
          { origin, params, knownSessionProperties, signal, log, merge },
          { ...options, ...sessionHooks, setSession },
        );
        log(
          `multichain: session ${merge ? 'extended' : 'created'} for ${origin}: ${Object.keys(session.sessionScopes).join(', ')}`,
        );
        return session;
      }
      case 'wallet_getSession':
        return walletGetSession({ origin }, sessionHooks);
      case 'wallet_invokeMethod': {
        // Notifications of what this call starts (subscriptions) go to the calling connection only,
        // and only while the session still authorises the scope and the notification.
        const notify = (scope: string) => async (notification: { method: string; params: Json }) => {
          if (signal.aborted) return;
          const session = await store.get(origin);
          const granted = own(session?.sessionScopes, scope);
          if (!granted?.notifications.includes(notification.method)) return;
          send({ jsonrpc: '2.0', method: 'wallet_notify', params: { scope, notification } });
        };
        const requested = isPlainObject(params) ? own(params, 'scope') : undefined;
        const scope = typeof requested === 'string' ? requested : '';
        const combined = AbortSignal.any([signal, sessionSignal(origin)]);
        return walletInvokeMethod(
          {
            origin,
            params,
            notify: (notification) => {
              notify(scope)(notification).catch((error) =>
                log(`multichain: notify failed: ${String(error)}`),
              );
            },
            signal: combined,
          },
          { invoke: options.invoke, getSession: sessionHooks.getSession },
        );
      }
      case 'wallet_revokeSession': {
        const result = await walletRevokeSession({ origin, params }, sessionHooks);
        log(`multichain: session revoked by ${origin}`);
        return result;
      }
      default:
        throw methodNotFoundError();
    }
  }

  async function handle(caller: Caller, message: unknown): Promise<JsonRpcResponse | undefined> {
    const member = (name: string) => (isPlainObject(message) ? own(message, name) : undefined);
    const rawId = member('id');
    const id = isId(rawId) ? rawId : null;
    const method = member('method');
    if (!isPlainObject(message) || member('jsonrpc') !== '2.0' || typeof method !== 'string') {
      return { jsonrpc: '2.0', id, error: toJsonRpcError(rpcErrors.invalidRequest()) };
    }
    const isNotification = !Object.hasOwn(message, 'id');
    try {
      const result = await dispatch(caller, method, member('params'));
      return isNotification ? undefined : { jsonrpc: '2.0', id, result };
    } catch (error) {
      if (isNotification) return undefined;
      return { jsonrpc: '2.0', id, error: toJsonRpcError(error) };
    }
  }

  /** Applies a wallet-side change to the stored sessions (one origin's, or all) and tells each affected origin. */
  async function updateSessions(
    change: (scopes: SessionScopes) => SessionScopes,
    only?: string,
  ): Promise<void> {
    const entries = only ? [{ origin: only, session: await store.get(only) }] : await store.list();
    for (const { origin, session } of entries) {
      if (!session) continue;
      const before = session.sessionScopes;
      const after = change(before);
      if (sameScopes(before, after)) continue;
      if (endsSession(before, after)) {
        await store.delete(origin);
        sessionHooks.endSessionWork(origin);
        sessionHooks.emitSessionChanged(origin, {});
        log(`multichain: session of ${origin} ended by a wallet change`);
      } else {
        await store.set(origin, { ...session, sessionScopes: after });
        sessionHooks.emitSessionChanged(origin, after);
      }
    }
  }

  return {
    connect(origin, send) {
      let senders = connections.get(origin);
      if (!senders) {
        senders = new Set();
        connections.set(origin, senders);
      }
      senders.add(send);
      const controller = new AbortController();
      return {
        origin,
        handle: (message) => handle({ origin, signal: controller.signal, send }, message),
        close: () => {
          controller.abort();
          senders.delete(send);
          if (senders.size === 0 && connections.get(origin) === senders) connections.delete(origin);
        },
      };
    },
    getSession: (origin) => store.get(origin),
    listSessions: () => store.list(),
    async revokeSession(origin) {
      await walletRevokeSession({ origin, params: undefined }, sessionHooks);
      log(`multichain: session of ${origin} revoked by the wallet`);
    },
    addAccount: (origin, namespace, address) =>
      updateSessions((scopes) => withAccount(scopes, namespace, address), origin),
    removeAccount: (namespace, address) =>
      updateSessions((scopes) =>
        withoutAccounts(scopes, namespace, (held) => sameAddress(namespace, held, address)),
      ),
    replaceAccounts: (namespace, addresses) =>
      updateSessions((scopes) =>
        withoutAccounts(
          scopes,
          namespace,
          (held) => !addresses.some((kept) => sameAddress(namespace, kept, held)),
        ),
      ),
    removeScope: (scope) => updateSessions((scopes) => withoutScope(scopes, scope)),
    reconcile: () =>
      updateSessions((scopes) =>
        withSupportedOnly(scopes, options.getSupportedScopes(), options.getAccounts),
      ),
    async close() {
      for (const controller of sessionWork.values()) controller.abort();
      sessionWork.clear();
      connections.clear();
    },
  };
}

function sessionChanged(sessionScopes: SessionScopes): WalletNotification {
  return { jsonrpc: '2.0', method: 'wallet_sessionChanged', params: { sessionScopes } };
}

function sameScopes(a: SessionScopes | undefined, b: SessionScopes | undefined): boolean {
  return JSON.stringify(a ?? {}) === JSON.stringify(b ?? {});
}

function isId(value: unknown): value is JsonRpcId {
  return typeof value === 'string' || typeof value === 'number' || value === null;
}

/** Any thrown value as a JSON-RPC error object: codes kept, anything else -32603 with its message. */
export function toJsonRpcError(error: unknown): JsonRpcError {
  if (isPlainObject(error) || error instanceof Error) {
    const { code, message } = error as { code?: unknown; message?: unknown };
    if (Number.isInteger(code) && typeof message === 'string') {
      const data = (error as { data?: Json }).data;
      return (data === undefined ? { code, message } : { code, message, data }) as JsonRpcError;
    }
  }
  const serialized = serializeError(error, { shouldIncludeStack: false, shouldPreserveMessage: true });
  return { code: serialized.code, message: serialized.message };
}
