import type { ServerResponse } from 'node:http';
import { stringifyJsonExact } from '../rpc/exact-json.ts';

/** The answer to a CORS preflight (OPTIONS). */
export const CORS_PREFLIGHT_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'POST, GET, OPTIONS',
  'access-control-allow-headers': 'content-type, authorization',
  'access-control-max-age': '86400',
};

const CORS_RESPONSE_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'x-credits-remaining, x-credits-reset, x-cache',
};

/**
 * CORS headers only for requests from a browser page (they carry Origin): server-to-server
 * calls, most of the traffic, skip five headers' worth of work on every answer.
 */
export function corsHeadersFor(response: ServerResponse): Record<string, string> | undefined {
  return response.req?.headers.origin ? CORS_RESPONSE_HEADERS : undefined;
}

export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  const text = stringifyJsonExact(body);
  response.writeHead(status, {
    ...corsHeadersFor(response),
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  response.end(text);
}
