// The login page's texts in its nine languages, and `t` to look one up in the page's language
// (set from the app's white label; English for any text a language lacks).

import { ja, ko, zh } from './strings-cjk.js';
import { de, es, fr, nl, pt } from './strings-latin.js';

export const STRINGS = {
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
    recoverNote:
      'This device has no key share yet. Use another factor: your backup phrase, password or authenticator app.',
    recoverPhrase: 'Backup phrase',
    recoverPassword: 'Password',
    recoverSubmit: 'Continue',
    badPhrase: 'A backup phrase has 24 words.',
    confirmTitle: 'Confirm it is you',
    confirmNote:
      'Confirm a second factor so that this sign-in can end your other sessions and manage your devices. You can also do it later.',
    confirmLater: 'Not now',
    factor_authenticatorFactor: 'Authenticator app',
    authenticatorNote:
      'Scan the code with your authenticator app (or add the link below), then enter the 6-digit code it shows.',
    authenticatorCode: 'Code from the app',
    recoverCode: 'Authenticator app',
    passkeyTitle: 'Passkey',
    passkeyNote: 'Sign in with a passkey saved on this device, a security key or your phone.',
    passkeySignIn: 'Sign in with a passkey',
    passkeyCreate: 'New here? Create an account with a passkey',
    passkeyName: 'Your name (shown with the passkey)',
    passkeyLinkTitle: 'Add a passkey',
    passkeyLinkNote: 'Create a passkey for your account: next time you can sign in with it alone.',
    passkeyLinkCreate: 'Create a passkey',
    passkeyCancelled: 'The passkey request was cancelled or timed out. Try again.',
    passkeyUnsupported: 'This browser does not support passkeys.',
    factor_passkeysFactor: 'Passkey',
    passkeyFactorNote: 'Create a passkey on this device: it will unlock your key on new devices.',
    passkeyFactorDone: 'Passkey created',
    recoverPasskey: 'Passkey',
  },
  de,
  ja,
  ko,
  zh,
  es,
  fr,
  pt,
  nl,
};

let lang = 'en';

/** Makes `tag` the page's language when the table has it (else English); returns the language used. */
export function setLanguage(tag) {
  lang = Object.hasOwn(STRINGS, tag) ? tag : 'en';
  return lang;
}

export function t(key, vars = {}) {
  const text = (Object.hasOwn(STRINGS, lang) ? STRINGS[lang] : STRINGS.en)[key] ?? STRINGS.en[key];
  return text.replace(/\{(\w+)\}/g, (_, name) => vars[name] ?? '');
}
