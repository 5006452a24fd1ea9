// The MFA screens of the login page: setup (factors in the app's order, the backup phrase once)
// and recovery on a device without a share.
import { $, decodeB64, encodeB64, fail, field, post, show } from './page.js';
import { t } from './strings.js';

// MFA setup: the enabled factors in the app's priority order; mandatory ones checked and locked.
function showSetup(step, loginId) {
  $('logo').classList.remove('loading');
  $('mfa-setup-title').textContent = t('mfaSetupTitle');
  $('mfa-setup-note').textContent = t('mfaSetupNote');
  $('mfa-password-label').textContent = t('password');
  $('mfa-enable').textContent = t('mfaEnable');
  $('mfa-skip').textContent = t('mfaSkip');
  const list = $('mfa-factors');
  list.replaceChildren();
  for (const { factor, mandatory } of step.factors) {
    const label = document.createElement('label');
    label.className = 'factor';
    const box = document.createElement('input');
    box.type = 'checkbox';
    box.value = factor;
    box.dataset.factor = factor;
    // Social backup needs a second login, which the app's library runs.
    const social = factor === 'socialBackupFactor';
    box.checked = mandatory || !social;
    box.disabled = mandatory || social;
    label.append(box, ` ${t(`factor_${factor}`)}${mandatory ? ` (${t('required')})` : ''}`);
    list.append(label);
  }
  const needsPassword = () =>
    /** @type {HTMLInputElement | null} */ (list.querySelector('input[value="passwordFactor"]'))?.checked ===
    true;
  const syncPassword = () => {
    $('mfa-password').hidden = !needsPassword();
    $('mfa-password-label').hidden = !needsPassword();
  };
  // The authenticator app: a secret made for this login when the box is ticked, shown as a QR code
  // and an otpauth:// link; the setup sends the code the app then shows.
  const wantsAuthenticator = () =>
    /** @type {HTMLInputElement | null} */ (list.querySelector('input[value="authenticatorFactor"]'))
      ?.checked === true;
  let enrolled = false;
  const syncAuthenticator = async () => {
    $('mfa-authenticator').hidden = !wantsAuthenticator();
    if (!wantsAuthenticator() || enrolled) return;
    enrolled = true;
    $('mfa-authenticator-note').textContent = t('authenticatorNote');
    $('mfa-authenticator-code-label').textContent = t('authenticatorCode');
    try {
      const { uri, qrSvg } = await post('/api/mfa/authenticator', { loginId });
      /** @type {HTMLImageElement} */ ($('mfa-authenticator-qr')).src =
        `data:image/svg+xml;base64,${btoa(qrSvg)}`;
      field('mfa-authenticator-uri').value = uri;
    } catch (err) {
      enrolled = false;
      const error = $('mfa-setup-error');
      error.textContent = err.message;
      error.hidden = false;
    }
  };
  list.onchange = () => {
    syncPassword();
    syncAuthenticator();
  };
  syncPassword();
  syncAuthenticator();
  $('mfa-skip').hidden = !step.skippable;
  $('mfa-skip').onclick = async () => {
    show('loading');
    const done = await post('/api/mfa/skip', { loginId }).catch((err) => fail(err.message));
    if (done) location.replace(done.url);
  };
  $('mfa-setup').onsubmit = async (event) => {
    event.preventDefault();
    const factors = [
      .../** @type {NodeListOf<HTMLInputElement>} */ (list.querySelectorAll('input:checked')),
    ].map((b) => b.value);
    const error = $('mfa-setup-error');
    if (factors.length < 2) {
      error.textContent = t('tooFew');
      error.hidden = false;
      return;
    }
    try {
      const done = await post('/api/mfa/setup', {
        loginId,
        factors,
        password: needsPassword() ? field('mfa-password').value : undefined,
        authenticatorCode: wantsAuthenticator() ? field('mfa-authenticator-code').value.trim() : undefined,
      });
      field('mfa-password').value = '';
      field('mfa-authenticator-uri').value = '';
      if (done.backupPhrase) return showPhrase(done.backupPhrase, done.url);
      location.replace(done.url);
    } catch (err) {
      error.textContent = err.message;
      error.hidden = false;
    }
  };
  show('mfa-setup');
}

// The backup phrase, once: the service keeps no copy.
function showPhrase(phrase, url) {
  $('mfa-phrase-title').textContent = t('phraseTitle');
  $('mfa-phrase-note').textContent = t('phraseNote');
  $('mfa-phrase-done').textContent = t('phraseDone');
  const words = $('mfa-words');
  words.replaceChildren(
    ...phrase.split(' ').map((w) => {
      const li = document.createElement('li');
      li.textContent = w;
      return li;
    }),
  );
  $('mfa-phrase-done').onclick = () => {
    words.replaceChildren();
    location.replace(url);
  };
  show('mfa-phrase');
}

// Recovery on a device without a share: the factor goes to the app in the result fragment (never
// to the service), and the app's library rebuilds the key with the service's share.
function showRecover(step, loginId) {
  $('logo').classList.remove('loading');
  $('mfa-recover-title').textContent = t('recoverTitle');
  $('mfa-recover-note').textContent = t('recoverNote');
  $('mfa-recover-phrase-label').textContent = t('recoverPhrase');
  $('mfa-recover-password-label').textContent = t('recoverPassword');
  $('mfa-recover-submit').textContent = t('recoverSubmit');
  let chosen = step.factors[0];
  const choice = $('mfa-recover-choice');
  $('mfa-recover-code-label').textContent = t('recoverCode');
  /** Each factor's input and button label. */
  const inputs = {
    backUpShareFactor: ['mfa-recover-phrase', 'recoverPhrase'],
    passwordFactor: ['mfa-recover-password', 'recoverPassword'],
    authenticatorFactor: ['mfa-recover-code', 'recoverCode'],
  };
  const pick = (factor) => {
    chosen = factor;
    for (const [f, [id]] of Object.entries(inputs)) {
      $(id).hidden = f !== factor;
      $(`${id}-label`).hidden = f !== factor;
    }
    for (const b of /** @type {HTMLCollectionOf<HTMLElement>} */ (choice.children))
      b.classList.toggle('selected', b.dataset.factor === factor);
  };
  choice.replaceChildren(
    ...step.factors.map((factor) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'provider';
      b.dataset.factor = factor;
      b.textContent = t(inputs[factor]?.[1] ?? 'recoverPassword');
      b.onclick = () => pick(factor);
      return b;
    }),
  );
  pick(chosen);
  $('mfa-recover').onsubmit = async (event) => {
    event.preventDefault();
    const error = $('mfa-recover-error');
    const factor = {};
    if (chosen === 'backUpShareFactor') {
      const words = field('mfa-recover-phrase').value.trim().split(/\s+/);
      if (words.length !== 24) {
        error.textContent = t('badPhrase');
        error.hidden = false;
        return;
      }
      factor.backupPhrase = words.join(' ').toLowerCase();
    } else if (chosen === 'authenticatorFactor') {
      factor.authenticatorCode = field('mfa-recover-code').value.trim();
    } else {
      factor.password = field('mfa-recover-password').value;
    }
    try {
      const done = await post('/api/mfa/recover', { loginId });
      const url = new URL(done.url);
      const fragment = new URLSearchParams(url.hash.slice(1));
      const result = decodeB64(fragment.get('b64Params'));
      // The rest of the fragment (the /done page's origin) stays as the service made it.
      fragment.set('b64Params', encodeB64({ ...result, mfaFactor: factor }));
      url.hash = fragment.toString();
      field('mfa-recover-phrase').value = '';
      field('mfa-recover-password').value = '';
      field('mfa-recover-code').value = '';
      location.replace(url.href);
    } catch (err) {
      error.textContent = err.message;
      error.hidden = false;
    }
  };
  show('mfa-recover');
}

/** The MFA step the service answered with, for the login `loginId`. */
export function showMfa(step, loginId) {
  if (step.step === 'recover') showRecover(step, loginId);
  else showSetup(step, loginId);
}
