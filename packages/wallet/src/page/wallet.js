// The wallet's page: the account (log in, log out, dev accounts, top up), the requests waiting for
// a person (connections and signatures) and the connected sites. Plain DOM, no build step. The
// access token lives in the URL fragment (never sent to a server) and goes back as a bearer header,
// so a dapp's page cannot answer its own requests. Everything a dapp sent is shown as text.
// This is the entry (ES modules): it refreshes the parts every half second.
import { updateAccount, watchLoginPopup } from './account.js';
import { announce, call, refresh, setRefresher, statusEl } from './page.js';
import { renderHistory, renderSessions, updateExpired, updateRequests } from './requests.js';

async function refreshOnce() {
  try {
    const [approvals, expired, history, sessions, view] = await Promise.all([
      call('GET', '/api/approvals'),
      call('GET', '/api/approvals/expired'),
      call('GET', '/api/approvals/history'),
      call('GET', '/api/sessions'),
      call('GET', '/api/account'),
    ]);
    updateRequests(approvals);
    updateExpired(expired);
    renderHistory(history);
    renderSessions(sessions);
    await updateAccount(view);
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

setRefresher(refreshOnce);
refresh();
setInterval(refresh, 500);
