// The passkey confirmation page (`GET /confirm`): an app whose sign-in passed only the first factor
// (export policy `user` or `off`) confirms the account's MFA passkey here, on the service's origin
// (the passkey's relying party). The app's library opens it with a one-time ticket in the fragment
// (never sent to a server, never in a Referer); the page trades it once for its own token and a
// challenge bound to that sign-in, kept in this tab's sessionStorage so a reload keeps the page.
// The service marks the sign-in when the answer is right; the app learns it from the service.
import { setConfirmLanguage, tc } from './confirm-strings.js';
import { $, post } from './page.js';
import { authenticationJson, requestOptions } from './webauthn.js';

const TOKEN = 'portico-confirm-token';
const EXPIRED = new Set(['CONFIRM_PAGE_EXPIRED', 'CONFIRM_TICKET_INVALID']);

/** The challenge the next click answers (a refused answer used it up: a new one is asked for). */
let challenge;

function showOnly(id) {
  for (const section of ['loading', 'confirm', 'message']) $(section).hidden = section !== id;
}

function message(key) {
  $('message-text').textContent = tc(key);
  showOnly('message');
}

function failed(err) {
  if (EXPIRED.has(err.code)) {
    sessionStorage.removeItem(TOKEN);
    return message('expired');
  }
  $('confirm-error').textContent = err.message;
  $('confirm-error').hidden = false;
}

async function answer() {
  const token = sessionStorage.getItem(TOKEN);
  $('confirm-error').hidden = true;
  const button = /** @type {HTMLButtonElement} */ ($('confirm-passkey'));
  button.disabled = true;
  try {
    challenge ??= await post('/api/mfa/confirm/challenge', { token });
    let credential;
    try {
      credential = /** @type {PublicKeyCredential | null} */ (
        await navigator.credentials.get({ publicKey: requestOptions(challenge.options) })
      );
    } catch (err) {
      // Cancelled or timed out in the browser: the challenge is still good for another try.
      throw new Error(err.name === 'NotAllowedError' ? tc('cancelled') : err.message);
    }
    if (!credential) throw new Error(tc('cancelled'));
    const { challengeId } = challenge;
    challenge = undefined;
    await post('/api/mfa/confirm/answer', {
      token,
      passkeyAssertion: JSON.stringify({ challengeId, response: authenticationJson(credential) }),
    });
    sessionStorage.removeItem(TOKEN);
    message('done');
    // A window the library opened may close itself; the library closes it too once it sees the mark.
    window.close();
  } catch (err) {
    failed(err);
  } finally {
    button.disabled = false;
  }
}

async function start() {
  const query = new URLSearchParams(location.search);
  document.documentElement.lang = setConfirmLanguage(query.get('lang') ?? navigator.language);
  document.title = tc('title');
  $('title').textContent = tc('title');
  $('confirm-note').textContent = tc('note');
  $('confirm-passkey').textContent = tc('use');
  $('powered').textContent = tc('powered');
  $('confirm-passkey').addEventListener('click', answer);
  const ticket = new URLSearchParams(location.hash.slice(1)).get('ticket');
  try {
    if (ticket) {
      // Out of the address bar and history at once; the ticket works once anyway.
      history.replaceState(null, '', location.pathname + location.search);
      const opened = await post('/api/mfa/confirm/open', { ticket });
      sessionStorage.setItem(TOKEN, opened.token);
      challenge = { challengeId: opened.challengeId, options: opened.options };
    }
    if (!sessionStorage.getItem(TOKEN)) return message('expired');
    if (!window.PublicKeyCredential) return message('unsupported');
    showOnly('confirm');
  } catch (err) {
    showOnly('confirm');
    failed(err);
  }
}

start();
