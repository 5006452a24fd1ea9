// The login page: plain browser JavaScript served as is (no build step).
// It reads the loginId from #b64Params, asks the service for the parked request's page data,
// applies the app's white label and starts the login with the chosen provider.

const STRINGS = {
  en: {
    title: 'Sign in to {app}',
    continueWith: 'Continue with {provider}',
    loading: 'Loading…',
    redirecting: 'Signing you in…',
    error: 'Something went wrong',
    cancel: 'Cancel',
    powered: 'Secured by Portico',
    devTitle: 'Development login',
    devNote: 'Not for production: any email is accepted.',
    email: 'Email',
    name: 'Name',
    signIn: 'Sign in',
  },
  de: {
    title: 'Bei {app} anmelden',
    continueWith: 'Weiter mit {provider}',
    loading: 'Wird geladen…',
    redirecting: 'Anmeldung läuft…',
    error: 'Etwas ist schiefgelaufen',
    cancel: 'Abbrechen',
    powered: 'Gesichert durch Portico',
    devTitle: 'Entwicklungs-Anmeldung',
    devNote: 'Nicht für den Produktivbetrieb: jede E-Mail wird akzeptiert.',
    email: 'E-Mail',
    name: 'Name',
    signIn: 'Anmelden',
  },
  ja: {
    title: '{app} にログイン',
    continueWith: '{provider} で続行',
    loading: '読み込み中…',
    redirecting: 'ログインしています…',
    error: 'エラーが発生しました',
    cancel: 'キャンセル',
    powered: 'Portico により保護',
    devTitle: '開発用ログイン',
    devNote: '本番環境では使用しないでください：任意のメールアドレスを受け付けます。',
    email: 'メールアドレス',
    name: '名前',
    signIn: 'ログイン',
  },
  ko: {
    title: '{app}에 로그인',
    continueWith: '{provider}(으)로 계속',
    loading: '로딩 중…',
    redirecting: '로그인 중…',
    error: '문제가 발생했습니다',
    cancel: '취소',
    powered: 'Portico로 보호됨',
    devTitle: '개발용 로그인',
    devNote: '프로덕션용이 아닙니다: 모든 이메일을 허용합니다.',
    email: '이메일',
    name: '이름',
    signIn: '로그인',
  },
  zh: {
    title: '登录 {app}',
    continueWith: '使用 {provider} 继续',
    loading: '加载中…',
    redirecting: '正在登录…',
    error: '出错了',
    cancel: '取消',
    powered: '由 Portico 提供安全保障',
    devTitle: '开发登录',
    devNote: '请勿用于生产环境：接受任何电子邮件。',
    email: '电子邮件',
    name: '姓名',
    signIn: '登录',
  },
  es: {
    title: 'Inicia sesión en {app}',
    continueWith: 'Continuar con {provider}',
    loading: 'Cargando…',
    redirecting: 'Iniciando sesión…',
    error: 'Algo salió mal',
    cancel: 'Cancelar',
    powered: 'Protegido por Portico',
    devTitle: 'Inicio de sesión de desarrollo',
    devNote: 'No apto para producción: se acepta cualquier correo.',
    email: 'Correo electrónico',
    name: 'Nombre',
    signIn: 'Iniciar sesión',
  },
  fr: {
    title: 'Connectez-vous à {app}',
    continueWith: 'Continuer avec {provider}',
    loading: 'Chargement…',
    redirecting: 'Connexion en cours…',
    error: 'Une erreur s’est produite',
    cancel: 'Annuler',
    powered: 'Sécurisé par Portico',
    devTitle: 'Connexion de développement',
    devNote: 'Pas pour la production : toute adresse e-mail est acceptée.',
    email: 'E-mail',
    name: 'Nom',
    signIn: 'Se connecter',
  },
  pt: {
    title: 'Entrar em {app}',
    continueWith: 'Continuar com {provider}',
    loading: 'Carregando…',
    redirecting: 'Entrando…',
    error: 'Algo deu errado',
    cancel: 'Cancelar',
    powered: 'Protegido por Portico',
    devTitle: 'Login de desenvolvimento',
    devNote: 'Não use em produção: qualquer e-mail é aceito.',
    email: 'E-mail',
    name: 'Nome',
    signIn: 'Entrar',
  },
  nl: {
    title: 'Inloggen bij {app}',
    continueWith: 'Doorgaan met {provider}',
    loading: 'Laden…',
    redirecting: 'Bezig met inloggen…',
    error: 'Er is iets misgegaan',
    cancel: 'Annuleren',
    powered: 'Beveiligd door Portico',
    devTitle: 'Ontwikkel-login',
    devNote: 'Niet voor productie: elk e-mailadres wordt geaccepteerd.',
    email: 'E-mail',
    name: 'Naam',
    signIn: 'Inloggen',
  },
};

const $ = (id) => document.getElementById(id);
let lang = 'en';
let loginId = '';

function t(key, vars = {}) {
  const text = (STRINGS[lang] ?? STRINGS.en)[key] ?? STRINGS.en[key];
  return text.replace(/\{(\w+)\}/g, (_, name) => vars[name] ?? '');
}

function show(id) {
  for (const section of ['loading', 'providers', 'dev-form', 'error']) $(section).hidden = section !== id;
}

async function post(path, body) {
  const res = await fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(data.error ?? `HTTP ${res.status}`);
  return data;
}

function fail(message) {
  $('error-title').textContent = t('error');
  $('error-text').textContent = message;
  $('logo').classList.remove('loading');
  show('error');
}

function readLoginId() {
  const raw = new URLSearchParams(location.hash.slice(1)).get('b64Params');
  if (!raw) return '';
  const bin = atob(raw.replace(/-/g, '+').replace(/_/g, '/'));
  const json = new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
  return JSON.parse(json).loginId ?? '';
}

function safeUrl(value) {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' || url.protocol === 'data:' ? url.href : '';
  } catch {
    return '';
  }
}

function applyWhiteLabel(wl) {
  lang = STRINGS[wl.defaultLanguage] ? wl.defaultLanguage : 'en';
  document.documentElement.lang = lang;
  const dark =
    wl.mode === 'dark' || (wl.mode === 'auto' && window.matchMedia('(prefers-color-scheme: dark)').matches);
  document.documentElement.dataset.theme = dark ? 'dark' : 'light';
  if (/^#[0-9a-fA-F]{3,8}$/.test(wl.primary))
    document.documentElement.style.setProperty('--primary', wl.primary);
  // logoLight is meant for dark backgrounds, logoDark for light ones.
  const logo = safeUrl(dark ? (wl.logoLight ?? wl.logoDark ?? '') : (wl.logoDark ?? wl.logoLight ?? ''));
  if (logo) $('logo').src = logo;
  $('logo').alt = wl.appName;
  if (wl.useLogoLoader) {
    $('spinner').hidden = true;
    $('logo').classList.add('loading');
  }
  document.title = t('title', { app: wl.appName });
  $('title').textContent = t('title', { app: wl.appName });
  $('loading-text').textContent = t('loading');
  $('cancel').textContent = t('cancel');
  $('powered').textContent = t('powered');
  const appUrl = safeUrl(wl.appUrl);
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
          email: $('email').value,
          name: $('name').value,
        });
        location.replace(done.url);
      } catch (err) {
        fail(err.message);
      }
    };
    return;
  }
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
  if (view.loginProvider) return start(view.loginProvider);
  if (view.providers.length === 0) return fail('No login providers are configured.');
  renderProviders(view.providers);
}

main().catch((err) => fail(err.message));
