import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { rpcErrors } from '@metamask/rpc-errors';
import { WebSocketServer } from 'ws';
import { type MultichainEngine, toJsonRpcError } from '../engine/engine.ts';

export type AttachWebSocketServerOptions = {
  server: Server;
  /** The path dapps connect to; default `/multichain`. */
  path?: string;
  onLog?: (line: string) => void;
};

/**
 * Serves the engine to dapps over WebSocket on an existing HTTP server. The dapp's origin is the
 * connection's Origin header; a connection without one, or with the opaque `null`, is refused (403).
 */
export function attachWebSocketServer(engine: MultichainEngine, options: AttachWebSocketServerOptions) {
  const path = options.path ?? '/multichain';
  const log = options.onLog ?? (() => {});
  const wss = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });

  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname !== path) return;
    const origin = request.headers.origin;
    if (!origin || origin === 'null') {
      // Opaque origins (sandboxed frames, file:) cannot be told apart, so they cannot own a session.
      socket.end(
        'HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\n\r\na non-opaque Origin header is required\n',
      );
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      const connection = engine.connect(origin, (notification) => {
        if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(notification));
      });
      log(`multichain: dapp connected from ${origin}`);
      ws.on('message', (data, isBinary) => {
        let message: unknown;
        try {
          message = JSON.parse(isBinary ? '' : data.toString());
        } catch {
          ws.send(JSON.stringify({ jsonrpc: '2.0', id: null, error: toJsonRpcError(rpcErrors.parse()) }));
          return;
        }
        connection.handle(message).then((response) => {
          if (response && ws.readyState === ws.OPEN) ws.send(JSON.stringify(response));
        });
      });
      ws.on('close', () => {
        connection.close();
        log(`multichain: dapp from ${origin} disconnected`);
      });
    });
  };
  options.server.on('upgrade', onUpgrade);
  return {
    path,
    /** Drops every dapp connection (they may reconnect). */
    dropConnections() {
      for (const client of wss.clients) client.terminate();
    },
    close() {
      options.server.off('upgrade', onUpgrade);
      for (const client of wss.clients) client.terminate();
      wss.close();
    },
  };
}
