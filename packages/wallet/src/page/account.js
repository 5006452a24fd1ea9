// The account part of the wallet page: who the wallet holds keys for, log in and out, dev
// accounts, balances and top-ups.
import { networkName, roundAmount, shortAddress } from './format.js';
import { $, accountError, announce, call, el, NAMESPACE_NAMES, refresh, showError } from './page.js';

let account = null;
let accountKey = '';
let balances = [];
let loginPopup = null;

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

/** Whether balances show their exact values (the person asked) or rounded ones. */
let exact = false;

/** The address's balances, rounded for people unless `exactly`: `9,999.9995 ETH on Local EVM chain`. */
function balanceText(address, exactly = exact) {
  const found = balances.filter((b) => b.address === address);
  if (found.length === 0) return '';
  return found
    .map((b) => {
      const amount = b.balance ?? 'balance unavailable';
      return `${exactly ? amount : roundAmount(amount)} on ${networkName(b.chainId)}`;
    })
    .join(', ');
}

async function copyAddress(button, address) {
  try {
    await navigator.clipboard.writeText(address);
    announce(`Copied ${address}.`);
  } catch {
    announce(`Could not copy: select the address instead (${address}).`);
  }
  button.focus();
}

function renderAccount(view) {
  $('account-summary').textContent = view.login.pending ? 'Logging in…' : summaryText(view);
  $('login').hidden = !view.login.available || view.source === 'login';
  $('switch-user').hidden = !view.login.available || view.source !== 'login';
  $('logout').hidden = view.source !== 'login';
  $('dev-accounts').hidden = !view.devAccounts || view.source === 'dev';
  const held = Object.entries(view.accounts).filter(([, addresses]) => addresses.length > 0);
  $('refresh-balances').hidden = held.length === 0;
  showError(view.login.error ? `Login failed: ${view.login.error}` : '');
  const lists = held.map(([namespace, addresses]) => {
    const headingId = `accounts-${namespace}`;
    const items = addresses.map((address) => {
      const copy = el('button', {
        type: 'button',
        className: 'copy',
        textContent: 'Copy',
        'aria-label': `Copy address ${address}`,
      });
      copy.onclick = () => copyAddress(copy, address);
      const children = [
        el('span', { className: 'account-line' }, [
          el('code', {
            className: 'address',
            textContent: shortAddress(address),
            title: address,
            'aria-label': address,
            'data-address': address,
          }),
          copy,
        ]),
        el('span', {
          className: 'balance',
          'data-address': address,
          textContent: balanceText(address),
          title: balanceText(address, true),
        }),
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
  for (const span of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('.balance'))) {
    span.textContent = balanceText(span.dataset.address);
    span.title = balanceText(span.dataset.address, true);
  }
  $('exact-balances').hidden = balances.length === 0;
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
export async function watchLoginPopup() {
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
$('exact-balances').onclick = () => {
  exact = !exact;
  $('exact-balances').setAttribute('aria-pressed', String(exact));
  updateBalanceTexts();
  announce(exact ? 'Balances show their exact values.' : 'Balances are rounded.');
};
$('refresh-balances').onclick = async () => {
  await refreshBalances();
  announce('Balances refreshed.');
};
/** Shows the account `view` the wallet answered, when it changed; says when a login ended. */
export async function updateAccount(view) {
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
}
