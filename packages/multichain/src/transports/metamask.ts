import {
  type Transport,
  TransportError,
  type TransportRequest,
  type TransportResponse,
  TransportTimeoutError,
} from '@metamask/multichain-api-client';
import type { MultichainTransport } from './types.ts';
import { createWebSocketTransport, type WebSocketTransportOptions } from './websocket.ts';

export type MultichainApiClientTransportOptions = {
  /** Milliseconds per request; -1 (default) waits as long as it takes (a person may be deciding). */
  defaultTimeout?: number;
  /** Milliseconds for the client's warm-up wallet_getSession; default 1 000. */
  warmupTimeout?: number;
};

/**
 * Adapts a Portico transport to `@metamask/multichain-api-client`'s Transport, so
 * `getMultichainClient({ transport })` talks to a Portico wallet unchanged. Unlike the
 * incumbent's transports it reconnects on the next request after a dropped connection.
 */
export function createMultichainApiClientTransport(
  transport: MultichainTransport,
  options: MultichainApiClientTransportOptions = {},
): Transport {
  const pending = new Map<
    number,
    { resolve: (response: TransportResponse) => void; reject: (e: Error) => void }
  >();
  const notificationListeners = new Set<(data: unknown) => void>();
  let nextId = 1;

  transport.onMessage((message) => {
    const id = (message as { id?: unknown }).id;
    if (typeof id === 'number' && pending.has(id)) {
      const entry = pending.get(id)!;
      pending.delete(id);
      entry.resolve(message as TransportResponse);
      return;
    }
    if (id === undefined || id === null) {
      for (const listener of [...notificationListeners]) {
        try {
          listener(message);
        } catch {
          // one listener's failure must not stop the others
        }
      }
    }
  });
  transport.onDisconnect((error) => {
    for (const entry of pending.values())
      entry.reject(new TransportError('the connection to the wallet was lost', error));
    pending.clear();
  });

  return {
    warmupTimeout: options.warmupTimeout ?? 1000,
    connect: () => transport.connect(),
    async disconnect() {
      await transport.close();
      for (const entry of pending.values()) entry.reject(new TransportError('transport disconnected'));
      pending.clear();
    },
    isConnected: () => transport.isConnected(),
    async request<TRequest extends TransportRequest, TResponse extends TransportResponse>(
      request: TRequest,
      requestOptions: { timeout?: number } = {},
    ): Promise<TResponse> {
      if (!transport.isConnected()) {
        try {
          await transport.connect();
        } catch (error) {
          throw new TransportError('could not connect to the wallet', error);
        }
      }
      const id = nextId++;
      const timeout = requestOptions.timeout ?? options.defaultTimeout ?? -1;
      return new Promise<TResponse>((resolve, reject) => {
        const timer =
          timeout >= 0
            ? setTimeout(() => {
                pending.delete(id);
                reject(new TransportTimeoutError());
              }, timeout)
            : undefined;
        pending.set(id, {
          resolve: (response) => {
            clearTimeout(timer);
            resolve(response as TResponse);
          },
          reject: (error) => {
            clearTimeout(timer);
            reject(error);
          },
        });
        try {
          transport.send({ jsonrpc: '2.0', id, method: request.method, params: request.params });
        } catch (error) {
          pending.delete(id);
          clearTimeout(timer);
          reject(new TransportError('could not send the request to the wallet', error));
        }
      });
    },
    onNotification(callback) {
      notificationListeners.add(callback);
      return () => {
        notificationListeners.delete(callback);
      };
    },
  };
}

/** `@metamask/multichain-api-client` Transport over WebSocket to a Portico wallet. */
export function getPorticoTransport(
  options: WebSocketTransportOptions & MultichainApiClientTransportOptions,
): Transport {
  return createMultichainApiClientTransport(createWebSocketTransport(options), options);
}
