// The requests waiting for a person (connections and signatures) and the connected sites.
import { networkName, shortAddress } from './format.js';
import { $, announce, call, el, refresh, requestsEl, sessionsEl } from './page.js';

const rendered = new Map();

function detailsList(rows) {
  const list = el('dl', { className: 'details' });
  for (const row of rows) {
    const value =
      row.format === 'code'
        ? el('dd', {}, [el('code', { textContent: row.value })])
        : el('dd', { className: 'text', textContent: row.value });
    list.append(el('dt', { textContent: row.label }), value);
  }
  return list;
}

/** What the person should not approve blind, above the details (said to screen readers too). */
function warningsOf(details) {
  if (!details.warnings?.length) return [];
  return [
    el('div', { className: 'warnings', role: 'alert' }, [
      el('p', { className: 'warnings-title', textContent: 'Look closely before you approve' }),
      el(
        'ul',
        {},
        details.warnings.map((text) => el('li', { textContent: text })),
      ),
    ]),
  ];
}

function actions(request, approve) {
  const approveButton = el('button', { type: 'button', className: 'approve', textContent: 'Approve' });
  const rejectButton = el('button', { type: 'button', className: 'reject', textContent: 'Reject' });
  approveButton.onclick = () => answer(request.id, approve());
  rejectButton.onclick = () => answer(request.id, { approved: false });
  return el('div', { className: 'actions' }, [approveButton, rejectButton]);
}

function renderConnection(request) {
  const scopeBoxes = Object.entries(request.scopes).map(([scope, value]) =>
    el('label', {}, [
      el('input', { type: 'checkbox', name: 'scope', value: scope, checked: true }),
      ' ',
      networkName(scope) === scope ? el('code', { textContent: scope }) : `${networkName(scope)} `,
      ...(networkName(scope) === scope ? [] : [el('code', { textContent: scope })]),
      ` — ${value.methods.length} methods, ${value.notifications.length} notifications`,
    ]),
  );
  const accountBoxes = [];
  for (const [namespace, addresses] of Object.entries(request.accounts)) {
    const preselected = request.preselected[namespace] || [];
    addresses.forEach((address, index) => {
      const checked = preselected.length ? preselected.includes(address) : index === 0;
      const input = el('input', { type: 'checkbox', name: 'account', value: address, checked });
      input.dataset.namespace = namespace;
      accountBoxes.push(
        el('label', {}, [
          input,
          ' ',
          el('code', { textContent: shortAddress(address), title: `${namespace}:${address}` }),
          el('span', { className: 'visually-hidden', textContent: ` ${namespace}:${address}` }),
        ]),
      );
    });
  }
  const section = el(
    'section',
    { className: 'request', 'aria-label': `Connection request from ${request.origin}` },
    [
      el('h3', { textContent: 'Connection request' }),
      el('p', {}, ['From ', el('span', { className: 'origin', textContent: request.origin })]),
      ...(request.keeps?.length
        ? [
            el('p', { className: 'keeps' }, [
              "Adds to this site's connection, which keeps ",
              el('code', { textContent: request.keeps.join(', ') }),
              ' whatever you answer.',
            ]),
          ]
        : []),
      el('fieldset', {}, [el('legend', { textContent: 'Networks' }), ...scopeBoxes]),
      el('fieldset', {}, [
        el('legend', { textContent: 'Accounts' }),
        ...(accountBoxes.length
          ? accountBoxes
          : [el('p', { className: 'empty', textContent: 'No accounts to share.' })]),
      ]),
    ],
  );
  section.append(
    actions(request, () => {
      const scopes = [...section.querySelectorAll('input[name=scope]:checked')].map((input) => input.value);
      const accounts = {};
      for (const input of section.querySelectorAll('input[name=account]:checked')) {
        accounts[input.dataset.namespace] ||= [];
        accounts[input.dataset.namespace].push(input.value);
      }
      return { approved: true, scopes, accounts };
    }),
  );
  return section;
}

function renderSignature(request) {
  const { details } = request;
  const rows = [
    { label: 'Origin', value: request.origin, format: 'text' },
    {
      label: 'Network',
      value:
        networkName(request.scope) === request.scope
          ? request.scope
          : `${networkName(request.scope)} (${request.scope})`,
      format: 'text',
    },
    { label: 'Account', value: request.account, format: 'code' },
    { label: 'Method', value: request.method, format: 'code' },
    ...details.fields,
  ];
  const section = el(
    'section',
    {
      className: 'request signature',
      'aria-label': `${details.title} from ${request.origin}`,
      'data-method': request.method,
    },
    [
      el('h3', { textContent: details.title }),
      el('p', { className: 'from' }, [
        'From ',
        el('span', { className: 'origin', textContent: request.origin }),
      ]),
      el('p', { className: 'summary', textContent: details.summary }),
      ...warningsOf(details),
      detailsList(rows),
      el('p', {
        className: 'expiry',
        textContent: `Expires at ${new Date(request.expiresAt).toLocaleTimeString()} if not answered.`,
      }),
      actions(request, () => ({ approved: true })),
    ],
  );
  return section;
}

function renderRequest(request) {
  const section = request.kind === 'signature' ? renderSignature(request) : renderConnection(request);
  section.dataset.requestId = request.id;
  section.dataset.origin = request.origin;
  section.dataset.kind = request.kind;
  return section;
}

async function answer(id, decision) {
  let text;
  try {
    await call('POST', `/api/approvals/${encodeURIComponent(id)}`, decision);
    text = decision.approved ? 'Approved.' : 'Rejected.';
  } catch (error) {
    text = `Could not answer: ${error.message}`;
  }
  rendered.get(id)?.remove();
  rendered.delete(id);
  // The answered request is gone: keep keyboard focus in the requests, not on the page's body.
  const next = /** @type {HTMLButtonElement | null} */ (requestsEl.querySelector('section.request button'));
  if (next) next.focus();
  else $('requests-heading').focus();
  announce(text);
  await refresh();
}

async function revoke(origin) {
  try {
    await call('POST', '/api/sessions/revoke', { origin });
    announce(`Disconnected ${origin}.`);
  } catch (error) {
    announce(`Could not disconnect ${origin}: ${error.message}`);
  }
  await refresh();
}

export function renderSessions(sessions) {
  if (sessions.length === 0) {
    sessionsEl.replaceChildren(el('p', { className: 'empty', textContent: 'None.' }));
    return;
  }
  sessionsEl.replaceChildren(
    ...sessions.map((s) => {
      const button = el('button', {
        type: 'button',
        className: 'revoke',
        textContent: 'Disconnect',
        'aria-label': `Disconnect ${s.origin}`,
      });
      button.onclick = () => revoke(s.origin);
      const scopes = Object.entries(s.session.sessionScopes);
      const node = el('div', { className: 'session' }, [
        el('span', { className: 'origin', textContent: s.origin }),
        el(
          'ul',
          { className: 'grants', 'aria-label': `What ${s.origin} may use` },
          scopes.map(([scope, granted]) => {
            const accounts = granted.accounts?.length ?? 0;
            const what = accounts ? `${accounts} account${accounts === 1 ? '' : 's'}, ` : '';
            return el('li', {}, [
              `${networkName(scope)}: ${what}${granted.methods?.length ?? 0} methods `,
              el('code', { textContent: scope }),
            ]);
          }),
        ),
        button,
      ]);
      node.dataset.origin = s.origin;
      return node;
    }),
  );
}
/** Shows the requests in `approvals` not shown yet (announcing each) and drops the ones answered. */
export function updateRequests(approvals) {
  const ids = new Set(approvals.map((a) => a.id));
  for (const [id, node] of rendered) {
    if (ids.has(id)) continue;
    node.remove();
    rendered.delete(id);
  }
  for (const request of approvals) {
    if (rendered.has(request.id)) continue;
    const node = renderRequest(request);
    rendered.set(request.id, node);
    requestsEl.append(node);
    const what = request.kind === 'signature' ? request.details.title : 'Connection request';
    announce(`New ${what.toLowerCase()} from ${request.origin}.`);
  }
  requestsEl.querySelector('.empty')?.toggleAttribute('hidden', rendered.size > 0);
}

const expiredShown = new Set();

/** Says which signing requests expired unanswered (the dapp was told), newest first, once each. */
export function updateExpired(expired) {
  const list = $('expired');
  for (const item of [...expired].reverse()) {
    if (expiredShown.has(item.id)) continue;
    expiredShown.add(item.id);
    const at = new Date(item.expiredAt).toLocaleTimeString();
    const text = `${item.title} from ${item.origin} expired at ${at}: nobody answered it in time, and the site was told.`;
    list.prepend(el('li', { className: 'expired', textContent: text }));
    announce(text);
  }
  list.toggleAttribute('hidden', list.children.length === 0);
}

const OUTCOMES = {
  approved: 'Approved',
  rejected: 'Rejected',
  expired: 'Expired unanswered',
  'account-removed': 'Withdrawn (the account left the wallet)',
};

/** What was signed, rejected or missed, newest first. */
export function renderHistory(items) {
  $('history').replaceChildren(
    ...items.map((item) =>
      el('li', { className: `history-item ${item.outcome}` }, [
        el('span', { className: 'outcome', textContent: OUTCOMES[item.outcome] || item.outcome }),
        ` ${item.summary} — `,
        el('span', { className: 'origin', textContent: item.origin }),
        `, ${networkName(item.scope)}, `,
        el('time', { dateTime: item.at, textContent: new Date(item.at).toLocaleTimeString() }),
      ]),
    ),
  );
  $('history-empty').hidden = items.length > 0;
}
