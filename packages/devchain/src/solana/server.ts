/**
 * The ledger's HTTP JSON-RPC 2.0 endpoint (POST /, single requests and batches), answering in the
 * Solana RPC's shapes (and, on the same port, the WebSocket PubSub of pubsub.ts): -32700 parse error, -32600 invalid request, -32601 method not found,
 * handler errors with their own code, message and data.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BodyTooLargeError, readBody } from '@portico/http';
import { RpcError } from './errors.ts';
import { stringifyJson } from './json.ts';
import type { Ledger } from './ledger.ts';
import { attachPubSub } from './pubsub.ts';
import { METHODS } from './rpc/index.ts';

const MAX_BODY_BYTES = 4 * 1024 * 1024;
const MAX_BATCH = 1000;

type Id = string | number | null;
type Response = {
  jsonrpc: '2.0';
  id: Id;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
};

function failure(id: Id, code: number, message: string, data?: unknown): Response {
  return { jsonrpc: '2.0', id, error: data === undefined ? { code, message } : { code, message, data } };
}

async function handleOne(ledger: Ledger, request: unknown, log: (line: string) => void): Promise<Response> {
  if (typeof request !== 'object' || request === null || Array.isArray(request)) {
    return failure(null, -32600, 'Invalid request');
  }
  const { jsonrpc, id: rawId, method, params } = request as Record<string, unknown>;
  const id: Id = typeof rawId === 'string' || typeof rawId === 'number' ? rawId : null;
  if (jsonrpc !== '2.0' || typeof method !== 'string') return failure(id, -32600, 'Invalid request');
  const handler = Object.hasOwn(METHODS, method) ? METHODS[method] : undefined;
  if (!handler) return failure(id, -32601, 'Method not found');
  if (params !== undefined && params !== null && !Array.isArray(params)) {
    return failure(id, -32602, 'Invalid params: expected a positional (array) parameter list.');
  }
  try {
    return { jsonrpc: '2.0', id, result: await handler(ledger, (params as unknown[] | undefined) ?? []) };
  } catch (error) {
    if (error instanceof RpcError) return failure(id, error.rpcCode, error.message, error.data);
    log(`solana: ${method} failed: ${(error as Error).stack ?? String(error)}`);
    return failure(id, -32603, 'Internal error');
  }
}

/** Browsers may call the ledger directly, as they may a validator's RPC port. */
const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'POST, OPTIONS',
  'access-control-allow-headers': 'content-type, solana-client',
  'access-control-max-age': '86400',
};

function send(response: ServerResponse, status: number, body: unknown): void {
  const text = stringifyJson(body);
  response.writeHead(status, {
    ...CORS,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}

/** `url` answers JSON-RPC over HTTP POST; `wsUrl` (same port) serves the PubSub subscriptions. */
export type RpcServer = { server: Server; url: string; wsUrl: string; close(): Promise<void> };

/** Listens on 127.0.0.1:`port` (0 = any free port). */
export async function startRpcServer(
  ledger: Ledger,
  port: number,
  log: (line: string) => void,
): Promise<RpcServer> {
  const server = createServer((request, response) => {
    if (request.method === 'OPTIONS') {
      response.writeHead(204, CORS);
      response.end();
      return;
    }
    if (request.method !== 'POST') {
      send(response, 405, failure(null, -32600, 'Invalid request: use POST with a JSON-RPC 2.0 body'));
      return;
    }
    readBody(request, MAX_BODY_BYTES)
      .then(async (body) => {
        let parsed: unknown;
        try {
          parsed = JSON.parse(body);
        } catch {
          return send(response, 200, failure(null, -32700, 'Parse error'));
        }
        if (Array.isArray(parsed)) {
          if (parsed.length === 0 || parsed.length > MAX_BATCH)
            return send(response, 200, failure(null, -32600, 'Invalid request'));
          const results: Response[] = [];
          for (const item of parsed) results.push(await handleOne(ledger, item, log));
          return send(response, 200, results);
        }
        return send(response, 200, await handleOne(ledger, parsed, log));
      })
      .catch((error: unknown) => {
        if (error instanceof BodyTooLargeError)
          return send(response, 413, failure(null, -32600, 'Invalid request: body too large'));
        log(`solana: request failed: ${String(error)}`);
        if (!response.headersSent) send(response, 500, failure(null, -32603, 'Internal error'));
      });
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const { port: bound } = server.address() as AddressInfo;
  const pubsub = attachPubSub(server, ledger, log);
  return {
    server,
    url: `http://127.0.0.1:${bound}`,
    wsUrl: `ws://127.0.0.1:${bound}`,
    close: async () => {
      await pubsub.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
