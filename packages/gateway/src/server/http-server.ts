import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { BodyTooLargeError, readBody } from '@portico/http';
import { type AdminDependencies, handleAdmin } from '../admin/admin-api.ts';
import { CORS_PREFLIGHT_HEADERS, sendError, sendJson, sendRpcAnswer, useAdminCors } from '../http/respond.ts';
import type { ApiKeyRecord, KeyStore } from '../keys/key-store.ts';
import type { Network } from '../network.ts';
import { readiness } from '../observability/health.ts';
import { accessEntry, admitKey, routeRequest, unroutedMessage } from '../pipeline/admit.ts';
import { handleRpc, type RpcDependencies } from '../pipeline/handle-rpc.ts';
import { GatewayError } from '../rpc/errors.ts';
import { errorResponse } from '../rpc/jsonrpc.ts';
import type { AccessEntry } from '../types.ts';

export type HttpServerDependencies = RpcDependencies & {
  networks: readonly Network[];
  keys: KeyStore;
  maxBodyBytes: number;
  admin?: Omit<AdminDependencies, 'publicUrl' | 'networks' | 'keys' | 'ledger' | 'usage'>;
  publicUrl: () => string;
  /** Tried in order for paths that are not RPC, /healthz or /admin; one that returns true answered. */
  extraHandlers?: readonly ((request: IncomingMessage, response: ServerResponse) => boolean)[];
  /** Certificate and key (PEM): the server speaks HTTPS. */
  tls?: { cert: Buffer; key: Buffer };
  /** `GET /metrics` in Prometheus text format; with `adminToken`, only for `Authorization: Bearer`. */
  metrics?: { render: () => Promise<{ contentType: string; body: string }>; adminToken?: string };
  /** Web origins besides the gateway's own allowed to call the admin API from a browser. */
  adminCorsOrigins?: ReadonlySet<string>;
  /** True once the gateway is shutting down (`/readyz` answers 503). */
  shuttingDown?: () => boolean;
  /** Told once per answered RPC request (access log); key ids only. */
  onAnswered?: (entry: AccessEntry) => void;
};

export type GatewayServer = Server | HttpsServer;

const NO_ORIGINS: ReadonlySet<string> = new Set();

/** The gateway's HTTP front: RPC at `{base}/v3/<key>`, `/healthz`, and the admin API. */
export function createHttpServer(deps: HttpServerDependencies): GatewayServer {
  const adminDeps: AdminDependencies | undefined = deps.admin && {
    ...deps.admin,
    keys: deps.keys,
    ledger: deps.ledger,
    usage: deps.usage,
    networks: deps.networks,
    publicUrl: deps.publicUrl,
  };
  const listener = (request: IncomingMessage, response: ServerResponse) => {
    handle(request, response, deps, adminDeps).catch(() => {
      if (!response.headersSent)
        sendJson(
          response,
          500,
          errorResponse(null, { code: -32603, message: 'Internal error in the gateway' }),
        );
      else response.destroy();
    });
  };
  const server = deps.tls ? createHttpsServer(deps.tls, listener) : createServer(listener);
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
  const adminPath = path === '/admin' || path.startsWith('/admin/') || path === '/metrics';
  const adminPreflight = adminPath ? useAdminCors(response, deps.adminCorsOrigins ?? NO_ORIGINS) : undefined;
  if (request.method === 'OPTIONS') {
    response.writeHead(204, adminPreflight ?? CORS_PREFLIGHT_HEADERS).end();
    return;
  }
  if (path === '/healthz') return sendJson(response, 200, { status: 'ok' });
  if (path === '/readyz') {
    const report = readiness(deps.networks, deps.shuttingDown?.() ?? false);
    return sendJson(response, report.ready ? 200 : 503, report);
  }
  if (path === '/metrics' && deps.metrics) return sendMetrics(request, response, deps.metrics);
  if (path === '/admin' || path.startsWith('/admin/')) {
    if (!admin)
      return sendError(response, 404, { code: 'ADMIN_API_OFF', message: 'the admin API is disabled' });
    return handleAdmin(request, response, request.url ?? path, admin);
  }
  const route = routeRequest(deps.networks, 'http', request.headers.host, path);
  if (route === undefined || route === 'no-network') {
    if (deps.extraHandlers?.some((extra) => extra(request, response))) return;
    return sendJson(
      response,
      404,
      errorResponse(null, { code: -32600, message: unroutedMessage(deps.networks, 'http', path) }),
    );
  }
  const { network } = route;
  const fail = (error: GatewayError, headers?: Record<string, string>) =>
    sendJson(
      response,
      error.httpStatus,
      errorResponse(null, { code: error.rpcCode(network.kind), message: error.message }),
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
  let record: ApiKeyRecord;
  try {
    const admitted = admitKey(deps.keys, route, request.headers);
    record = admitted instanceof Promise ? await admitted : admitted;
  } catch (error) {
    request.resume();
    return fail(error as GatewayError);
  }
  let text: string;
  try {
    text = await readBody(request, deps.maxBodyBytes);
  } catch (error) {
    if (error instanceof BodyTooLargeError) {
      return fail(new GatewayError('bodyTooLarge', error.message), {
        connection: 'close',
      });
    }
    throw error;
  }
  const started = deps.onAnswered ? performance.now() : 0;
  const outcome = await handleRpc(text, network, record, deps);
  deps.onAnswered?.(accessEntry('http', record.id, network, outcome, started));
  sendRpcAnswer(response, outcome.status, outcome.body, outcome.remaining, outcome.cache);
}

async function sendMetrics(
  request: IncomingMessage,
  response: ServerResponse,
  metrics: NonNullable<HttpServerDependencies['metrics']>,
) {
  if (metrics.adminToken !== undefined) {
    const header = request.headers.authorization;
    const presented = Buffer.from(header?.startsWith('Bearer ') ? header.slice(7) : '');
    const token = Buffer.from(metrics.adminToken);
    if (presented.length !== token.length || !timingSafeEqual(presented, token)) {
      return sendError(
        response,
        401,
        {
          code: 'ADMIN_TOKEN_REQUIRED',
          message: 'admin token required: send Authorization: Bearer <admin token>',
        },
        { 'www-authenticate': 'Bearer' },
      );
    }
  }
  const { contentType, body } = await metrics.render();
  response.writeHead(200, { 'content-type': contentType, 'content-length': Buffer.byteLength(body) });
  response.end(body);
}

export function listen(server: GatewayServer, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.removeListener('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });
}
