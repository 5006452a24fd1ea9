import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { sendJson as send, sendError as sendHttpError } from '@portico/http';
import { nextUtcMidnightText } from '../credits/day.ts';
import { stringifyJsonExact } from '../rpc/exact-json.ts';
import { jsonRpcChunks, stringifyJsonRpc } from '../rpc/json-result.ts';
import type { CacheStatus } from '../types.ts';

/**
 * The answer to a CORS preflight (OPTIONS) of the JSON-RPC endpoints: dapps call them from any page.
 * `solana-client` is the header @solana/kit's HTTP transport sends with every request.
 */
export const CORS_PREFLIGHT_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'POST, GET, OPTIONS',
  'access-control-allow-headers': 'content-type, authorization, solana-client',
  'access-control-max-age': '86400',
};

const CORS_RESPONSE_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'x-credits-remaining, x-credits-reset, x-cache',
};

/** CORS headers set for one response instead of the JSON-RPC endpoints' (the admin API's). */
const corsOverrides = new WeakMap<ServerResponse, Record<string, string>>();

/**
 * CORS headers only for requests from a browser page (they carry Origin): server-to-server
 * calls, most of the traffic, skip five headers' worth of work on every answer.
 */
export function corsHeadersFor(response: ServerResponse): Record<string, string> | undefined {
  if (!response.req?.headers.origin) return undefined;
  return corsOverrides.get(response) ?? CORS_RESPONSE_HEADERS;
}

/**
 * CORS of the admin API (and /metrics, which may take the admin token): an allow-origin header
 * only for an origin in `allowed` (the admin token must not be usable from any web page). The
 * dashboard is served by the gateway itself: same origin, no CORS needed. Applies to every answer
 * sent for `response` from now on; returns the headers of a preflight answer.
 */
export function useAdminCors(response: ServerResponse, allowed: ReadonlySet<string>): Record<string, string> {
  const origin = response.req?.headers.origin;
  const headers: Record<string, string> =
    origin !== undefined && allowed.has(origin)
      ? { 'access-control-allow-origin': origin, vary: 'origin' }
      : allowed.size > 0
        ? { vary: 'origin' }
        : {};
  corsOverrides.set(response, headers);
  if (!headers['access-control-allow-origin']) return headers;
  return {
    ...headers,
    'access-control-allow-methods': 'GET, POST, PATCH, DELETE, OPTIONS',
    'access-control-allow-headers': 'content-type, authorization',
    'access-control-max-age': '600',
  };
}

/**
 * A JSON answer with the CORS headers of its endpoint, numbers and ids written exactly; a result
 * the node's own text came with is spliced in as that text.
 */
export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  send(response, status, body, { ...corsHeadersFor(response), ...headers }, stringifyJsonRpc);
}

/** `{ "error": { "code", "message" } }` (admin API, /metrics), with the CORS headers of its endpoint. */
export function sendError(
  response: ServerResponse,
  status: number,
  error: { code: Uppercase<string>; message: string } & Record<string, unknown>,
  headers: Record<string, string> = {},
) {
  sendHttpError(response, status, error, { ...corsHeadersFor(response), ...headers }, stringifyJsonExact);
}

/**
 * The answer to a JSON-RPC request (`sendJson` with the credit and cache headers), its headers
 * gathered in one object: this runs for every request. No body (only notifications) is a 204.
 */
export function sendRpcAnswer(
  response: ServerResponse,
  status: number,
  body: unknown,
  remaining: number | undefined,
  cache: CacheStatus | undefined,
) {
  // A result held as many texts (eth_getLogs in parts) is written as them, never as one string.
  const chunks = body === undefined ? undefined : jsonRpcChunks(body);
  const text = body === undefined || chunks ? undefined : stringifyJsonRpc(body);
  const length = chunks ? byteLengthOf(chunks) : text === undefined ? undefined : Buffer.byteLength(text);
  const headers: OutgoingHttpHeaders =
    length === undefined ? {} : { 'content-type': 'application/json', 'content-length': length };
  const cors = corsHeadersFor(response);
  if (cors) Object.assign(headers, cors);
  if (remaining !== undefined) {
    headers['x-credits-remaining'] = String(remaining);
    headers['x-credits-reset'] = nextUtcMidnightText(Date.now());
  }
  if (cache) headers['x-cache'] = cache;
  if (chunks) writeChunks(response.writeHead(status, headers), chunks);
  else if (text === undefined) response.writeHead(204, headers).end();
  else response.writeHead(status, headers).end(text);
}

function byteLengthOf(chunks: readonly string[]): number {
  let length = 0;
  for (const chunk of chunks) length += Buffer.byteLength(chunk);
  return length;
}

/**
 * Writes the chunks one after the other, each when the socket has taken the one before: only one
 * chunk's bytes wait in memory at a time, not the whole answer.
 */
function writeChunks(response: ServerResponse, chunks: readonly string[]) {
  let next = 0;
  const write = () => {
    while (next < chunks.length) {
      if (!response.write(chunks[next++]) && next < chunks.length) {
        response.once('drain', write);
        return;
      }
    }
    response.end();
  };
  write();
}
