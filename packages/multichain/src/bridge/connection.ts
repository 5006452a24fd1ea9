import { isPlainObject } from '@metamask/utils';
import { MultichainError } from '../base-error.ts';
import { own } from '../caip/own.ts';
import type { Json, JsonRpcError, SessionScopes, WalletNotification } from '../caip/types.ts';
import { REQUEST_SCOPES_METHOD } from '../engine/engine.ts';
import { createListeners, type MultichainTransport } from '../transports/types.ts';

/**
 * An error a provider method throws: EIP-1193's ProviderRpcError (`code` a number, `message`,
 * `data?`), of kind `provider_error`.
 */
export class ProviderRpcError extends MultichainError {
  override readonly name: string = 'ProviderRpcError';
  constructor(
    readonly code: number,
    message: string,
    readonly data?: Json,
  ) {
    super('provider_error', message);
  }
}

/** The scopes a dapp asks for: CAIP-25 scope objects by scope string. */
export type ScopeRequest = Record<string, { methods: string[]; notifications: string[] }>;

/**
 * The bridge's one connection to the wallet and the one session every interface reads: each
 * interface asks for or gives up only its own namespace's scopes, and hears every change, whichever
 * interface (or another tab, or the wallet) made it.
 */
export type BridgeSession = {
  readonly scopes: SessionScopes;
  /** Resolves once connected and the session is read. */
  ready: Promise<void>;
  /** Resolves once the session is current: after a dropped connection, reconnects and reads it again. */
  fresh: () => Promise<void>;
  /** The connection to the wallet dropped (the session is read again on the next use). */
  onDisconnect: (listener: (error: ProviderRpcError) => void) => () => void;
  request: (method: string, params: Json) => Promise<Json>;
  /** Asks the person for these scopes, added to the session (`portico_requestScopes`). */
  requestScopes: (scopes: ScopeRequest) => Promise<SessionScopes>;
  /** Gives up these scopes (wallet_revokeSession with `scopes`), the others stay. */
  revokeScopes: (scopes: string[]) => Promise<void>;
  /** Every change of the session's scopes (deduplicated), from a result or a notification. */
  onChange: (listener: (scopes: SessionScopes) => void) => () => void;
  /** The wallet's wallet_notify notifications. */
  onNotify: (listener: (notification: WalletNotification) => void) => () => void;
  close: () => Promise<void>;
};

export function createBridgeSession(transport: MultichainTransport): BridgeSession {
  const pending = new Map<number, { resolve: (value: Json) => void; reject: (error: Error) => void }>();
  const changes = createListeners<SessionScopes>();
  const notifies = createListeners<WalletNotification>();
  const drops = createListeners<ProviderRpcError>();
  let scopes: SessionScopes = {};
  // Notifications sent while the connection was down are lost: read the session again before use.
  let stale = false;
  let refreshing: Promise<void> | undefined;
  let nextId = 1;

  const apply = (next: SessionScopes) => {
    if (JSON.stringify(next) === JSON.stringify(scopes)) return;
    scopes = next;
    changes.emit(next);
  };
  const scopesOf = (value: unknown): SessionScopes | undefined => {
    const found = isPlainObject(value) ? own(value, 'sessionScopes') : undefined;
    return isPlainObject(found) ? (found as SessionScopes) : undefined;
  };

  transport.onMessage((message) => {
    if (!isPlainObject(message)) return;
    const id = own(message, 'id');
    if (typeof id === 'number' && pending.has(id)) {
      const entry = pending.get(id)!;
      pending.delete(id);
      const error = own(message, 'error') as JsonRpcError | undefined;
      if (error) entry.reject(new ProviderRpcError(error.code, error.message, error.data));
      else entry.resolve((own(message, 'result') ?? null) as Json);
      return;
    }
    const method = own(message, 'method');
    if (method === 'wallet_sessionChanged') {
      const next = scopesOf(own(message, 'params'));
      if (next) apply(next);
    } else if (method === 'wallet_notify') notifies.emit(message as WalletNotification);
  });
  transport.onDisconnect(() => {
    stale = true;
    const lost = new ProviderRpcError(4900, 'The connection to the wallet was lost.');
    for (const entry of pending.values()) entry.reject(lost);
    pending.clear();
    drops.emit(lost);
  });

  const request = async (method: string, params: Json): Promise<Json> => {
    if (!transport.isConnected()) await transport.connect();
    const id = nextId++;
    return new Promise<Json>((resolve, reject) => {
      pending.set(id, { resolve, reject });
      try {
        transport.send({ jsonrpc: '2.0', id, method, params });
      } catch (error) {
        pending.delete(id);
        reject(new ProviderRpcError(4900, `Could not reach the wallet: ${String(error)}`));
      }
    });
  };

  const ready = (async () => {
    await transport.connect();
    apply(scopesOf(await request('wallet_getSession', {})) ?? {});
  })();

  const fresh = async () => {
    await ready;
    if (!stale) return;
    refreshing ??= (async () => {
      stale = false;
      try {
        apply(scopesOf(await request('wallet_getSession', {})) ?? {});
      } catch (error) {
        stale = true;
        throw error;
      }
    })().finally(() => {
      refreshing = undefined;
    });
    await refreshing;
  };

  return {
    get scopes() {
      return scopes;
    },
    ready,
    fresh,
    onDisconnect: (listener) => drops.add(listener),
    async request(method, params) {
      await fresh();
      const result = await request(method, params);
      // A session this page made or read through the Multichain API is the one every interface shows.
      if (method === 'wallet_createSession' || method === 'wallet_getSession') {
        const next = scopesOf(result);
        if (next) apply(next);
      }
      return result;
    },
    async requestScopes(asked) {
      await fresh();
      const next = scopesOf(await request(REQUEST_SCOPES_METHOD, { optionalScopes: asked })) ?? {};
      apply(next);
      return next;
    },
    async revokeScopes(revoked) {
      await fresh();
      if (revoked.length === 0) return;
      await request('wallet_revokeSession', { scopes: revoked });
      apply(Object.fromEntries(Object.entries(scopes).filter(([scope]) => !revoked.includes(scope))));
    },
    onChange: (listener) => changes.add(listener),
    onNotify: (listener) => notifies.add(listener),
    close: () => transport.close(),
  };
}

/** The bare addresses a session grants in one scope. */
export function accountsIn(scopes: SessionScopes, scope: string): string[] {
  const granted = own(scopes, scope);
  return (granted?.accounts ?? []).map((account) => account.split(':').slice(2).join(':'));
}
