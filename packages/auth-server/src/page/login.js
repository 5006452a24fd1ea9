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
    mfaSetupTitle: 'Secure your account',
    mfaSetupNote: 'Choose at least two factors. Any two of them restore your key; we never keep it whole.',
    factor_deviceShareFactor: 'This device',
    factor_backUpShareFactor: 'Backup phrase (24 words)',
    factor_passwordFactor: 'Password',
    factor_socialBackupFactor: 'Social backup (set up in the app)',
    required: 'required',
    password: 'Password (at least 8 characters)',
    mfaEnable: 'Enable',
    mfaSkip: 'Skip for now',
    tooFew: 'Choose at least two factors.',
    phraseTitle: 'Your backup phrase',
    phraseNote: 'Write these 24 words down and keep them offline. They are shown only once.',
    phraseDone: 'I have written it down',
    recoverTitle: 'Verify it is you',
    recoverNote: 'This device has no key share yet. Use your backup phrase or your password.',
    recoverPhrase: 'Backup phrase',
    recoverPassword: 'Password',
    recoverSubmit: 'Continue',
    badPhrase: 'A backup phrase has 24 words.',
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
    mfaSetupTitle: 'Konto absichern',
    mfaSetupNote:
      'Wählen Sie mindestens zwei Faktoren. Je zwei davon stellen Ihren Schlüssel wieder her; wir speichern ihn nie vollständig.',
    factor_deviceShareFactor: 'Dieses Gerät',
    factor_backUpShareFactor: 'Wiederherstellungsphrase (24 Wörter)',
    factor_passwordFactor: 'Passwort',
    factor_socialBackupFactor: 'Social-Backup (in der App einrichten)',
    required: 'erforderlich',
    password: 'Passwort (mindestens 8 Zeichen)',
    mfaEnable: 'Aktivieren',
    mfaSkip: 'Später',
    tooFew: 'Wählen Sie mindestens zwei Faktoren.',
    phraseTitle: 'Ihre Wiederherstellungsphrase',
    phraseNote:
      'Schreiben Sie diese 24 Wörter auf und bewahren Sie sie offline auf. Sie werden nur einmal angezeigt.',
    phraseDone: 'Ich habe sie notiert',
    recoverTitle: 'Bestätigen Sie Ihre Identität',
    recoverNote:
      'Dieses Gerät hat noch keinen Schlüsselanteil. Nutzen Sie Ihre Wiederherstellungsphrase oder Ihr Passwort.',
    recoverPhrase: 'Wiederherstellungsphrase',
    recoverPassword: 'Passwort',
    recoverSubmit: 'Weiter',
    badPhrase: 'Eine Wiederherstellungsphrase hat 24 Wörter.',
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
    mfaSetupTitle: 'アカウントを保護',
    mfaSetupNote:
      '2 つ以上の要素を選んでください。いずれか 2 つで鍵を復元できます。鍵全体を保管することはありません。',
    factor_deviceShareFactor: 'このデバイス',
    factor_backUpShareFactor: 'バックアップフレーズ（24 語）',
    factor_passwordFactor: 'パスワード',
    factor_socialBackupFactor: 'ソーシャルバックアップ（アプリで設定）',
    required: '必須',
    password: 'パスワード（8 文字以上）',
    mfaEnable: '有効にする',
    mfaSkip: '後で',
    tooFew: '2 つ以上の要素を選んでください。',
    phraseTitle: 'バックアップフレーズ',
    phraseNote: 'この 24 語を書き留め、オフラインで保管してください。表示は一度だけです。',
    phraseDone: '書き留めました',
    recoverTitle: '本人確認',
    recoverNote:
      'このデバイスにはまだ鍵のシェアがありません。バックアップフレーズかパスワードを使ってください。',
    recoverPhrase: 'バックアップフレーズ',
    recoverPassword: 'パスワード',
    recoverSubmit: '続行',
    badPhrase: 'バックアップフレーズは 24 語です。',
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
    mfaSetupTitle: '계정 보호',
    mfaSetupNote:
      '두 가지 이상의 요소를 선택하세요. 그중 두 가지로 키를 복구할 수 있으며, 키 전체는 보관하지 않습니다.',
    factor_deviceShareFactor: '이 기기',
    factor_backUpShareFactor: '백업 문구(24단어)',
    factor_passwordFactor: '비밀번호',
    factor_socialBackupFactor: '소셜 백업(앱에서 설정)',
    required: '필수',
    password: '비밀번호(8자 이상)',
    mfaEnable: '사용',
    mfaSkip: '나중에',
    tooFew: '두 가지 이상의 요소를 선택하세요.',
    phraseTitle: '백업 문구',
    phraseNote: '이 24단어를 적어 오프라인으로 보관하세요. 한 번만 표시됩니다.',
    phraseDone: '적어 두었습니다',
    recoverTitle: '본인 확인',
    recoverNote: '이 기기에는 아직 키 조각이 없습니다. 백업 문구나 비밀번호를 사용하세요.',
    recoverPhrase: '백업 문구',
    recoverPassword: '비밀번호',
    recoverSubmit: '계속',
    badPhrase: '백업 문구는 24단어입니다.',
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
    mfaSetupTitle: '保护您的账户',
    mfaSetupNote: '请至少选择两个因素。任意两个即可恢复您的密钥；我们从不保存完整密钥。',
    factor_deviceShareFactor: '此设备',
    factor_backUpShareFactor: '备份助记词（24 个单词）',
    factor_passwordFactor: '密码',
    factor_socialBackupFactor: '社交备份（在应用中设置）',
    required: '必填',
    password: '密码（至少 8 个字符）',
    mfaEnable: '启用',
    mfaSkip: '稍后',
    tooFew: '请至少选择两个因素。',
    phraseTitle: '您的备份助记词',
    phraseNote: '请写下这 24 个单词并离线保存。它们只显示一次。',
    phraseDone: '我已写下',
    recoverTitle: '验证身份',
    recoverNote: '此设备还没有密钥分片。请使用备份助记词或密码。',
    recoverPhrase: '备份助记词',
    recoverPassword: '密码',
    recoverSubmit: '继续',
    badPhrase: '备份助记词有 24 个单词。',
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
    mfaSetupTitle: 'Protege tu cuenta',
    mfaSetupNote:
      'Elige al menos dos factores. Dos cualesquiera restauran tu clave; nunca la guardamos completa.',
    factor_deviceShareFactor: 'Este dispositivo',
    factor_backUpShareFactor: 'Frase de respaldo (24 palabras)',
    factor_passwordFactor: 'Contraseña',
    factor_socialBackupFactor: 'Respaldo social (se configura en la app)',
    required: 'obligatorio',
    password: 'Contraseña (al menos 8 caracteres)',
    mfaEnable: 'Activar',
    mfaSkip: 'Ahora no',
    tooFew: 'Elige al menos dos factores.',
    phraseTitle: 'Tu frase de respaldo',
    phraseNote: 'Anota estas 24 palabras y guárdalas sin conexión. Solo se muestran una vez.',
    phraseDone: 'Ya la anoté',
    recoverTitle: 'Confirma que eres tú',
    recoverNote:
      'Este dispositivo aún no tiene una parte de la clave. Usa tu frase de respaldo o tu contraseña.',
    recoverPhrase: 'Frase de respaldo',
    recoverPassword: 'Contraseña',
    recoverSubmit: 'Continuar',
    badPhrase: 'Una frase de respaldo tiene 24 palabras.',
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
    mfaSetupTitle: 'Sécurisez votre compte',
    mfaSetupNote:
      'Choisissez au moins deux facteurs. Deux d’entre eux suffisent à restaurer votre clé ; nous ne la gardons jamais entière.',
    factor_deviceShareFactor: 'Cet appareil',
    factor_backUpShareFactor: 'Phrase de secours (24 mots)',
    factor_passwordFactor: 'Mot de passe',
    factor_socialBackupFactor: 'Sauvegarde sociale (dans l’application)',
    required: 'obligatoire',
    password: 'Mot de passe (8 caractères minimum)',
    mfaEnable: 'Activer',
    mfaSkip: 'Plus tard',
    tooFew: 'Choisissez au moins deux facteurs.',
    phraseTitle: 'Votre phrase de secours',
    phraseNote: 'Notez ces 24 mots et conservez-les hors ligne. Ils ne sont affichés qu’une fois.',
    phraseDone: 'Je l’ai notée',
    recoverTitle: 'Confirmez votre identité',
    recoverNote:
      'Cet appareil n’a pas encore de part de clé. Utilisez votre phrase de secours ou votre mot de passe.',
    recoverPhrase: 'Phrase de secours',
    recoverPassword: 'Mot de passe',
    recoverSubmit: 'Continuer',
    badPhrase: 'Une phrase de secours compte 24 mots.',
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
    mfaSetupTitle: 'Proteja sua conta',
    mfaSetupNote:
      'Escolha pelo menos dois fatores. Quaisquer dois restauram sua chave; nunca a guardamos inteira.',
    factor_deviceShareFactor: 'Este dispositivo',
    factor_backUpShareFactor: 'Frase de backup (24 palavras)',
    factor_passwordFactor: 'Senha',
    factor_socialBackupFactor: 'Backup social (configure no app)',
    required: 'obrigatório',
    password: 'Senha (pelo menos 8 caracteres)',
    mfaEnable: 'Ativar',
    mfaSkip: 'Agora não',
    tooFew: 'Escolha pelo menos dois fatores.',
    phraseTitle: 'Sua frase de backup',
    phraseNote: 'Anote estas 24 palavras e guarde-as offline. Elas são mostradas só uma vez.',
    phraseDone: 'Já anotei',
    recoverTitle: 'Confirme que é você',
    recoverNote: 'Este dispositivo ainda não tem uma parte da chave. Use sua frase de backup ou sua senha.',
    recoverPhrase: 'Frase de backup',
    recoverPassword: 'Senha',
    recoverSubmit: 'Continuar',
    badPhrase: 'Uma frase de backup tem 24 palavras.',
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
    mfaSetupTitle: 'Beveilig je account',
    mfaSetupNote:
      'Kies minstens twee factoren. Elke twee ervan herstellen je sleutel; we bewaren hem nooit in zijn geheel.',
    factor_deviceShareFactor: 'Dit apparaat',
    factor_backUpShareFactor: 'Herstelzin (24 woorden)',
    factor_passwordFactor: 'Wachtwoord',
    factor_socialBackupFactor: 'Sociale back-up (in de app instellen)',
    required: 'verplicht',
    password: 'Wachtwoord (minstens 8 tekens)',
    mfaEnable: 'Inschakelen',
    mfaSkip: 'Later',
    tooFew: 'Kies minstens twee factoren.',
    phraseTitle: 'Je herstelzin',
    phraseNote: 'Schrijf deze 24 woorden op en bewaar ze offline. Ze worden maar één keer getoond.',
    phraseDone: 'Ik heb ze opgeschreven',
    recoverTitle: 'Bevestig dat jij het bent',
    recoverNote: 'Dit apparaat heeft nog geen sleuteldeel. Gebruik je herstelzin of je wachtwoord.',
    recoverPhrase: 'Herstelzin',
    recoverPassword: 'Wachtwoord',
    recoverSubmit: 'Doorgaan',
    badPhrase: 'Een herstelzin heeft 24 woorden.',
  },
};

const $ = (id) => document.getElementById(id);
let lang = 'en';
let loginId = '';

function t(key, vars = {}) {
  const text = (Object.hasOwn(STRINGS, lang) ? STRINGS[lang] : STRINGS.en)[key] ?? STRINGS.en[key];
  return text.replace(/\{(\w+)\}/g, (_, name) => vars[name] ?? '');
}

function show(id) {
  for (const section of [
    'loading',
    'providers',
    'dev-form',
    'mfa-setup',
    'mfa-phrase',
    'mfa-recover',
    'error',
  ])
    $(section).hidden = section !== id;
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

function decodeB64(raw) {
  const bin = atob(raw.replace(/-/g, '+').replace(/_/g, '/'));
  return JSON.parse(new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0))));
}

function encodeB64(value) {
  let bin = '';
  for (const b of new TextEncoder().encode(JSON.stringify(value))) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function readLoginId() {
  const raw = new URLSearchParams(location.hash.slice(1)).get('b64Params');
  if (!raw) return '';
  return decodeB64(raw).loginId ?? '';
}

// What the page's CSP lets it show: logos over https: or as data:image/ URLs; links over http(s).
function safeUrl(value, kind) {
  try {
    const url = new URL(value);
    if (kind === 'image') {
      return url.protocol === 'https:' || /^data:image\//.test(url.href) ? url.href : '';
    }
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : '';
  } catch {
    return '';
  }
}

function applyWhiteLabel(wl) {
  lang = Object.hasOwn(STRINGS, wl.defaultLanguage) ? wl.defaultLanguage : 'en';
  document.documentElement.lang = lang;
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
  if (logo) $('logo').src = logo;
  $('logo').alt = wl.appName ?? '';
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

// MFA setup: the enabled factors in the app's priority order; mandatory ones checked and locked.
function showSetup(step) {
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
  const needsPassword = () => list.querySelector('input[value="passwordFactor"]')?.checked === true;
  const syncPassword = () => {
    $('mfa-password').hidden = !needsPassword();
    $('mfa-password-label').hidden = !needsPassword();
  };
  list.onchange = syncPassword;
  syncPassword();
  $('mfa-skip').hidden = !step.skippable;
  $('mfa-skip').onclick = async () => {
    show('loading');
    const done = await post('/api/mfa/skip', { loginId }).catch((err) => fail(err.message));
    if (done) location.replace(done.url);
  };
  $('mfa-setup').onsubmit = async (event) => {
    event.preventDefault();
    const factors = [...list.querySelectorAll('input:checked')].map((b) => b.value);
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
        password: needsPassword() ? $('mfa-password').value : undefined,
      });
      $('mfa-password').value = '';
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
function showRecover(step) {
  $('logo').classList.remove('loading');
  $('mfa-recover-title').textContent = t('recoverTitle');
  $('mfa-recover-note').textContent = t('recoverNote');
  $('mfa-recover-phrase-label').textContent = t('recoverPhrase');
  $('mfa-recover-password-label').textContent = t('recoverPassword');
  $('mfa-recover-submit').textContent = t('recoverSubmit');
  let chosen = step.factors[0];
  const choice = $('mfa-recover-choice');
  const pick = (factor) => {
    chosen = factor;
    const phrase = factor === 'backUpShareFactor';
    $('mfa-recover-phrase').hidden = !phrase;
    $('mfa-recover-phrase-label').hidden = !phrase;
    $('mfa-recover-password').hidden = phrase;
    $('mfa-recover-password-label').hidden = phrase;
    for (const b of choice.children) b.classList.toggle('selected', b.dataset.factor === factor);
  };
  choice.replaceChildren(
    ...step.factors.map((factor) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'provider';
      b.dataset.factor = factor;
      b.textContent = t(factor === 'backUpShareFactor' ? 'recoverPhrase' : 'recoverPassword');
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
      const words = $('mfa-recover-phrase').value.trim().split(/\s+/);
      if (words.length !== 24) {
        error.textContent = t('badPhrase');
        error.hidden = false;
        return;
      }
      factor.backupPhrase = words.join(' ').toLowerCase();
    } else {
      factor.password = $('mfa-recover-password').value;
    }
    try {
      const done = await post('/api/mfa/recover', { loginId });
      const url = new URL(done.url);
      const fragment = new URLSearchParams(url.hash.slice(1));
      const result = decodeB64(fragment.get('b64Params'));
      // The rest of the fragment (the /done page's origin) stays as the service made it.
      fragment.set('b64Params', encodeB64({ ...result, mfaFactor: factor }));
      url.hash = fragment.toString();
      $('mfa-recover-phrase').value = '';
      $('mfa-recover-password').value = '';
      location.replace(url.href);
    } catch (err) {
      error.textContent = err.message;
      error.hidden = false;
    }
  };
  show('mfa-recover');
}

function showMfa(step) {
  if (step.step === 'recover') showRecover(step);
  else showSetup(step);
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
        if (done.mfa) return showMfa(done.mfa);
        location.replace(done.url);
      } catch (err) {
        fail(err.message);
      }
    };
    return;
  }
  if (next.mfa) return showMfa(next.mfa);
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
  if (raw && decodeB64(raw).mfa) return showMfa(await post('/api/mfa/pending', { loginId }));
  if (view.loginProvider) return start(view.loginProvider);
  if (view.providers.length === 0) return fail('No login providers are configured.');
  renderProviders(view.providers);
}

main().catch((err) => fail(err.message));
