// The login page: plain browser JavaScript served as is (no build step), as ES modules.
// It reads the loginId from #b64Params, asks the service for the parked request's page data,
// applies the app's white label and starts the login with the chosen provider.
import { showMfa } from './mfa.js';
import { $, decodeB64, fail, field, post, safeUrl, show } from './page.js';
import { showPasskey } from './passkey.js';
import { setLanguage, t } from './strings.js';

let loginId = '';

function readLoginId() {
  const raw = new URLSearchParams(location.hash.slice(1)).get('b64Params');
  if (!raw) return '';
  return decodeB64(raw).loginId ?? '';
}

function applyWhiteLabel(wl) {
  document.documentElement.lang = setLanguage(wl.defaultLanguage);
  const dark =
    wl.mode === 'dark' || (wl.mode === 'auto' && window.matchMedia('(prefers-color-scheme: dark)').matches);
  document.documentElement.dataset.theme = dark ? 'dark' : 'light';
  if (/^#[0-9a-fA-F]{3,8}$/.test(wl.primary))
    document.documentElement.style.setProperty('--primary', wl.primary);
  // logoLight is meant for dark backgrounds, logoDark for light ones.
  const logo = safeUrl(
    dark ? (wl.logoLight ?? wl.logoDark ?? '') : (wl.logoDark ?? wl.logoLight ?? ''),
    'image',
  );
  const logoImage = /** @type {HTMLImageElement} */ ($('logo'));
  if (logo) logoImage.src = logo;
  logoImage.alt = wl.appName ?? '';
  if (wl.useLogoLoader) {
    $('spinner').hidden = true;
    $('logo').classList.add('loading');
  }
  // Without anything that names the app, just "Sign in" (never the service's own address).
  const title = wl.appName ? t('title', { app: wl.appName }) : t('signIn');
  document.title = title;
  $('title').textContent = title;
  $('loading-text').textContent = t('loading');
  $('cancel').textContent = t('cancel');
  $('powered').textContent = t('powered');
  const appUrl = wl.appUrl ? safeUrl(wl.appUrl, 'link') : '';
  if (appUrl) {
    const link = document.createElement('a');
    link.href = appUrl;
    link.rel = 'noopener noreferrer';
    link.textContent = new URL(appUrl).host;
    $('app-url').replaceChildren(link);
  }
  $('dev-title').textContent = t('devTitle');
  $('dev-note').textContent = t('devNote');
  $('email-label').textContent = t('email');
  $('name-label').textContent = t('name');
  $('dev-submit').textContent = t('signIn');
}

async function start(provider) {
  show('loading');
  $('loading-text').textContent = t('redirecting');
  const next = await post('/api/login/authorize', { loginId, provider });
  if (next.devState) {
    $('logo').classList.remove('loading');
    show('dev-form');
    $('email').focus();
    $('dev-form').onsubmit = async (event) => {
      event.preventDefault();
      show('loading');
      try {
        const done = await post('/api/dev-login', {
          state: next.devState,
          email: field('email').value,
          name: field('name').value,
        });
        if (done.mfa) return showMfa(done.mfa, loginId);
        location.replace(done.url);
      } catch (err) {
        fail(err.message);
      }
    };
    return;
  }
  if (next.mfa) return showMfa(next.mfa, loginId);
  if (next.passkey) return showPasskey(next.passkey, loginId, provider);
  location.replace(next.url);
}

function renderProviders(providers) {
  const list = $('providers');
  list.replaceChildren();
  providers.forEach((p, i) => {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = i === 0 ? 'provider main' : 'provider';
    button.dataset.provider = p.id;
    button.textContent = t('continueWith', { provider: p.name });
    button.onclick = () => start(p.id).catch((err) => fail(err.message));
    list.append(button);
  });
  $('logo').classList.remove('loading');
  show('providers');
}

async function main() {
  $('loading-text').textContent = t('loading');
  try {
    loginId = readLoginId();
  } catch {
    loginId = '';
  }
  if (!loginId) return fail('This page needs a login request: start the login from the app.');
  const view = await post('/api/login/request', { loginId });
  applyWhiteLabel(view.whiteLabel);
  $('cancel').hidden = false;
  $('cancel').onclick = async () => {
    const done = await post('/api/login/cancel', { loginId }).catch((err) => fail(err.message));
    if (done) location.replace(done.url);
  };
  const raw = new URLSearchParams(location.hash.slice(1)).get('b64Params');
  if (raw && decodeB64(raw).mfa) return showMfa(await post('/api/mfa/pending', { loginId }), loginId);
  if (view.loginProvider) return start(view.loginProvider);
  if (view.providers.length === 0) return fail('No login providers are configured.');
  renderProviders(view.providers);
}

main().catch((err) => fail(err.message));
