// The Portico dashboard: a small single-page app over the gateway's admin API.
// Views are plain functions that build DOM nodes (never HTML strings); the route is the URL hash.
// This file is the router; the views are in views/, what they share beside it.
import { forgetNetworks } from './admin.js';
import { clearToken, getToken } from './api.js';
import { h } from './dom.js';
import { go, setFlash, setRenderer } from './navigation.js';
import { main, nav, nextTicket, show } from './view.js';
import { auditView } from './views/audit.js';
import { keyView } from './views/key.js';
import { keysView } from './views/keys.js';
import { newKeyView } from './views/new-key.js';
import { signInView } from './views/signin.js';
import { upstreamsView } from './views/upstreams.js';
import { usageView } from './views/usage.js';

function parseHash() {
  const raw = location.hash.replace(/^#/, '') || '/keys';
  const [path, query = ''] = raw.split('?');
  return { path, params: new URLSearchParams(query) };
}

function markNav(path) {
  for (const link of /** @type {NodeListOf<HTMLAnchorElement>} */ (nav.querySelectorAll('a[data-nav]'))) {
    const current = path.startsWith(`/${link.dataset.nav}`);
    if (current) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
}

async function render() {
  const ticket = nextTicket();
  const { path, params } = parseHash();
  if (!getToken()) {
    if (path !== '/signin') {
      location.replace('#/signin');
      return;
    }
    return signInView(ticket);
  }
  if (path === '/signin') return signInView(ticket);
  nav.hidden = false;
  markNav(path);
  if (path === '/keys') return keysView(ticket);
  if (path === '/keys/new') return newKeyView(ticket, params);
  if (path.startsWith('/keys/')) return keyView(ticket, decodeURIComponent(path.slice('/keys/'.length)));
  if (path === '/usage') return usageView(ticket, params);
  if (path === '/audit') return auditView(ticket, params);
  if (path === '/upstreams') return upstreamsView(ticket);
  show(
    ticket,
    'Not found',
    h('h1', {}, 'No such page'),
    h('p', {}, `The dashboard has no page at #${path}.`),
    h('a', { href: '#/keys', className: 'button' }, 'Go to keys'),
  );
}

document.getElementById('sign-out').addEventListener('click', () => {
  clearToken();
  forgetNetworks();
  setFlash({ kind: 'success', text: 'Signed out. The admin token was removed from this tab.' });
  go('#/signin');
});

document.getElementById('skip-link').addEventListener('click', (event) => {
  event.preventDefault();
  main.focus();
});

setRenderer(render);
window.addEventListener('hashchange', () => void render());
void render();
