// The wallet's page: the account (log in, log out, dev accounts, top up), the requests waiting for
// a person (connections and signatures) and the connected sites. Plain DOM, no build step. The
// access token lives in the URL fragment (never sent to a server) and goes back as a bearer header,
// so a dapp's page cannot answer its own requests. Everything a dapp sent is shown as text.
(() => {
  const token = new URLSearchParams(location.hash.slice(1)).get('token') || '';
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const $ = (id) => document.getElementById(id);
  const statusEl = $('status');
  const requestsEl = $('requests');
  const sessionsEl = $('sessions');
  const accountError = $('account-error');
  const rendered = new Map();
  let account = null;
  let accountKey = '';
  let balances = [];
  let loginPopup = null;

  const NAMESPACE_NAMES = { eip155: 'Ethereum (eip155)', solana: 'Solana' };

  function el(tag, props, children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(props || {})) {
      if (key.startsWith('aria-') || key.startsWith('data-') || key === 'role') node.setAttribute(key, value);
      else node[key] = value;
    }
    for (const child of children || []) node.append(child);
    return node;
  }

  function announce(text) {
    statusEl.textContent = text;
  }

  function showError(text) {
    accountError.textContent = text || '';
    accountError.hidden = !text;
  }

  async function call(method, path, body) {
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
    if (!response.ok) throw new Error(json?.error || `HTTP ${response.status}`);
    return json;
  }

  // Account ------------------------------------------------------------------------------------

  function summaryText(view) {
    if (view.source === 'login') {
      const who = view.user.email || view.user.name || view.user.verifierId;
      return `Logged in as ${who}.`;
    }
    if (view.source === 'dev')
      return 'Using the dev accounts (development keys: never hold real funds with them).';
    return view.login.available
      ? 'Locked: log in to use your accounts, or use the dev accounts.'
      : 'No accounts: use the dev accounts.';
  }

  function balanceText(address) {
    const found = balances.filter((b) => b.address === address);
    if (found.length === 0) return '';
    return found.map((b) => `${b.balance ?? 'balance unavailable'} on ${b.chainId}`).join(', ');
  }

  function renderAccount(view) {
    $('account-summary').textContent = view.login.pending ? 'Logging in…' : summaryText(view);
    $('login').hidden = !view.login.available || view.source === 'login';
    $('switch-user').hidden = !view.login.available || view.source !== 'login';
    $('logout').hidden = view.source !== 'login';
    $('dev-accounts').hidden = view.source === 'dev';
    const held = Object.entries(view.accounts).filter(([, addresses]) => addresses.length > 0);
    $('refresh-balances').hidden = held.length === 0;
    showError(view.login.error ? `Login failed: ${view.login.error}` : '');
    const lists = held.map(([namespace, addresses]) => {
      const headingId = `accounts-${namespace}`;
      const items = addresses.map((address) => {
        const children = [
          el('code', { className: 'address', textContent: address }),
          el('span', { className: 'balance', 'data-address': address, textContent: balanceText(address) }),
        ];
        if (view.canFund) {
          const button = el('button', {
            type: 'button',
            className: 'top-up',
            textContent: 'Top up',
            'aria-label': `Top up ${address}`,
          });
          button.onclick = () => topUp(button, namespace, address);
          children.push(button);
        }
        return el('li', { 'data-namespace': namespace, 'data-address': address }, children);
      });
      return el('div', {}, [
        el('h3', { id: headingId, textContent: `${NAMESPACE_NAMES[namespace] || namespace} accounts` }),
        el('ul', { className: 'accounts', 'aria-labelledby': headingId }, items),
      ]);
    });
    $('account-lists').replaceChildren(...lists);
  }

  function updateBalanceTexts() {
    for (const span of document.querySelectorAll('.balance'))
      span.textContent = balanceText(span.dataset.address);
  }

  async function refreshBalances() {
    try {
      balances = await call('GET', '/api/balances');
    } catch {
      balances = [];
    }
    updateBalanceTexts();
  }

  async function topUp(button, namespace, address) {
    button.disabled = true;
    button.setAttribute('aria-busy', 'true');
    try {
      await call('POST', '/api/fund', { namespace, address });
      await refreshBalances();
      announce(`Topped up ${address}: ${balanceText(address)}.`);
    } catch (error) {
      announce(`Top up of ${address} failed: ${error.message}`);
    } finally {
      button.disabled = false;
      button.removeAttribute('aria-busy');
    }
  }

  async function startLogin() {
    showError('');
    // Opened while handling the click, so popup blockers let it through; pointed at the login page
    // once the wallet has parked the login.
    const popup = window.open('about:blank', 'portico-wallet-login', 'popup,width=480,height=720');
    let answer;
    try {
      answer = await call('POST', '/api/login', {});
    } catch (error) {
      popup?.close();
      showError(`Login failed: ${error.message}`);
      return;
    }
    if (answer.loginUrl) {
      if (popup) {
        popup.opener = null;
        popup.location.href = answer.loginUrl;
        loginPopup = popup;
        announce('Log in in the window that opened.');
      } else {
        const link = el('a', {
          href: answer.loginUrl,
          target: '_blank',
          rel: 'noopener',
          textContent: 'open the login page',
        });
        accountError.replaceChildren('The login window was blocked: ', link, '.');
        accountError.hidden = false;
      }
    }
    await refresh();
  }

  /** The person closed the login window before finishing: the wallet stops waiting. */
  async function watchLoginPopup() {
    if (!loginPopup?.closed) return;
    loginPopup = null;
    await new Promise((resolve) => setTimeout(resolve, 1000));
    if (account?.login.pending) await call('POST', '/api/login/cancel', {}).catch(() => {});
  }

  async function accountAction(path, done) {
    showError('');
    try {
      await call('POST', path, {});
      announce(done);
    } catch (error) {
      showError(error.message);
    }
    await refresh();
  }

  $('login').onclick = startLogin;
  $('switch-user').onclick = startLogin;
  $('logout').onclick = () => accountAction('/api/logout', 'Logged out.');
  $('dev-accounts').onclick = () => accountAction('/api/accounts/dev', 'Using the dev accounts.');
  $('refresh-balances').onclick = async () => {
    await refreshBalances();
    announce('Balances refreshed.');
  };

  // Requests -----------------------------------------------------------------------------------

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
        el('code', { textContent: scope }),
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
          el('label', {}, [input, ' ', el('code', { textContent: `${namespace}:${address}` })]),
        );
      });
    }
    const section = el(
      'section',
      { className: 'request', 'aria-label': `Connection request from ${request.origin}` },
      [
        el('h3', { textContent: 'Connection request' }),
        el('p', {}, ['From ', el('span', { className: 'origin', textContent: request.origin })]),
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
      { label: 'Network', value: request.scope, format: 'code' },
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
        el('p', { className: 'summary', textContent: details.summary }),
        detailsList(rows),
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
    const next = requestsEl.querySelector('section.request button');
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

  function renderSessions(sessions) {
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
        const node = el('div', { className: 'session' }, [
          el('span', { className: 'origin', textContent: s.origin }),
          ' — ',
          el('code', { textContent: Object.keys(s.session.sessionScopes).join(', ') }),
          ' ',
          button,
        ]);
        node.dataset.origin = s.origin;
        return node;
      }),
    );
  }

  // Refresh ------------------------------------------------------------------------------------

  let refreshing = null;
  async function refreshOnce() {
    try {
      const [approvals, sessions, view] = await Promise.all([
        call('GET', '/api/approvals'),
        call('GET', '/api/sessions'),
        call('GET', '/api/account'),
      ]);
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
      renderSessions(sessions);
      const key = JSON.stringify([view.source, view.accounts, view.login, view.canFund, view.user]);
      const accountsChanged = JSON.stringify(view.accounts) !== JSON.stringify(account?.accounts);
      const loginEnded = account?.login.pending && !view.login.pending;
      account = view;
      if (loginEnded) {
        if (view.login.error) announce(`Login failed: ${view.login.error}`);
        else announce(view.source === 'login' ? summaryText(view) : 'Login cancelled.');
      }
      if (key !== accountKey) {
        accountKey = key;
        renderAccount(view);
        if (accountsChanged) await refreshBalances();
      }
      if (statusEl.textContent === 'Loading…' || statusEl.dataset.error) {
        announce('Connected to the wallet.');
        delete statusEl.dataset.error;
      }
      void watchLoginPopup();
    } catch (error) {
      announce(
        `Cannot reach the wallet (${error.message}). Open the approval URL the wallet printed, with its #token.`,
      );
      statusEl.dataset.error = '1';
    }
  }
  function refresh() {
    refreshing ??= refreshOnce().finally(() => {
      refreshing = null;
    });
    return refreshing;
  }

  refresh();
  setInterval(refresh, 500);
})();
