// The auth service sent the browser here with the login result in the URL fragment, which browsers
// never send to a server: hand the URL to the wallet (this page's own path), then drop the fragment.
(() => {
  const href = location.href;
  history.replaceState(null, '', location.pathname);
  const message = document.getElementById('message');
  fetch(location.pathname, { method: 'POST', body: href }).then(
    (response) => {
      if (!response.ok) {
        message.textContent = 'This login is no longer waiting. Start again from the wallet page.';
        return;
      }
      message.textContent = 'Logged in to the wallet. You can close this window.';
      window.close();
    },
    () => {
      message.textContent = 'Cannot reach the wallet. Start again from the wallet page.';
    },
  );
})();
