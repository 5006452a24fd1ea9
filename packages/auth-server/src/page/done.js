// The end of a login: the default redirectUrl of popup logins (and of apps outside browsers).
// In a popup it hands the result to the window that opened it, on the one origin the service
// put in the fragment (the app's, checked like a redirect), and never anywhere else; the app's
// library checks that the result is from its popup and carries its login's state, then closes it.
const params = new URLSearchParams(location.hash.slice(1));
const result = params.get('b64Params');
const appOrigin = params.get('origin');
// The fragment stays: outside browsers an app's openUrl reads the result from this page's address.
if (result && appOrigin && window.opener) {
  try {
    window.opener.postMessage({ type: 'portico-auth:result', b64Params: result }, appOrigin);
  } catch {
    // not an origin: nothing is sent
  }
}
