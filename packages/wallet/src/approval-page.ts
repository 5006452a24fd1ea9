/**
 * The approval page: plain HTML and JavaScript served by the wallet, no build step. The access
 * token travels in the URL fragment (never sent to a server) and goes back in a header, so a dapp
 * page cannot answer its own request.
 */
export const APPROVAL_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Portico wallet — connection requests</title>
<style>
  body { font: 15px/1.5 system-ui, sans-serif; max-width: 46rem; margin: 2rem auto; padding: 0 1rem; color: #1d1d1f; }
  h1 { font-size: 1.3rem; }
  .request, .session { border: 1px solid #ccc; border-radius: 8px; padding: 1rem; margin: 1rem 0; }
  .origin { font-weight: 600; word-break: break-all; }
  code { font-size: 13px; }
  label { display: block; }
  button { font: inherit; padding: .4rem 1rem; margin-right: .5rem; }
  .approve { background: #0a7d32; color: #fff; border: 0; border-radius: 4px; }
  .reject { background: #b00020; color: #fff; border: 0; border-radius: 4px; }
  .empty, .status { color: #666; }
</style>
</head>
<body>
<h1>Portico wallet</h1>
<p class="status" id="status">Loading…</p>
<h2>Connection requests</h2>
<div id="requests"><p class="empty">No pending requests.</p></div>
<h2>Connected sites</h2>
<div id="sessions"><p class="empty">None.</p></div>
<script>
(() => {
  const token = new URLSearchParams(location.hash.slice(1)).get('token') || '';
  const headers = { authorization: 'Bearer ' + token, 'content-type': 'application/json' };
  const requestsEl = document.getElementById('requests');
  const sessionsEl = document.getElementById('sessions');
  const statusEl = document.getElementById('status');
  const rendered = new Map();

  function el(tag, props, children) {
    const node = document.createElement(tag);
    Object.assign(node, props || {});
    for (const child of children || []) node.append(child);
    return node;
  }

  function renderRequest(request) {
    const scopeBoxes = Object.entries(request.scopes).map(([scope, value]) =>
      el('label', {}, [
        el('input', { type: 'checkbox', name: 'scope', value: scope, checked: true }),
        ' ', el('code', { textContent: scope }),
        ' — ' + value.methods.length + ' methods, ' + value.notifications.length + ' notifications',
      ]));
    const accountBoxes = [];
    for (const [namespace, addresses] of Object.entries(request.accounts)) {
      const preselected = (request.preselected[namespace] || []);
      addresses.forEach((address, index) => {
        const checked = preselected.length ? preselected.includes(address) : index === 0;
        accountBoxes.push(el('label', {}, [
          el('input', { type: 'checkbox', name: 'account', value: address, checked }),
          ' ', el('code', { textContent: namespace + ':' + address }),
        ]));
        accountBoxes.at(-1).querySelector('input').dataset.namespace = namespace;
      });
    }
    const approve = el('button', { className: 'approve', textContent: 'Approve' });
    const reject = el('button', { className: 'reject', textContent: 'Reject' });
    const section = el('section', { className: 'request' }, [
      el('p', {}, ['Connection request from ', el('span', { className: 'origin', textContent: request.origin })]),
      el('h3', { textContent: 'Networks' }), ...scopeBoxes,
      el('h3', { textContent: 'Accounts' }), ...(accountBoxes.length ? accountBoxes : [el('p', { className: 'empty', textContent: 'No accounts needed.' })]),
      el('p', {}, [approve, reject]),
    ]);
    section.dataset.requestId = request.id;
    section.dataset.origin = request.origin;
    approve.onclick = () => {
      const scopes = [...section.querySelectorAll('input[name=scope]:checked')].map((i) => i.value);
      const accounts = {};
      for (const input of section.querySelectorAll('input[name=account]:checked')) {
        (accounts[input.dataset.namespace] ||= []).push(input.value);
      }
      answer(request.id, { approved: true, scopes, accounts });
    };
    reject.onclick = () => answer(request.id, { approved: false });
    return section;
  }

  async function answer(id, decision) {
    const response = await fetch('/api/approvals/' + encodeURIComponent(id), { method: 'POST', headers, body: JSON.stringify(decision) });
    statusEl.textContent = response.ok ? (decision.approved ? 'Approved.' : 'Rejected.') : 'Could not answer: HTTP ' + response.status;
    rendered.get(id)?.remove();
    rendered.delete(id);
    refresh();
  }

  async function revoke(origin) {
    await fetch('/api/sessions/revoke', { method: 'POST', headers, body: JSON.stringify({ origin }) });
    refresh();
  }

  async function refresh() {
    try {
      const [approvals, sessions] = await Promise.all([
        fetch('/api/approvals', { headers }).then((r) => { if (!r.ok) throw new Error('HTTP ' + r.status); return r.json(); }),
        fetch('/api/sessions', { headers }).then((r) => { if (!r.ok) throw new Error('HTTP ' + r.status); return r.json(); }),
      ]);
      const ids = new Set(approvals.map((a) => a.id));
      for (const [id, node] of rendered) if (!ids.has(id)) { node.remove(); rendered.delete(id); }
      for (const request of approvals) {
        if (rendered.has(request.id)) continue;
        const node = renderRequest(request);
        rendered.set(request.id, node);
        requestsEl.append(node);
      }
      requestsEl.querySelector('.empty')?.toggleAttribute('hidden', rendered.size > 0);
      sessionsEl.replaceChildren(...(sessions.length ? sessions.map((s) => {
        const button = el('button', { className: 'revoke', textContent: 'Disconnect' });
        button.onclick = () => revoke(s.origin);
        const node = el('div', { className: 'session' }, [
          el('span', { className: 'origin', textContent: s.origin }), ' — ',
          el('code', { textContent: Object.keys(s.session.sessionScopes).join(', ') }), ' ', button,
        ]);
        node.dataset.origin = s.origin;
        return node;
      }) : [el('p', { className: 'empty', textContent: 'None.' })]));
      if (statusEl.textContent === 'Loading…' || statusEl.dataset.error) { statusEl.textContent = 'Connected to the wallet.'; delete statusEl.dataset.error; }
    } catch (error) {
      statusEl.textContent = 'Cannot reach the wallet (' + error.message + '). Open the approval URL the wallet printed, with its #token.';
      statusEl.dataset.error = '1';
    }
  }
  refresh();
  setInterval(refresh, 500);
})();
</script>
</body>
</html>
`;
