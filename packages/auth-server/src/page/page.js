// What every screen of the login page uses: element lookup, switching sections, the service's
// JSON API, the error screen, the base64url JSON of result fragments, URLs the page may show.
import { t } from './strings.js';

export const $ = (id) => document.getElementById(id);
/** A form field of the page by id. */
export const field = (id) => /** @type {HTMLInputElement} */ (document.getElementById(id));

export function show(id) {
  for (const section of [
    'loading',
    'providers',
    'dev-form',
    'passkey',
    'mfa-setup',
    'mfa-phrase',
    'mfa-recover',
    'error',
  ])
    $(section).hidden = section !== id;
}

export async function post(path, body) {
  const res = await fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const data = await res.json().catch(() => ({}));
  // Error answers are `{ error: { code, message } }` (docs/http-errors.md).
  if (!res.ok)
    throw Object.assign(new Error(data.error?.message ?? `HTTP ${res.status}`), { code: data.error?.code });
  return data;
}

export function fail(message) {
  $('error-title').textContent = t('error');
  $('error-text').textContent = message;
  $('logo').classList.remove('loading');
  show('error');
}

export function decodeB64(raw) {
  const bin = atob(raw.replace(/-/g, '+').replace(/_/g, '/'));
  return JSON.parse(new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0))));
}

export function encodeB64(value) {
  let bin = '';
  for (const b of new TextEncoder().encode(JSON.stringify(value))) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

// What the page's CSP lets it show: logos over https: or as data:image/ URLs; links over http(s).
export function safeUrl(value, kind) {
  try {
    const url = new URL(value);
    if (kind === 'image') {
      return url.protocol === 'https:' || /^data:image\//.test(url.href) ? url.href : '';
    }
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : '';
  } catch {
    return '';
  }
}
