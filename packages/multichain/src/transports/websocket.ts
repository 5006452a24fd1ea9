import { openWebSocket } from '#open-websocket';
import { createListeners, type MultichainTransport } from './types.ts';

/** The part of a WebSocket (browser or `ws`) the transport uses. */
export type WebSocketLike = {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: unknown) => void) | null;
  onclose: ((event: { code: number; reason: string }) => void) | null;
  onerror: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
};

export type WebSocketTransportOptions = {
  /** The wallet's dapp-facing WebSocket, e.g. `ws://127.0.0.1:8546/multichain`. */
  url: string;
  /**
   * The dapp origin to present (Node only; browsers send their own). Outside a browser the `ws`
   * package is used so the Origin header can be set.
   */
  origin?: string;
  /** Milliseconds to wait for the connection to open; default 10 000. */
  connectTimeoutMs?: number;
  /** Opens a socket; default the browser's WebSocket, or in Node `ws` (global WebSocket without `origin`). */
  createWebSocket?: (url: string) => WebSocketLike | Promise<WebSocketLike>;
};

const OPEN = 1;

/** A WebSocket transport to a wallet service reached over the network. */
export function createWebSocketTransport(options: WebSocketTransportOptions): MultichainTransport {
  const messages = createListeners<unknown>();
  const disconnects = createListeners<Error>();
  let socket: WebSocketLike | undefined;
  let connecting: Promise<void> | undefined;

  const connect = () => {
    if (socket?.readyState === OPEN) return Promise.resolve();
    connecting ??= (async () => {
      const ws = await (options.createWebSocket ?? ((url) => openWebSocket(url, options.origin)))(
        options.url,
      );
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          ws.close();
          reject(new Error(`could not connect to the wallet at ${options.url} within the timeout`));
        }, options.connectTimeoutMs ?? 10_000);
        ws.onopen = () => {
          clearTimeout(timer);
          resolve();
        };
        ws.onerror = () => {};
        ws.onclose = (event) => {
          clearTimeout(timer);
          reject(new Error(`could not connect to the wallet at ${options.url} (close code ${event.code})`));
        };
      });
      ws.onmessage = (event) => {
        if (typeof event.data !== 'string') return;
        let message: unknown;
        try {
          message = JSON.parse(event.data);
        } catch {
          return;
        }
        messages.emit(message);
      };
      ws.onclose = (event) => {
        if (socket !== ws) return;
        socket = undefined;
        disconnects.emit(
          new Error(
            `the connection to the wallet closed (code ${event.code}${event.reason ? `: ${event.reason}` : ''})`,
          ),
        );
      };
      socket = ws;
    })().finally(() => {
      connecting = undefined;
    });
    return connecting;
  };

  return {
    connect,
    send(message) {
      if (socket?.readyState !== OPEN) throw new Error('not connected to the wallet');
      socket.send(JSON.stringify(message));
    },
    async close() {
      const ws = socket;
      socket = undefined;
      if (ws) ws.close(1000, 'closed by the dapp');
    },
    isConnected: () => socket?.readyState === OPEN,
    onMessage: (listener) => messages.add(listener),
    onDisconnect: (listener) => disconnects.add(listener),
  };
}
