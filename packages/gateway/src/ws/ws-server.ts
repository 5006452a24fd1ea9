import { type IncomingMessage, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import WebSocket, { WebSocketServer } from 'ws';
import type { InFlight } from '../http/drain.ts';
import type { ApiKeyRecord, KeyStore } from '../keys/key-store.ts';
import type { Network } from '../network.ts';
import type { GatewayMetrics } from '../observability/metrics.ts';
import { accessEntry, admitKey, routeRequest, unroutedMessage } from '../pipeline/admit.ts';
import { handleRpc, type RpcDependencies, type SessionMethods } from '../pipeline/handle-rpc.ts';
import type { GatewayError } from '../rpc/errors.ts';
import { stringifyJsonRpc } from '../rpc/json-result.ts';
import { errorResponse } from '../rpc/jsonrpc.ts';
import { EVM_SUBSCRIBE, EVM_SUBSCRIPTION, EVM_UNSUBSCRIBE } from '../rpc/method-names.ts';
import type { GatewayServer } from '../server/http-server.ts';
import type { AccessEntry } from '../types.ts';
import { NotificationMeter } from './notification-meter.ts';
import { checkSubscribe } from './subscribe-params.ts';
import { UpstreamSubscriptions } from './upstream-subscriptions.ts';

/** A client that does not read its socket is cut off past this many unsent bytes. */
const MAX_BUFFERED_BYTES = 16 * 1024 * 1024;

export type WebSocketDependencies = RpcDependencies & {
  networks: readonly Network[];
  keys: KeyStore;
  maxBodyBytes: number;
  inFlight: InFlight;
  /** Upstream WebSocket addresses of a network, in the order to try, and its call timeout. */
  upstreamsOf: (network: Network) => { urls: () => string[]; timeoutMs: number };
  metrics?: GatewayMetrics;
  onAnswered?: (entry: AccessEntry) => void;
};

/**
 * JSON-RPC over WebSocket at `{base}/ws/v3/<key>`: the key is checked at the upgrade (401 before
 * any socket is opened), every message runs through the same pipeline as an HTTP body (same
 * methods, prices, limits and records), and eth_subscribe / eth_unsubscribe are served by the
 * connection itself, relayed to an upstream WebSocket and charged through the same stages. Each
 * notification is charged at its network's `subscriptionCosts` before it is delivered; the
 * connection is closed (1008) when the balance cannot pay one.
 */
export function attachWebSocket(server: GatewayServer, deps: WebSocketDependencies) {
  const wss = new WebSocketServer({ noServer: true, maxPayload: deps.maxBodyBytes });
  const sessions = new Set<{ socket: WebSocket; subscriptions: UpstreamSubscriptions }>();
  let closing = false;

  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    upgrade(request, socket, head).catch(() =>
      refuse(socket, 500, errorResponse(null, { code: -32603, message: 'Internal error in the gateway' })),
    );
  });

  async function upgrade(request: IncomingMessage, socket: Duplex, head: Buffer) {
    if (closing) {
      return refuse(
        socket,
        503,
        errorResponse(null, { code: -32603, message: 'the gateway is shutting down' }),
      );
    }
    const path = (request.url ?? '/').split('?')[0];
    const route = routeRequest(deps.networks, 'ws', request.headers.host, path);
    if (route === undefined || route === 'no-network') {
      return refuse(
        socket,
        404,
        errorResponse(null, { code: -32600, message: unroutedMessage(deps.networks, 'ws', path) }),
      );
    }
    const { network } = route;
    let record: ApiKeyRecord;
    try {
      record = await admitKey(deps.keys, route, request.headers);
    } catch (error) {
      const refusal = error as GatewayError;
      return refuse(
        socket,
        refusal.httpStatus,
        errorResponse(null, { code: refusal.rpcCode(network.kind), message: refusal.message }),
      );
    }
    if (closing) {
      return refuse(
        socket,
        503,
        errorResponse(null, { code: -32603, message: 'the gateway is shutting down' }),
      );
    }
    const apiKey = route.key ?? '';
    wss.handleUpgrade(request, socket, head, (ws) => serve(ws, network, record, apiKey));
  }

  function serve(ws: WebSocket, network: Network, key: ApiKeyRecord, apiKey: string) {
    // The record is looked up again for every message and notification (a cached lookup): a key
    // revoked or given new limits while the connection is open takes effect on it at once.
    const current = async () => deps.keys.authenticate(apiKey);
    const send = (value: unknown) => {
      if (ws.readyState !== WebSocket.OPEN) return;
      if (ws.bufferedAmount > MAX_BUFFERED_BYTES) {
        ws.close(1013, 'client too slow: messages are not being read');
        return;
      }
      ws.send(stringifyJsonRpc(value));
    };
    const meter = new NotificationMeter({
      ledger: deps.ledger,
      usage: deps.usage,
      key: current,
      costs: network.subscriptionCosts,
      send,
      sever: (code, reason) => {
        subscriptions.close();
        ws.close(code, reason);
      },
      charged: (type, cost) => deps.metrics?.notification(network, key.id, type, cost),
      onError: (error) =>
        deps.onInternalError?.(error, { network: network.name, method: EVM_SUBSCRIPTION, keyId: key.id }),
    });
    const upstream = deps.upstreamsOf(network);
    const subscriptions = new UpstreamSubscriptions({
      urls: upstream.urls,
      timeoutMs: upstream.timeoutMs,
      notify: (message, { id, type }) =>
        meter.deliver(type, message, () => ws.readyState === WebSocket.OPEN && subscriptions.has(id)),
      lost: () => ws.close(1011, 'upstream subscription connection lost; reconnect and subscribe again'),
      gauge: deps.metrics?.wsSubscriptions.labels(network.name),
    });
    const session = { socket: ws, subscriptions };
    sessions.add(session);
    deps.metrics?.wsConnections.inc();
    const methods: SessionMethods = {
      [EVM_SUBSCRIBE]: {
        cost: network.methods.passthroughCost,
        check: (params) => checkSubscribe(params, subscriptions.size),
        call: (params) => subscriptions.subscribe(params),
      },
      [EVM_UNSUBSCRIBE]: { cost: 0, call: (params) => subscriptions.unsubscribe(params) },
    };
    ws.on('message', (data) => {
      const done = deps.inFlight.begin();
      const started = deps.onAnswered ? performance.now() : 0;
      current()
        .then((record) => {
          if (record) return handleRpc(String(data), network, record, deps, methods);
          ws.close(1008, 'the API key was revoked');
        })
        .then((outcome) => {
          if (!outcome) return;
          if (outcome.body !== undefined) send(outcome.body);
          deps.onAnswered?.(accessEntry('ws', key.id, network, outcome, started));
        })
        .catch(() => send(errorResponse(null, { code: -32603, message: 'Internal error in the gateway' })))
        .finally(done);
    });
    ws.on('error', () => ws.terminate());
    ws.on('close', () => {
      meter.stop();
      subscriptions.close();
      sessions.delete(session);
      deps.metrics?.wsConnections.dec();
    });
  }

  return {
    /** Refuses new upgrades, closes every connection (1001) and waits for them, at most `timeoutMs`. */
    async close(timeoutMs = 1000) {
      closing = true;
      const open = [...sessions];
      await Promise.all(
        open.map(
          ({ socket, subscriptions }) =>
            new Promise<void>((resolve) => {
              subscriptions.close();
              if (socket.readyState === WebSocket.CLOSED) return resolve();
              const timer = setTimeout(() => socket.terminate(), timeoutMs);
              socket.once('close', () => {
                clearTimeout(timer);
                resolve();
              });
              socket.close(1001, 'the gateway is shutting down');
            }),
        ),
      );
      wss.close();
    },
  };
}

function refuse(socket: Duplex, status: number, body: unknown) {
  if (!socket.writable) return socket.destroy();
  const text = JSON.stringify(body);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n` +
      'content-type: application/json\r\n' +
      `content-length: ${Buffer.byteLength(text)}\r\n` +
      'connection: close\r\n\r\n' +
      text,
  );
}
