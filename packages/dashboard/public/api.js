// The admin API of the gateway serving this page, called with the operator's admin token.
// The token lives in sessionStorage only (gone when the tab closes) and is never logged.

const TOKEN_ITEM = 'portico.adminToken';

export const getToken = () => sessionStorage.getItem(TOKEN_ITEM);
export const setToken = (token) => sessionStorage.setItem(TOKEN_ITEM, token);
export const clearToken = () => sessionStorage.removeItem(TOKEN_ITEM);

/** A failed admin call: `status` 0 when the gateway did not answer at all. */
export class ApiError extends Error {
  constructor({ method, path, status, code, message }) {
    super(message);
    this.name = 'ApiError';
    this.method = method;
    this.path = path;
    this.status = status;
    this.code = code;
  }
}

/**
 * Calls `/admin<path>` and returns the parsed JSON body, or throws an ApiError carrying the
 * API's `{ error: { code, message } }`. `token` overrides the stored one (used when signing in).
 * @param {string} method
 * @param {string} path
 * @param {{ body?: unknown, token?: string | null }} [options]
 */
export async function adminRequest(method, path, { body, token = getToken() } = {}) {
  return requestJson(method, `/admin${path}`, { body, token });
}

/**
 * Calls the dashboard's own `api/<path>` (beside the page: the auth service's audit trail, which
 * the gateway's dashboard handler fetches server-side), with the same token and errors.
 * @param {string} path
 */
export async function dashboardRequest(path) {
  return requestJson('GET', `api/${path}`, { token: getToken() });
}

/**
 * @param {string} method
 * @param {string} url
 * @param {{ body?: unknown, token?: string | null }} options
 */
async function requestJson(method, url, { body, token }) {
  const headers = { authorization: `Bearer ${token ?? ''}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response;
  try {
    response = await fetch(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: 'no-store',
    });
  } catch {
    throw new ApiError({
      method,
      path: url,
      status: 0,
      code: 'UNREACHABLE',
      message: 'the gateway did not answer (it may be stopped, or the network is down)',
    });
  }
  let parsed;
  try {
    parsed = await response.json();
  } catch {
    parsed = undefined;
  }
  if (response.ok && parsed !== undefined) return parsed;
  const error = parsed?.error;
  throw new ApiError({
    method,
    path: url,
    status: response.status,
    code: typeof error?.code === 'string' ? error.code : 'BAD_RESPONSE',
    message:
      typeof error?.message === 'string'
        ? error.message
        : `the answer was not the admin API's JSON (HTTP ${response.status} ${response.statusText})`,
  });
}
