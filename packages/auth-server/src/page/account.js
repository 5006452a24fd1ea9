// The account page (docs/account-page.md): the user's signed-in devices, passkeys, MFA passkey and MFA devices. The app's
// library opens it with a one-time ticket in the fragment (never sent to a server, never in a
// Referer); the page trades it once for its own page token, kept in this tab's sessionStorage on
// the service's origin, so a reload keeps the page and the app's origin never sees the token.
import { setAccountLanguage, ta } from './account-strings.js';
import { $, field, post } from './page.js';

const TOKEN = 'portico-account-token';
const EXPIRED = new Set(['ACCOUNT_PAGE_EXPIRED', 'ACCOUNT_TICKET_INVALID']);

/** @typedef {{ id: string, clientId: string, createdAt: number, lastUsedAt: number, device?: string, current: boolean }} Session */
/** @typedef {{ id: string, createdAt: number, lastUsedAt: number, transports: string[] }} Passkey */
/** @typedef {{ id: string, createdAt: number, lastUsedAt?: number, transports: string[] }} MfaPasskey */
/** @typedef {{ id: string, addedAt?: number, revoked: boolean, revokedAt?: number }} MfaDevice */
/** @typedef {{ sessions: Session[], passkeys: Passkey[], mfaPasskeys: MfaPasskey[], mfaDevices: MfaDevice[], passkeyOnly: boolean, export: 'offered' | 'stale' | 'factor' | 'mfa' | 'off', exportFactors?: string[] }} State */

const EXPORT_NOTES = {
  offered: 'exportOffered',
  stale: 'exportStale',
  factor: 'exportFactor',
  mfa: 'exportMfa',
  off: 'exportOff',
};
/** The typed factors an MFA account's export takes (their body fields), and their names. */
const FACTOR_NAMES = {
  password: 'factorPassword',
  backupPhrase: 'factorBackupPhrase',
  authenticatorCode: 'factorAuthenticatorCode',
};
/** Refusals the page explains in its own words. */
const REFUSALS = {
  LAST_PASSKEY: 'lastPasskey',
  MFA_FACTOR_INVALID: 'wrongFactor',
  TOO_MANY_ATTEMPTS: 'tooManyAttempts',
};

/** The factor chosen for the export (its body field), '' when none is asked for. */
let exportFactor = '';

let lang = 'en';

function showOnly(id) {
  for (const section of ['loading', 'account', 'message']) $(section).hidden = section !== id;
}

function message(key) {
  $('message-text').textContent = ta(key);
  showOnly('message');
}

const when = (ms) => new Date(ms).toLocaleString(lang);

/** One list entry: a heading line and a detail line. */
function entry(id, title, detail) {
  const li = document.createElement('li');
  li.dataset.id = id;
  const name = document.createElement('strong');
  name.textContent = title;
  const more = document.createElement('span');
  more.className = 'note';
  more.textContent = detail;
  li.append(name, more);
  return li;
}

/** One list entry with a button. */
function item(id, title, detail, buttonText, buttonClass) {
  const li = entry(id, title, detail);
  const button = document.createElement('button');
  button.type = 'button';
  button.className = `link ${buttonClass}`;
  button.textContent = buttonText;
  li.append(button);
  return { li, button };
}

/** @param {State} state */
function render(state) {
  const sessions = $('sessions');
  sessions.replaceChildren();
  for (const s of state.sessions) {
    const device = s.device ?? ta('unnamed');
    const app = ta('app', { app: s.clientId.length > 12 ? `${s.clientId.slice(0, 10)}…` : s.clientId });
    const title = s.current ? `${device} (${ta('thisDevice')})` : device;
    const detail = `${app} · ${ta('created', { date: when(s.createdAt) })}, ${ta('renewed', { date: when(s.lastUsedAt) })}`;
    const { li, button } = item(s.id, title, detail, ta('end'), 'end');
    if (s.current) li.classList.add('current');
    button.addEventListener('click', () => act('/api/account/sessions/end', { id: s.id }));
    sessions.append(li);
  }
  const passkeys = $('passkeys');
  passkeys.replaceChildren();
  for (const p of state.passkeys) {
    let detail = `${ta('passkeyCreated', { date: when(p.createdAt) })}, ${ta('lastUsed', { date: when(p.lastUsedAt) })}`;
    if (p.transports.length) detail += `, ${ta('transports', { list: p.transports.join(', ') })}`;
    const { li, button } = item(
      p.id,
      `${ta('passkeys')} ${p.id.slice(0, 8)}…`,
      detail,
      ta('remove'),
      'remove',
    );
    button.addEventListener('click', () => act('/api/account/passkeys/remove', { id: p.id }));
    passkeys.append(li);
  }
  $('no-passkeys').hidden = state.passkeys.length > 0;
  // The MFA passkey holds a share of the key: listed, not removable here.
  const mfaPasskeys = $('mfa-passkeys');
  mfaPasskeys.replaceChildren();
  for (const p of state.mfaPasskeys ?? []) {
    let detail = ta('passkeyCreated', { date: when(p.createdAt) });
    detail += `, ${p.lastUsedAt ? ta('lastUsed', { date: when(p.lastUsedAt) }) : ta('notUsedYet')}`;
    if (p.transports.length) detail += `, ${ta('transports', { list: p.transports.join(', ') })}`;
    mfaPasskeys.append(entry(p.id, `${ta('passkeys')} ${p.id.slice(0, 8)}…`, detail));
  }
  $('mfa-passkeys-part').hidden = mfaPasskeys.childElementCount === 0;
  renderDevices(state.mfaDevices ?? []);
  renderExport(state);
  showOnly('account');
}

/**
 * The export part: the note, and the button; for an MFA account (`factor`) a field for one of its
 * typed factors (a choice when it has several). Once the key is shown, nothing more is offered.
 * @param {State} state
 */
function renderExport(state) {
  const shown = !$('export-key').hidden;
  $('export-note').textContent = ta(EXPORT_NOTES[state.export] ?? 'exportOff');
  const factors =
    state.export === 'factor' && !shown ? (state.exportFactors ?? []).filter((f) => f in FACTOR_NAMES) : [];
  if (!factors.includes(exportFactor)) chooseFactor(factors[0] ?? '');
  const choice = $('export-choice');
  choice.replaceChildren();
  for (const f of factors.length > 1 ? factors : []) {
    const button = document.createElement('button');
    button.type = 'button';
    button.dataset.factor = f;
    button.textContent = ta(FACTOR_NAMES[f]);
    if (f === exportFactor) button.classList.add('selected');
    button.addEventListener('click', () => {
      chooseFactor(f);
      renderExport(state);
    });
    choice.append(button);
  }
  choice.hidden = factors.length < 2;
  const offered = state.export === 'offered' || (state.export === 'factor' && exportFactor !== '');
  $('export-show').hidden = shown || !offered;
}

/** Asks for factor `f` (a body field; '' for none), emptying what was typed for another. */
function chooseFactor(f) {
  const input = field('export-factor');
  if (f !== exportFactor) input.value = '';
  exportFactor = f;
  input.hidden = $('export-factor-label').hidden = f === '';
  if (f === '') return;
  $('export-factor-label').textContent = ta(FACTOR_NAMES[f]);
  input.type = f === 'password' ? 'password' : 'text';
  if (f === 'authenticatorCode') input.inputMode = 'numeric';
  else input.removeAttribute('inputmode');
  input.autocomplete = f === 'authenticatorCode' ? 'one-time-code' : 'off';
}

/**
 * The MFA device shares: the id `revokeDevice` takes, when added, whether revoked. A live one can
 * be revoked (its wrapping key is deleted, so the share in that device's storage opens no more).
 * @param {MfaDevice[]} devices
 */
function renderDevices(devices) {
  const list = $('mfa-devices');
  list.replaceChildren();
  for (const d of devices) {
    let detail = d.addedAt ? ta('deviceAdded', { date: when(d.addedAt) }) : ta('addedUnknown');
    if (d.revoked)
      detail += `, ${d.revokedAt ? ta('deviceRevoked', { date: when(d.revokedAt) }) : ta('revoked')}`;
    const title = ta('mfaDevice', { id: `${d.id.slice(0, 8)}…` });
    if (d.revoked) {
      const li = entry(d.id, title, detail);
      li.classList.add('revoked');
      list.append(li);
      continue;
    }
    const { li, button } = item(d.id, title, detail, ta('revoke'), 'revoke');
    button.addEventListener('click', () => act('/api/account/devices/revoke', { deviceId: d.id }));
    list.append(li);
  }
  $('mfa-devices-part').hidden = devices.length === 0;
}

function failed(err) {
  if (EXPIRED.has(err.code)) {
    sessionStorage.removeItem(TOKEN);
    return message('expired');
  }
  const note = $('account-error');
  const own = Object.hasOwn(REFUSALS, err.code) ? REFUSALS[err.code] : undefined;
  note.textContent = own ? ta(own) : `${ta('error')}: ${err.message}`;
  note.hidden = false;
  if ($('account').hidden) showOnly('account');
}

async function act(path, body) {
  $('account-error').hidden = true;
  try {
    const answer = await post(path, { token: sessionStorage.getItem(TOKEN), ...body });
    if (answer.signedOut) {
      sessionStorage.removeItem(TOKEN);
      return message('signedOut');
    }
    render(answer);
  } catch (err) {
    failed(err);
  }
}

/**
 * Shows the key on this page only (the service's origin); the app's window never gets it. An MFA
 * account's export carries the typed factor, emptied from the field whatever the answer.
 * @param {Event} event
 */
async function showKey(event) {
  event.preventDefault();
  $('account-error').hidden = true;
  /** @type {Record<string, string | null>} */
  const body = { token: sessionStorage.getItem(TOKEN) };
  if (exportFactor) body[exportFactor] = field('export-factor').value;
  field('export-factor').value = '';
  try {
    const { privKey } = await post('/api/account/export', body);
    $('export-key').textContent = privKey;
    $('export-key').hidden = false;
    $('export-show').hidden = true;
    $('export-choice').hidden = true;
    chooseFactor('');
  } catch (err) {
    failed(err);
  }
}

async function start() {
  const query = new URLSearchParams(location.search);
  lang = setAccountLanguage(query.get('lang') ?? navigator.language);
  document.documentElement.lang = lang;
  document.title = ta('title');
  $('title').textContent = ta('title');
  $('sessions-title').textContent = ta('sessions');
  $('passkeys-title').textContent = ta('passkeys');
  $('no-passkeys').textContent = ta('noPasskeys');
  $('mfa-passkeys-title').textContent = ta('mfaPasskeys');
  $('mfa-passkeys-note').textContent = ta('mfaPasskeysNote');
  $('mfa-devices-title').textContent = ta('mfaDevices');
  $('mfa-devices-note').textContent = ta('mfaDevicesNote');
  $('powered').textContent = ta('powered');
  $('export-title').textContent = ta('exportTitle');
  $('export-show').textContent = ta('exportShow');
  $('export-form').addEventListener('submit', showKey);
  const ticket = new URLSearchParams(location.hash.slice(1)).get('ticket');
  try {
    if (ticket) {
      // Out of the address bar and history at once; the ticket works once anyway.
      history.replaceState(null, '', location.pathname + location.search);
      const { token } = await post('/api/account/open', { ticket });
      sessionStorage.setItem(TOKEN, token);
    }
    const token = sessionStorage.getItem(TOKEN);
    if (!token) return message('expired');
    render(await post('/api/account/state', { token }));
  } catch (err) {
    failed(err);
  }
}

start();
