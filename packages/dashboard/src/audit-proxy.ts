// The Audit page's only server-side part: `GET <basePath>/api/audit` and `.../api/audit/verify`
// are passed to the auth service's admin API with the auth service's admin token, for a request
// that carries the gateway's admin token (the one the dashboard signs in with). The auth token never
// reaches the browser; the browser's token never reaches the auth service.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Where the auth service's admin API is and the token it wants. */
export type AuthAdminTarget = {
  /** The auth service's base URL (its `sdkUrl`), e.g. `http://127.0.0.1:3002`. */
  url: string;
  /** The auth service's `adminToken`. */
  adminToken: string;
};

/** A fixed target, or a function read on each request (the auth service may start after the gateway). */
export type AuthAdminSource = AuthAdminTarget | (() => AuthAdminTarget | undefined);

const FORWARDED_PARAMS = ['user', 'event', 'since', 'until', 'after', 'limit'];
const UPSTREAM_TIMEOUT_MS = 10_000;

function sendError(response: ServerResponse, status: number, code: Uppercase<string>, message: string) {
  const body = JSON.stringify({ error: { code, message } });
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  response.end(body);
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** Constant-time check of `Authorization: Bearer <token>` against the gateway's admin token. */
function authorized(request: IncomingMessage, adminToken: string): boolean {
  const given = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
  return timingSafeEqual(digest(given), digest(adminToken));
}

/** Handles `<basePath>/api/audit[/verify]` (path already matched); answers every request itself. */
export async function proxyAudit(
  request: IncomingMessage,
  response: ServerResponse,
  route: 'audit' | 'verify',
  options: { adminToken?: string; authAdmin?: AuthAdminSource },
): Promise<void> {
  if (!options.adminToken) {
    return sendError(
      response,
      404,
      'ADMIN_API_OFF',
      'the admin API is disabled: the gateway has no admin token',
    );
  }
  if (!authorized(request, options.adminToken)) {
    return sendError(response, 401, 'ADMIN_TOKEN_REQUIRED', 'missing or wrong admin token');
  }
  if (request.method !== 'GET') {
    return sendError(response, 405, 'METHOD_NOT_ALLOWED', 'only GET is allowed here');
  }
  const target = typeof options.authAdmin === 'function' ? options.authAdmin() : options.authAdmin;
  if (!target) {
    return sendError(
      response,
      404,
      'AUTH_NOT_CONFIGURED',
      'no auth service with an admin token is connected to this dashboard',
    );
  }
  const query = new URL(request.url ?? '/', 'http://dashboard').searchParams;
  const upstream = new URL(route === 'verify' ? '/admin/audit/verify' : '/admin/audit', target.url);
  if (route === 'audit') {
    for (const name of FORWARDED_PARAMS) {
      const value = query.get(name);
      if (value !== null && value !== '') upstream.searchParams.set(name, value);
    }
  }
  let answer: Response;
  try {
    answer = await fetch(upstream, {
      headers: { authorization: `Bearer ${target.adminToken}` },
      signal: AbortSignal.timeout(UPSTREAM_TIMEOUT_MS),
    });
  } catch {
    return sendError(response, 502, 'AUTH_UNREACHABLE', 'the auth service did not answer');
  }
  let body: unknown;
  try {
    body = await answer.json();
  } catch {
    body = undefined;
  }
  if (answer.ok && body !== undefined) {
    response.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    });
    response.end(JSON.stringify(body));
    return;
  }
  // A refused filter is the operator's to fix: the auth service's 400 text names the parameter.
  // Anything else (its token refused, its admin API off, a crash) is the deployment's, said here.
  if (answer.status === 400) {
    const message = (body as { error?: { message?: unknown } } | undefined)?.error?.message;
    return sendError(
      response,
      400,
      'INVALID_QUERY',
      typeof message === 'string' ? message : 'the auth service refused the filter',
    );
  }
  if (answer.status === 401 || answer.status === 404) {
    return sendError(
      response,
      502,
      'AUTH_REFUSED',
      'the auth service refused the dashboard (its admin API is off or the configured auth admin token is wrong)',
    );
  }
  return sendError(response, 502, 'AUTH_FAILED', `the auth service failed (HTTP ${answer.status})`);
}
