// The admin API as the views call it: a refused token signs the tab out; failures described for
// people; the gateway's networks, fetched once per session.
import { ApiError, adminRequest, clearToken, dashboardRequest } from './api.js';
import { go, setFlash } from './navigation.js';

/** Thrown after the gateway refused the session's token: the view is already the sign-in page. */
export class SignedOut extends Error {}

export async function api(method, path, body) {
  return signOutOnRefusal(() => adminRequest(method, path, { body }));
}

/**
 * The dashboard's own API (the audit trail), with the same sign-out on a refused token.
 * @param {string} path
 */
export async function dashboardApi(path) {
  return signOutOnRefusal(() => dashboardRequest(path));
}

/**
 * @template T
 * @param {() => Promise<T>} call
 * @returns {Promise<T>}
 */
async function signOutOnRefusal(call) {
  try {
    return await call();
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      clearToken();
      setFlash({
        kind: 'error',
        text: 'The gateway no longer accepts the admin token of this session (it may have been changed). Sign in again.',
      });
      go('#/signin');
      throw new SignedOut();
    }
    throw error;
  }
}

export function describeFailure(error) {
  if (!(error instanceof ApiError)) return `Unexpected error in the dashboard: ${error?.message ?? error}`;
  const status = error.status ? `HTTP ${error.status}` : 'no answer';
  return `${error.method} ${error.path} failed (${status}, ${error.code}): ${error.message}.`;
}

export function hintFor(error) {
  if (!(error instanceof ApiError))
    return 'Reload the page; if it happens again, report it with the text above.';
  if (error.status === 0)
    return 'Check that the gateway is running (portico dev prints its address) and reload this page.';
  if (error.status === 404)
    return error.code === 'ADMIN_API_OFF'
      ? 'The gateway runs without an admin token, so its admin API is off. Start it with adminToken set.'
      : 'It may have been removed or never existed. Go back to the keys and pick it again.';
  if (error.status === 400 || error.status === 413)
    return 'The gateway rejected the request as invalid. Check what was entered and try again.';
  if (error.code === 'BAD_RESPONSE')
    return 'Something other than the gateway answered (a proxy in front of it?). Check the address of this page.';
  if (error.status >= 500) return 'The gateway failed while answering; its log has the details. Try again.';
  return 'Try again; if it keeps failing, check the gateway log.';
}

let networksCache = null;

export async function networks() {
  networksCache ??= (await api('GET', '/networks')).networks;
  return networksCache;
}

/** The networks the sign-in call just fetched. */
export function setNetworks(list) {
  networksCache = list;
}

export function forgetNetworks() {
  networksCache = null;
}
