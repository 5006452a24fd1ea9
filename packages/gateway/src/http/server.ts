import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type AdminDependencies, handleAdmin } from '../admin/admin-api.ts';
import { nextUtcMidnight } from '../credits/day.ts';
import type { KeyStore } from '../keys/key-store.ts';
import type { Network } from '../network.ts';
import { authenticate } from '../pipeline/authenticate.ts';
import { handleRpc, type RpcDependencies } from '../pipeline/handle-rpc.ts';
import { GatewayError } from '../rpc/errors.ts';
import { errorResponse } from '../rpc/jsonrpc.ts';
import { BodyTooLargeError, readBody } from './read-body.ts';
import { CORS_HEADERS, sendJson } from './respond.ts';
import { routeRpc } from './route.ts';

export type HttpServerDependencies = RpcDependencies & {
  networks: readonly Network[];
  keys: KeyStore;
  maxBodyBytes: number;
  admin?: Omit<AdminDependencies, 'publicUrl' | 'networks' | 'keys' | 'ledger' | 'usage'>;
  publicUrl: () => string;
  /** Tried in order for paths that are not RPC, /healthz or /admin; one that returns true answered. */
  extraHandlers?: readonly ((request: IncomingMessage, response: ServerResponse) => boolean)[];
};

/** The gateway's HTTP front: RPC at `{base}/v3/<key>`, `/healthz`, and the admin API. */
export function createHttpServer(deps: HttpServerDependencies): Server {
  const adminDeps: AdminDependencies | undefined = deps.admin && {
    ...deps.admin,
    keys: deps.keys,
    ledger: deps.ledger,
    usage: deps.usage,
    networks: deps.networks,
    publicUrl: deps.publicUrl,
  };
  const server = createServer((request, response) => {
    handle(request, response, deps, adminDeps).catch(() => {
      if (!response.headersSent)
        sendJson(
          response,
          500,
          errorResponse(null, { code: -32603, message: 'Internal error in the gateway' }),
        );
      else response.destroy();
    });
  });
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  return server;
}

async function handle(
  request: IncomingMessage,
  response: ServerResponse,
  deps: HttpServerDependencies,
  admin?: AdminDependencies,
) {
  const path = (request.url ?? '/').split('?')[0];
  if (request.method === 'OPTIONS') {
    response.writeHead(204, CORS_HEADERS).end();
    return;
  }
  if (path === '/healthz') return sendJson(response, 200, { status: 'ok' });
  if (path === '/admin' || path.startsWith('/admin/')) {
    if (!admin)
      return sendJson(response, 404, { error: { code: 'not_found', message: 'the admin API is disabled' } });
    return handleAdmin(request, response, request.url ?? path, admin);
  }
  const route = routeRpc(deps.networks, request.headers.host, path);
  if (route === undefined || route === 'no-network') {
    if (deps.extraHandlers?.some((extra) => extra(request, response))) return;
    const known = deps.networks.map((n) => `${n.basePath}/v3/<API_KEY>`).join(', ');
    return sendJson(
      response,
      404,
      errorResponse(null, { code: -32600, message: `no network at ${path}; RPC addresses are ${known}` }),
    );
  }
  const { network, key } = route;
  const fail = (error: GatewayError, headers?: Record<string, string>) =>
    sendJson(
      response,
      error.httpStatus,
      errorResponse(null, { code: error.code(network.kind), message: error.message }),
      headers,
    );

  if (request.method !== 'POST') {
    return sendJson(
      response,
      405,
      errorResponse(null, { code: -32600, message: 'use POST with a JSON-RPC body' }),
      { allow: 'POST, OPTIONS' },
    );
  }
  const contentType = request.headers['content-type'];
  if (contentType && !/^application\/json\b/i.test(contentType)) {
    return sendJson(
      response,
      415,
      errorResponse(null, {
        code: -32600,
        message: `Content-Type must be application/json, got ${contentType}`,
      }),
    );
  }
  let record: Awaited<ReturnType<typeof authenticate>>;
  try {
    record = await authenticate(deps.keys, key);
  } catch (error) {
    request.resume();
    return fail(error as GatewayError);
  }
  let text: string;
  try {
    text = await readBody(request, deps.maxBodyBytes);
  } catch (error) {
    if (error instanceof BodyTooLargeError) {
      return fail(
        new GatewayError(
          'bodyTooLarge',
          `request body too large: at most ${deps.maxBodyBytes} bytes are accepted`,
        ),
        {
          connection: 'close',
        },
      );
    }
    throw error;
  }
  const outcome = await handleRpc(text, network, record, deps);
  const headers: Record<string, string> = {};
  if (outcome.remaining !== undefined) {
    headers['x-credits-remaining'] = String(outcome.remaining);
    headers['x-credits-reset'] = nextUtcMidnight(Date.now()).toISOString();
  }
  if (outcome.cache) headers['x-cache'] = outcome.cache;
  if (outcome.body === undefined) {
    response.writeHead(204, { ...CORS_HEADERS, ...headers }).end();
    return;
  }
  sendJson(response, outcome.status, outcome.body, headers);
}

export function listen(server: Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.removeListener('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });
}
