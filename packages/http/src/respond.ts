import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';

/**
 * Answers `body` as JSON with its length. `headers` come last (they may add to or replace the
 * content type); `stringify` writes the body (default JSON.stringify).
 */
export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: OutgoingHttpHeaders = {},
  stringify: (value: unknown) => string = JSON.stringify,
): void {
  const text = stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  response.end(text);
}

/**
 * An error answer in the envelope every Portico HTTP API that is not JSON-RPC uses:
 * `{ "error": { "code", "message", ... } }`, `code` a stable UPPER_SNAKE string (docs/http-errors.md).
 */
export function sendError(
  response: ServerResponse,
  status: number,
  error: { code: Uppercase<string>; message: string } & Record<string, unknown>,
  headers: OutgoingHttpHeaders = {},
  stringify?: (value: unknown) => string,
): void {
  sendJson(response, status, { error }, headers, stringify);
}
