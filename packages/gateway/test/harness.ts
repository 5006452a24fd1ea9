// Shared set-up for the gateway integration tests: one anvil per test file, a gateway in front of
// it, and a raw JSON-RPC helper that shows the HTTP status and headers.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:net';
import { type Anvil, type EvmSeed, seedEvmChain, startAnvil } from '@portico/devchain';
import { type Gateway, parseConfig, startGateway } from '@portico/gateway';
import { tempDir } from '@portico/testkit';

export type RawReply = {
  status: number;
  headers: Headers;
  /** Parsed JSON body, or undefined for an empty body (204). */
  body: unknown;
  text: string;
};

/** POSTs a body (an object is sent as JSON, a string as it is) and returns status, headers and JSON. */
export async function post(
  url: string,
  body: unknown,
  init: { headers?: Record<string, string>; method?: string; timeoutMs?: number } = {},
): Promise<RawReply> {
  const method = init.method ?? 'POST';
  // A request the gateway never answers fails here, naming the URL, instead of hanging the run.
  const timeoutMs = init.timeoutMs ?? 60_000;
  const response = await fetch(url, {
    method,
    signal: AbortSignal.timeout(timeoutMs),
    headers: { 'content-type': 'application/json', ...init.headers },
    body: method === 'GET' ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  }).catch((error: unknown) => {
    if (error instanceof Error && error.name === 'TimeoutError') {
      throw new Error(`no answer from ${method} ${url} within ${timeoutMs} ms`, { cause: error });
    }
    throw error;
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: text ? JSON.parse(text) : undefined,
    text,
  };
}

export type RpcReply = RawReply & {
  body: {
    jsonrpc: string;
    id: unknown;
    result?: unknown;
    error?: { code: number; message: string; data?: unknown };
  };
};

let nextId = 1;

/** One JSON-RPC call through raw HTTP. */
export async function rpc(url: string, method: string, params: unknown[] = []): Promise<RpcReply> {
  const reply = await post(url, { jsonrpc: '2.0', id: nextId++, method, params });
  return reply as RpcReply;
}

/** The `x-credits-remaining` header as a number (undefined when absent). */
export function remaining(reply: RawReply): number | undefined {
  const header = reply.headers.get('x-credits-remaining');
  return header === null ? undefined : Number(header);
}

/** A TCP port that nothing listens on (bound once by us, then released). */
export async function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export type GatewayOptions = {
  adminToken?: string;
  dataDir?: string;
  maxBatchSize?: number;
  maxBodyBytes?: number;
  maxJsonDepth?: number;
  /** Extra networks beside `local` (anvil). */
  extraNetworks?: Record<string, unknown>[];
  passthroughCost?: number;
};

/**
 * A stand-in node's request handler that serves JSON-RPC over HTTP only: anything but a POST (the
 * gateway's WebSocket handshake for pushed heads, say) is answered 405, as by a node without one.
 */
export function postOnly(
  handler: (request: IncomingMessage, response: ServerResponse) => void,
): (request: IncomingMessage, response: ServerResponse) => void {
  return (request, response) => {
    if (request.method === 'POST') return handler(request, response);
    response.writeHead(405, { allow: 'POST' }).end();
  };
}

/** Starts a gateway with the `local` network in front of `upstream`. */
export async function gatewayFor(upstream: string, options: GatewayOptions = {}): Promise<Gateway> {
  const config: Record<string, unknown> = {
    port: 0,
    logLevel: 'silent',
    networks: [
      {
        name: 'local',
        chainId: 'eip155:31337',
        upstreams: [upstream],
        ...(options.passthroughCost === undefined ? {} : { passthroughCost: options.passthroughCost }),
      },
      ...(options.extraNetworks ?? []),
    ],
  };
  for (const name of ['adminToken', 'dataDir', 'maxBatchSize', 'maxBodyBytes', 'maxJsonDepth'] as const) {
    if (options[name] !== undefined) config[name] = options[name];
  }
  return startGateway(parseConfig(config));
}

export type Stack = {
  anvil: Anvil;
  seed: EvmSeed | undefined;
  gateway: Gateway;
  dataDir: string;
  /** A key with the default daily balance. */
  key: string;
  /** RPC URL of the `local` network for a key. */
  url: (key: string) => string;
  close: () => Promise<void>;
};

/** anvil (seeded unless told otherwise) + a gateway on a temporary data dir + one API key. */
export async function startStack(
  options: GatewayOptions & { seed?: boolean; dailyCredits?: number } = {},
): Promise<Stack> {
  const anvil = await startAnvil();
  const dir = tempDir('portico-gw-test-');
  try {
    const seed = options.seed === false ? undefined : await seedEvmChain(anvil.url);
    const gateway = await gatewayFor(anvil.url, { dataDir: dir.path, ...options });
    const { key } = await gateway.keys.create({ name: 'test', dailyCredits: options.dailyCredits });
    const url = (k: string) => `${gateway.networks[0].baseUrl}/v3/${k}`;
    return {
      anvil,
      seed,
      gateway,
      dataDir: dir.path,
      key,
      url,
      async close() {
        try {
          await gateway.close();
        } finally {
          dir.cleanup();
          await stopAnvil(anvil);
        }
      },
    };
  } catch (error) {
    dir.cleanup();
    await stopAnvil(anvil);
    throw error;
  }
}

/**
 * Stops anvil and waits for it to exit. The anvil child is unref'd, so without a timer of our own
 * the test process could reach an empty event loop and end before the exit is seen.
 */
async function stopAnvil(anvil: Anvil) {
  const keepAlive = setInterval(() => {}, 1000);
  try {
    await anvil.stop();
  } finally {
    clearInterval(keepAlive);
  }
}
