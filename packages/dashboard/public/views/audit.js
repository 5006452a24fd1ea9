// Audit: the auth service's audit trail (who did what, with which client and outcome), filtered by
// user, event and time, a page at a time, and a check of its hash chain. The dashboard handler
// fetches it from the auth service server-side; entries never hold tokens or factor values.
import { dashboardApi, describeFailure, hintFor, SignedOut } from '../admin.js';
import { ApiError } from '../api.js';
import { h } from '../dom.js';
import { formatNumber } from '../format.js';
import { go, rerender } from '../navigation.js';
import { errorView, show } from '../view.js';

/** Entries per page; `#/audit?limit=N` (1 to 1000, the auth service's cap) shows another number. */
const PAGE_SIZE = 50;

/** The auth service's events (its README's table), for the event filter. */
const EVENTS = [
  'login',
  'mfa.setup',
  'mfa.factor',
  'attempts.locked',
  'attempts.unlocked',
  'mfa.device.added',
  'mfa.device.revoked',
  'session.revoked',
  'session.reused',
  'passkey.registered',
  'passkey.login',
];

/**
 * @typedef {{ outcome?: string, verifier?: string, clientId?: string, network?: string,
 *   address?: string, factor?: string, reason?: string, deviceId?: string, until?: number,
 *   subject?: string, by?: string, credential?: string, mode?: string }} AuditDetail
 * @typedef {{ seq: number, at: string, event: string, user?: string | null, detail: AuditDetail }} AuditEntry
 */

/** `YYYY-MM-DDTHH:MM` of a datetime-local field, read as UTC, to the ISO time the API takes. */
function utcInputToIso(value) {
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(value) ? `${value}:00Z` : value;
}

/** @param {string} iso */
function formatTime(iso) {
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
}

/** @param {AuditEntry} entry */
function clientText(entry) {
  const { verifier, clientId, network } = entry.detail;
  const parts = [];
  if (verifier) parts.push(`verifier ${verifier}`);
  if (clientId) parts.push(`client ${clientId.length > 16 ? `${clientId.slice(0, 12)}…` : clientId}`);
  if (network) parts.push(network);
  return parts.length ? parts.join(', ') : '–';
}

/** @param {AuditEntry} entry */
function otherDetails(entry) {
  const d = entry.detail;
  const parts = [];
  if (d.factor) parts.push(`factor ${d.factor}`);
  if (d.address) parts.push(`from ${d.address}`);
  if (d.deviceId) parts.push(`device ${d.deviceId}`);
  if (d.subject) parts.push(`${d.subject} locked`);
  if (typeof d.until === 'number') parts.push(`until ${formatTime(new Date(d.until).toISOString())}`);
  if (d.by) parts.push(`by ${d.by}`);
  if (d.mode) parts.push(d.mode === 'link' ? 'linked to the account' : 'new account');
  if (d.credential) parts.push(`passkey ${d.credential.slice(0, 12)}…`);
  return parts.join(', ') || '–';
}

/** @param {AuditEntry} entry */
function outcomeCell(entry) {
  const outcome = entry.detail.outcome;
  if (!outcome) return '–';
  return h(
    'span',
    {},
    h('span', { className: `badge outcome-${outcome}` }, outcome),
    entry.detail.reason ? ` ${entry.detail.reason}` : null,
  );
}

/** The filter form, filled from the route; submitting it goes to the first page of the new filter. */
function filterForm(params) {
  const user = h('input', { id: 'audit-user', name: 'user', type: 'text', autocomplete: 'off' });
  user.value = params.get('user') ?? '';
  const event = h(
    'select',
    { id: 'audit-event', name: 'event' },
    h('option', { value: '' }, 'Any event'),
    EVENTS.map((name) => h('option', { value: name }, name)),
  );
  event.value = params.get('event') ?? '';
  const since = h('input', { id: 'audit-since', name: 'since', type: 'datetime-local' });
  since.value = params.get('since') ?? '';
  const until = h('input', { id: 'audit-until', name: 'until', type: 'datetime-local' });
  until.value = params.get('until') ?? '';
  const form = h(
    'form',
    { className: 'card audit-filters', id: 'audit-filters', 'aria-label': 'Filter the audit trail' },
    h('div', { className: 'field' }, h('label', { for: 'audit-user' }, 'User id'), user),
    h('div', { className: 'field' }, h('label', { for: 'audit-event' }, 'Event'), event),
    h('div', { className: 'field' }, h('label', { for: 'audit-since' }, 'From (UTC)'), since),
    h('div', { className: 'field' }, h('label', { for: 'audit-until' }, 'Until (UTC)'), until),
    h(
      'div',
      { className: 'actions' },
      h('button', { type: 'submit' }, 'Apply filters'),
      h('a', { href: '#/audit', className: 'button secondary' }, 'Clear'),
    ),
  );
  form.addEventListener('submit', (submitted) => {
    submitted.preventDefault();
    const next = new URLSearchParams();
    if (user.value.trim()) next.set('user', user.value.trim());
    if (event.value) next.set('event', event.value);
    if (since.value) next.set('since', since.value);
    if (until.value) next.set('until', until.value);
    const query = next.toString();
    go(query ? `#/audit?${query}` : '#/audit');
  });
  return form;
}

/** The "Verify chain" button and the place its result is shown. */
function verifySection() {
  const result = h('div', { id: 'verify-result', role: 'status' });
  const button = h('button', { type: 'button', className: 'secondary', id: 'verify-chain' }, 'Verify chain');
  button.addEventListener('click', async () => {
    button.disabled = true;
    result.replaceChildren(h('p', {}, 'Checking the chain…'));
    try {
      /** @type {{ entries: number, broken?: { seq: number, reason: string } }} */
      const answer = await dashboardApi('audit/verify');
      result.replaceChildren(
        answer.broken
          ? h(
              'p',
              { className: 'notice error', 'data-verdict': 'broken', 'data-seq': answer.broken.seq },
              `The chain is broken at entry ${answer.broken.seq}: ${answer.broken.reason}.`,
            )
          : h(
              'p',
              { className: 'notice success', 'data-verdict': 'intact' },
              `The chain is intact: ${formatNumber(answer.entries)} entries checked from the first.`,
            ),
      );
    } catch (error) {
      if (error instanceof SignedOut) return;
      result.replaceChildren(
        h(
          'div',
          { className: 'notice error' },
          h('p', {}, describeFailure(error)),
          h('p', {}, hintFor(error)),
        ),
      );
    } finally {
      button.disabled = false;
    }
  });
  return h(
    'section',
    { className: 'card', 'aria-labelledby': 'verify-title' },
    h('h2', { id: 'verify-title' }, 'Integrity'),
    h(
      'p',
      { className: 'muted' },
      'Each entry is chained to the one before by hash: an edited or deleted entry breaks the chain there.',
    ),
    button,
    result,
  );
}

/** @param {AuditEntry[]} entries */
function entriesTable(entries) {
  if (entries.length === 0)
    return h('p', { className: 'empty', id: 'audit-table' }, 'No audit entries match.');
  return h(
    'div',
    { className: 'table-wrap' },
    h(
      'table',
      { id: 'audit-table' },
      h('caption', {}, 'Audit entries, oldest first'),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['#', 'Time', 'Event', 'User', 'Client / verifier', 'Outcome', 'Details'].map((label) =>
            h('th', { scope: 'col' }, label),
          ),
        ),
      ),
      h(
        'tbody',
        {},
        entries.map((entry) =>
          h(
            'tr',
            { 'data-seq': entry.seq, 'data-event': entry.event },
            h('th', { scope: 'row', className: 'num' }, String(entry.seq)),
            h('td', {}, formatTime(entry.at)),
            h('td', {}, h('code', {}, entry.event)),
            h(
              'td',
              { className: 'audit-user' },
              entry.user ? h('code', { className: 'user-id' }, entry.user) : '–',
            ),
            h('td', {}, clientText(entry)),
            h('td', {}, outcomeCell(entry)),
            h('td', {}, otherDetails(entry)),
          ),
        ),
      ),
    ),
  );
}

/** @param {number} ticket @param {URLSearchParams} params */
export async function auditView(ticket, params) {
  const asked = Number(params.get('limit'));
  const limit = Number.isInteger(asked) && asked >= 1 && asked <= 1000 ? asked : PAGE_SIZE;
  const query = new URLSearchParams({ limit: String(limit) });
  for (const name of ['user', 'event']) {
    const value = params.get(name);
    if (value) query.set(name, value);
  }
  for (const name of ['since', 'until']) {
    const value = params.get(name);
    if (value) query.set(name, utcInputToIso(value));
  }
  const after = params.get('after');
  if (after) query.set('after', after);
  /** @type {AuditEntry[]} */
  let entries;
  try {
    entries = (await dashboardApi(`audit?${query}`)).entries;
  } catch (error) {
    if (error instanceof ApiError && error.code === 'AUTH_NOT_CONFIGURED') {
      return show(
        ticket,
        'Audit',
        h('h1', {}, 'Audit trail'),
        h(
          'p',
          { className: 'notice', id: 'audit-off', role: 'status' },
          'No auth service is connected to this dashboard, so there is no audit trail to show. ',
          'Run the auth service with an adminToken and give it to the dashboard (portico dev does).',
        ),
      );
    }
    if (error instanceof ApiError && error.status === 400) {
      return show(
        ticket,
        'Audit',
        h('h1', {}, 'Audit trail'),
        h('p', { className: 'notice error', role: 'alert', id: 'audit-filter-error' }, error.message),
        filterForm(params),
      );
    }
    return errorView(ticket, error, () => rerender());
  }
  const next = new URLSearchParams(params);
  const last = entries.at(-1);
  if (last) next.set('after', String(last.seq));
  const first = new URLSearchParams(params);
  first.delete('after');
  const firstQuery = first.toString();
  show(
    ticket,
    'Audit',
    h(
      'div',
      { className: 'view-head' },
      h('h1', {}, 'Audit trail'),
      h('button', { type: 'button', className: 'secondary', onclick: () => rerender() }, 'Refresh'),
    ),
    h(
      'p',
      { className: 'muted' },
      'Security events of the auth service: logins, second factors, lockouts, devices, logouts. ',
      'Entries name the user by the service’s hashed id and never hold tokens, keys or typed factors.',
    ),
    filterForm(params),
    verifySection(),
    h(
      'section',
      // The route drawn here, so a test (or a person reading the DOM) knows which filter it shows.
      { 'aria-labelledby': 'entries-title', id: 'audit-entries', 'data-route': location.hash },
      h('h2', { id: 'entries-title' }, 'Entries'),
      h(
        'p',
        { id: 'audit-range' },
        last ? `Entries ${entries[0].seq} to ${last.seq}${after ? ` (after entry ${after})` : ''}.` : '',
      ),
      entriesTable(entries),
      h(
        'nav',
        { className: 'actions', 'aria-label': 'Audit pages' },
        after
          ? h(
              'a',
              { href: firstQuery ? `#/audit?${firstQuery}` : '#/audit', className: 'button secondary' },
              'First page',
            )
          : null,
        entries.length === limit
          ? h('a', { href: `#/audit?${next}`, className: 'button secondary', id: 'audit-next' }, 'Next page')
          : null,
      ),
    ),
  );
}
