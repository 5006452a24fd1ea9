// What every part of the wallet page uses: the access token (from the URL fragment, sent back
// as a bearer header), element helpers, the status line, the wallet API, and the page's refresh.

const token = new URLSearchParams(location.hash.slice(1)).get('token') || '';
const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
export const $ = (id) => document.getElementById(id);
export const statusEl = $('status');
export const requestsEl = $('requests');
export const sessionsEl = $('sessions');
export const accountError = $('account-error');

export const NAMESPACE_NAMES = { eip155: 'Ethereum (eip155)', solana: 'Solana' };

export function el(tag, props, children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (key.startsWith('aria-') || key.startsWith('data-') || key === 'role') node.setAttribute(key, value);
    else node[key] = value;
  }
  for (const child of children || []) node.append(child);
  return node;
}

export function announce(text) {
  statusEl.textContent = text;
}

export function showError(text) {
  accountError.textContent = text || '';
  accountError.hidden = !text;
}

export async function call(method, path, body) {
  const response = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  let json = null;
  try {
    json = await response.json();
  } catch {
    json = null;
  }
  // Error answers are `{ error: { code, message } }` (docs/http-errors.md).
  if (!response.ok) throw new Error(json?.error?.message || `HTTP ${response.status}`);
  return json;
}

let refresher = async () => {};

/** The page's refresh (wallet.js): approvals, sessions and the account, read again. */
export function setRefresher(refreshOnce) {
  refresher = refreshOnce;
}

let refreshing = null;
/** Refreshes the page; a refresh already running is joined, not repeated. */
export function refresh() {
  refreshing ??= refresher().finally(() => {
    refreshing = null;
  });
  return refreshing;
}
