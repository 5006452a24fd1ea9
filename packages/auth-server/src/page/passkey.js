// The login page's passkey screen: sign in with a passkey or create one (webauthn.js turns the
// service's options and the browser's credentials into each other's shapes).
import { showMfa } from './mfa.js';
import { $, field, post, show } from './page.js';
import { t } from './strings.js';
import { authenticationJson, creationOptions, registrationJson, requestOptions } from './webauthn.js';

function showError(message) {
  $('passkey-error').textContent = message;
  $('passkey-error').hidden = false;
}

/** One ceremony: options from the service, the browser's passkey dialog, the answer checked. */
async function run(mode, loginId, provider) {
  $('passkey-error').hidden = true;
  const name = mode === 'register' && !field('passkey-name').hidden ? field('passkey-name').value : undefined;
  const { challengeId, options } = await post('/api/login/passkey/options', {
    loginId,
    provider,
    mode,
    name,
  });
  let credential;
  try {
    credential = /** @type {PublicKeyCredential | null} */ (
      mode === 'login'
        ? await navigator.credentials.get({ publicKey: requestOptions(options) })
        : await navigator.credentials.create({ publicKey: creationOptions(options) })
    );
  } catch (err) {
    const name = /** @type {Error} */ (err).name;
    return showError(name === 'NotAllowedError' ? t('passkeyCancelled') : /** @type {Error} */ (err).message);
  }
  if (!credential) return showError(t('passkeyCancelled'));
  const response = mode === 'login' ? authenticationJson(credential) : registrationJson(credential);
  show('loading');
  $('loading-text').textContent = t('redirecting');
  let done;
  try {
    done = await post('/api/login/passkey/verify', { loginId, challengeId, response });
  } catch (err) {
    show('passkey');
    return showError(/** @type {Error} */ (err).message);
  }
  if (done.mfa) return showMfa(done.mfa, loginId);
  location.replace(done.url);
}

/**
 * The passkey screen: sign in with a passkey, or create one (a fresh account, or, when the app's
 * signed-in user asked to link one, for that user's account).
 */
export function showPasskey(step, loginId, provider) {
  $('logo').classList.remove('loading');
  show('passkey');
  $('passkey-title').textContent = step.link ? t('passkeyLinkTitle') : t('passkeyTitle');
  $('passkey-note').textContent = step.link ? t('passkeyLinkNote') : t('passkeyNote');
  const signIn = $('passkey-signin');
  signIn.textContent = t('passkeySignIn');
  signIn.hidden = step.link;
  const create = $('passkey-create');
  create.textContent = step.link ? t('passkeyLinkCreate') : t('passkeyCreate');
  create.hidden = !step.register;
  create.className = step.link ? 'primary' : 'link';
  const newAccount = step.register && !step.link;
  $('passkey-name-label').textContent = t('passkeyName');
  $('passkey-name-label').hidden = !newAccount;
  field('passkey-name').hidden = !newAccount;
  if (typeof PublicKeyCredential === 'undefined' || !navigator.credentials) {
    signIn.hidden = true;
    create.hidden = true;
    return showError(t('passkeyUnsupported'));
  }
  const onError = (err) => {
    show('passkey');
    showError(err.message);
  };
  signIn.onclick = () => run('login', loginId, provider).catch(onError);
  create.onclick = () => run('register', loginId, provider).catch(onError);
}
