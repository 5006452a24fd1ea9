import type { IncomingMessage, ServerResponse } from 'node:http';
import { BodyTooLargeError, readBody, sendError } from '@portico/http';
import { BaseError } from './base-error.ts';
import type { ErrorCode } from './error-codes.ts';

/** The login page's Content-Security-Policy: no inline script or style. */
export const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' https: data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

const MAX_BODY = 64 * 1024;

/** An error answered with its status, its stable code and its message. */
export class HttpError extends BaseError {
  override readonly name: string = 'HttpError';
  override readonly status: number;
  declare readonly code: ErrorCode;

  constructor(
    status: number,
    code: ErrorCode,
    message: string,
    options: { cause?: unknown; details?: Record<string, unknown> } = {},
  ) {
    super(code, message, { ...options, status });
    this.status = status;
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readBody(req, MAX_BODY);
  } catch (error) {
    if (error instanceof BodyTooLargeError)
      throw new HttpError(413, 'BODY_TOO_LARGE', 'Request body too large', { cause: error });
    throw error;
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (!isRecord(body)) throw new HttpError(400, 'INVALID_BODY', 'Body must be a JSON object');
  return body;
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

/**
 * An error as the one JSON error answer: `{ "error": { "code", "message", ...details } }`. An
 * error without a status (a fault, not a refusal) is 500 `INTERNAL_ERROR`, its text not shown.
 */
export function sendErrorAnswer(res: ServerResponse, err: unknown): void {
  const known = err instanceof BaseError && err.status !== undefined ? err : undefined;
  const headers: Record<string, string> = { 'cache-control': 'no-store' };
  const retryAfter = known?.details?.retryAfter;
  if (known?.status === 429 && typeof retryAfter === 'number') headers['retry-after'] = String(retryAfter);
  sendError(
    res,
    known?.status ?? 500,
    known
      ? { code: known.code, message: known.message, ...known.details }
      : { code: 'INTERNAL_ERROR', message: 'Internal error' },
    headers,
  );
}

export function redirect(res: ServerResponse, location: string): void {
  res.writeHead(302, { location, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' });
  res.end();
}

export function errorPage(res: ServerResponse, status: number, message: string): void {
  const safe = message.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': CSP });
  res.end(`<!doctype html><meta charset="utf-8"><title>Login error</title><p>${safe}</p>`);
}
