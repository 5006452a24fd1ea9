import type { IncomingMessage, ServerResponse } from 'node:http';
import { BodyTooLargeError, readBody } from '@portico/http';

/** The login page's Content-Security-Policy: no inline script or style. */
export const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' https: data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

const MAX_BODY = 64 * 1024;

/** An error answered with its status and message. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readBody(req, MAX_BODY);
  } catch (error) {
    if (error instanceof BodyTooLargeError) throw new HttpError(413, 'Request body too large');
    throw error;
  }
  try {
    const body = JSON.parse(text) as unknown;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new Error('not an object');
    return body as Record<string, unknown>;
  } catch {
    throw new HttpError(400, 'Body must be a JSON object');
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
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
