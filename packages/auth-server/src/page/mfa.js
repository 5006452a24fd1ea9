// The MFA screens of the login page: setup (factors in the app's order, the backup phrase once),
// recovery on a device without a share, and confirmation for an app that never holds the key.
import { PAGE_FACTORS, SETUP_INPUTS } from './factors.js';
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
    const libraryOnly = PAGE_FACTORS[factor]?.setup?.libraryOnly === true;
    box.checked = mandatory || !libraryOnly;
    box.disabled = mandatory || libraryOnly;
    label.append(box, ` ${t(`factor_${factor}`)}${mandatory ? ` (${t('required')})` : ''}`);
    list.append(label);
  }
  const ticked = (factor) =>
    /** @type {HTMLInputElement | null} */ (list.querySelector(`input[value="${factor}"]`))?.checked === true;
  // Each ticked factor's panel shows (and opens once, e.g. the authenticator's enrolment).
  const opened = new Set();
  const sync = () => {
    for (const [factor, { setup }] of Object.entries(PAGE_FACTORS)) {
      for (const id of setup?.panel ?? []) $(id).hidden = !ticked(factor);
      if (!setup?.open || !ticked(factor) || opened.has(factor)) continue;
      opened.add(factor);
      setup.open(loginId).catch((err) => {
        opened.delete(factor);
        const error = $('mfa-setup-error');
        error.textContent = err.message;
        error.hidden = false;
      });
    }
  };
  list.onchange = sync;
  sync();
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
    /** @type {Record<string, unknown>} */
    const body = { loginId, factors };
    for (const factor of factors) {
      const send = PAGE_FACTORS[factor]?.setup?.send;
      if (send) body[send.field] = send.read();
    }
    try {
      const done = await post('/api/mfa/setup', body);
      for (const id of SETUP_INPUTS) field(id).value = '';
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
// Confirmation (the app's export policy is `user` or `off`: the app never holds the key): the
// factor goes to the service, which marks this sign-in; the user may skip it.
function showRecover(step, loginId) {
  const confirming = step.step === 'confirm';
  $('logo').classList.remove('loading');
  $('mfa-recover-title').textContent = t(confirming ? 'confirmTitle' : 'recoverTitle');
  $('mfa-recover-note').textContent = t(confirming ? 'confirmNote' : 'recoverNote');
  $('mfa-recover-submit').textContent = t('recoverSubmit');
  const later = $('mfa-recover-later');
  later.hidden = !confirming;
  later.textContent = t('confirmLater');
  later.onclick = async () => {
    show('loading');
    const done = await post('/api/mfa/confirm/later', { loginId }).catch((err) => fail(err.message));
    if (done) location.replace(done.url);
  };
  let chosen = step.factors[0];
  const choice = $('mfa-recover-choice');
  /** @type {Array<[string, import('./factors.js').RecoverStep]>} */
  const steps = Object.entries(PAGE_FACTORS).flatMap(([f, { recover }]) =>
    recover ? [/** @type {[string, import('./factors.js').RecoverStep]} */ ([f, recover])] : [],
  );
  for (const [, recover] of steps) $(`${recover.input}-label`).textContent = t(recover.label);
  const pick = (factor) => {
    chosen = factor;
    for (const [f, { input }] of steps) {
      $(input).hidden = f !== factor;
      $(`${input}-label`).hidden = f !== factor;
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
      b.textContent = t(PAGE_FACTORS[factor]?.recover?.label ?? `factor_${factor}`);
      b.onclick = () => pick(factor);
      return b;
    }),
  );
  pick(chosen);
  $('mfa-recover').onsubmit = async (event) => {
    event.preventDefault();
    const error = $('mfa-recover-error');
    error.hidden = true;
    const recover = PAGE_FACTORS[chosen]?.recover;
    let raw = recover ? field(recover.input).value : '';
    if (recover?.prepare) {
      // A factor the device answers (a passkey): its answer is made now, on this click.
      try {
        raw = await recover.prepare(loginId, confirming ? 'confirm' : 'login');
      } catch (err) {
        error.textContent = err.message;
        error.hidden = false;
        return;
      }
    }
    const value = recover?.read(raw);
    if (!recover || value === undefined) {
      error.textContent = t('badPhrase');
      error.hidden = false;
      return;
    }
    const factor = { [recover.field]: value };
    try {
      const url = confirming ? await confirmed(loginId, factor) : await recovered(loginId, factor);
      for (const [, { input }] of steps) field(input).value = '';
      location.replace(url);
    } catch (err) {
      error.textContent = err.message;
      error.hidden = false;
    }
  };
  show('mfa-recover');
}

/** Recovery: the app's result URL with the factor added to its fragment, for the app's library. */
async function recovered(loginId, factor) {
  const done = await post('/api/mfa/recover', { loginId });
  const url = new URL(done.url);
  const fragment = new URLSearchParams(url.hash.slice(1));
  const result = decodeB64(fragment.get('b64Params'));
  // The rest of the fragment (the /done page's origin) stays as the service made it.
  fragment.set('b64Params', encodeB64({ ...result, mfaFactor: factor }));
  url.hash = fragment.toString();
  return url.href;
}

/** Confirmation: the service checks the factor and marks the sign-in; the result URL is unchanged. */
async function confirmed(loginId, factor) {
  return (await post('/api/mfa/confirm/login', { loginId, factor })).url;
}

/** The MFA step the service answered with, for the login `loginId`. */
export function showMfa(step, loginId) {
  if (step.step === 'recover' || step.step === 'confirm') showRecover(step, loginId);
  else showSetup(step, loginId);
}
