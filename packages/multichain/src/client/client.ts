import { isPlainObject } from '@metamask/utils';
import { own } from '../caip/own.ts';
import type {
  CreateSessionParams,
  InvokeMethodParams,
  Json,
  RevokeSessionParams,
  Session,
  WalletNotification,
} from '../caip/types.ts';
import type { MultichainTransport } from '../transports/types.ts';
import { MultichainConnectionError, MultichainRpcError, MultichainTimeoutError } from './errors.ts';

export type ReconnectOptions = {
  /** Delay before the first attempt; doubles per attempt up to maxDelayMs. Default 100. */
  initialDelayMs?: number;
  /** Default 5 000. */
  maxDelayMs?: number;
  /** Attempts per drop before giving up (the next request tries again). Default 10. */
  maxAttempts?: number;
};

export type CreateMultichainClientOptions = {
  transport: MultichainTransport;
  /** Milliseconds per request; default 30 000. */
  requestTimeoutMs?: number;
  /** Milliseconds for wallet_createSession, which waits for a person; default 0 (no timeout). */
  createSessionTimeoutMs?: number;
  /**
   * Milliseconds for wallet_invokeMethod of a method a wallet asks a person about (signing and
   * sending: `METHODS_AWAITING_APPROVAL`); default 0 (no timeout: the person may take their time).
   */
  approvalTimeoutMs?: number;
  /** Reconnect after a dropped connection and restore the session via wallet_getSession; default on. */
  reconnect?: false | ReconnectOptions;
};

export type MultichainClient = {
  /** wallet_createSession: asks the wallet (and its user) for a session. */
  createSession: (params: CreateSessionParams) => Promise<Required<Session>>;
  /** wallet_getSession: the current session, `{ sessionScopes: {} }` when there is none. */
  getSession: () => Promise<Session>;
  /** wallet_invokeMethod: runs a method on an authorised scope; resolves with its raw result. */
  invokeMethod: <T = Json>(params: InvokeMethodParams) => Promise<T>;
  /** wallet_revokeSession: ends the session (or only `scopes`). */
  revokeSession: (params?: RevokeSessionParams) => Promise<boolean>;
  /** Every wallet notification (wallet_notify, wallet_sessionChanged). */
  onNotification: (listener: (notification: WalletNotification) => void) => () => void;
  /** The session as last known: after create/get, on wallet_sessionChanged and after a reconnection. */
  onSessionChanged: (listener: (session: Session) => void) => () => void;
  /** The session as last known to the client. */
  readonly session: Session | undefined;
  /** Closes the connection; the client cannot be used afterwards. */
  close: () => Promise<void>;
};

/**
 * Methods a wallet answers only after a person approves them on its own page (MetaMask and the
 * Portico reference wallet alike): their wallet_invokeMethod waits `approvalTimeoutMs`, not
 * `requestTimeoutMs`.
 */
export const METHODS_AWAITING_APPROVAL: ReadonlySet<string> = new Set([
  'personal_sign',
  'eth_sign',
  'eth_signTypedData',
  'eth_signTypedData_v3',
  'eth_signTypedData_v4',
  'eth_sendTransaction',
  'eth_signTransaction',
  'eth_decrypt',
  'eth_getEncryptionPublicKey',
  'wallet_addEthereumChain',
  'wallet_switchEthereumChain',
  'wallet_watchAsset',
  'wallet_sendCalls',
  'signMessage',
  'signIn',
  'signTransaction',
  'signAllTransactions',
  'signAndSendTransaction',
]);

type Pending = { method: string; resolve: (value: Json) => void; reject: (error: Error) => void };

/**
 * A typed dapp client for the Multichain API over any Portico transport: timeouts, clear errors,
 * and reconnection after a dropped connection that restores the session from wallet_getSession.
 * Subscriptions made through wallet_invokeMethod do not survive a reconnection.
 */
export function createMultichainClient(options: CreateMultichainClientOptions): MultichainClient {
  const { transport } = options;
  const requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
  const reconnect = options.reconnect === false ? undefined : (options.reconnect ?? {});
  const pending = new Map<number, Pending>();
  const notificationListeners = new Set<(notification: WalletNotification) => void>();
  const sessionListeners = new Set<(session: Session) => void>();
  let session: Session | undefined;
  let nextId = 1;
  let closed = false;
  let reconnecting: Promise<void> | undefined;
  let reconnectTimer: ReturnType<typeof setTimeout> | undefined;

  const setSession = (next: Session) => {
    session = next;
    for (const listener of [...sessionListeners]) listener(next);
  };

  transport.onMessage((message) => {
    const value = message as {
      id?: unknown;
      method?: unknown;
      params?: unknown;
      result?: Json;
      error?: unknown;
    };
    if (typeof value.id === 'number' && pending.has(value.id)) {
      const entry = pending.get(value.id)!;
      pending.delete(value.id);
      if (value.error) entry.reject(new MultichainRpcError(entry.method, value.error as MultichainRpcError));
      else entry.resolve(value.result ?? null);
      return;
    }
    if (typeof value.method !== 'string') return;
    const notification = value as WalletNotification;
    if (notification.method === 'wallet_sessionChanged') {
      // A wallet is a counterparty too: a sessionChanged without scopes is passed on, not trusted.
      const sessionScopes = isPlainObject(value.params) ? own(value.params, 'sessionScopes') : undefined;
      if (isPlainObject(sessionScopes))
        setSession({ ...session, sessionScopes: sessionScopes as Session['sessionScopes'] });
    }
    for (const listener of [...notificationListeners]) listener(notification);
  });

  transport.onDisconnect((error) => {
    for (const entry of pending.values()) {
      entry.reject(
        new MultichainConnectionError(`${entry.method}: the connection to the wallet was lost`, {
          cause: error,
        }),
      );
    }
    pending.clear();
    if (!closed && reconnect) void reconnectAndRestore();
  });

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      reconnectTimer = setTimeout(resolve, ms);
    });

  function reconnectAndRestore(): Promise<void> {
    reconnecting ??= (async () => {
      let delay = reconnect?.initialDelayMs ?? 100;
      const attempts = reconnect?.maxAttempts ?? 10;
      let lastError: unknown;
      for (let attempt = 0; attempt < attempts && !closed; attempt++) {
        await sleep(delay);
        delay = Math.min(delay * 2, reconnect?.maxDelayMs ?? 5000);
        try {
          await transport.connect();
          setSession((await call('wallet_getSession', {}, requestTimeoutMs)) as Session);
          return;
        } catch (error) {
          lastError = error;
        }
      }
      throw new MultichainConnectionError('could not reconnect to the wallet', { cause: lastError });
    })().finally(() => {
      reconnecting = undefined;
    });
    reconnecting.catch(() => {});
    return reconnecting;
  }

  async function ensureConnected(): Promise<void> {
    if (closed) throw new MultichainConnectionError('the client is closed');
    if (reconnecting) await reconnecting;
    if (transport.isConnected()) return;
    try {
      await transport.connect();
    } catch (error) {
      throw new MultichainConnectionError(`could not connect to the wallet: ${String(error)}`, {
        cause: error,
      });
    }
  }

  function call(method: string, params: unknown, timeoutMs: number): Promise<Json> {
    const id = nextId++;
    return new Promise<Json>((resolve, reject) => {
      const timer =
        timeoutMs > 0
          ? setTimeout(() => {
              pending.delete(id);
              reject(new MultichainTimeoutError(method, timeoutMs));
            }, timeoutMs)
          : undefined;
      pending.set(id, {
        method,
        resolve: (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      try {
        transport.send({ jsonrpc: '2.0', id, method, params });
      } catch (error) {
        pending.delete(id);
        clearTimeout(timer);
        reject(new MultichainConnectionError(`${method}: ${String(error)}`, { cause: error }));
      }
    });
  }

  async function request(method: string, params: unknown, timeoutMs = requestTimeoutMs): Promise<Json> {
    await ensureConnected();
    return call(method, params, timeoutMs);
  }

  return {
    async createSession(params) {
      const result = (await request(
        'wallet_createSession',
        params,
        options.createSessionTimeoutMs ?? 0,
      )) as Required<Session>;
      setSession(result);
      return result;
    },
    async getSession() {
      const result = (await request('wallet_getSession', {})) as Session;
      setSession(result);
      return result;
    },
    async invokeMethod<T = Json>(params: InvokeMethodParams) {
      const awaitsApproval = METHODS_AWAITING_APPROVAL.has(params.request?.method);
      return (await request(
        'wallet_invokeMethod',
        params,
        awaitsApproval ? (options.approvalTimeoutMs ?? 0) : requestTimeoutMs,
      )) as T;
    },
    async revokeSession(params = {}) {
      const result = (await request('wallet_revokeSession', params)) as boolean;
      if (!params.scopes) setSession({ sessionScopes: {} });
      return result;
    },
    onNotification(listener) {
      notificationListeners.add(listener);
      return () => {
        notificationListeners.delete(listener);
      };
    },
    onSessionChanged(listener) {
      sessionListeners.add(listener);
      return () => {
        sessionListeners.delete(listener);
      };
    },
    get session() {
      return session;
    },
    async close() {
      closed = true;
      clearTimeout(reconnectTimer);
      for (const entry of pending.values())
        entry.reject(new MultichainConnectionError(`${entry.method}: the client was closed`));
      pending.clear();
      await transport.close();
    },
  };
}
