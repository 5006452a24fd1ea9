// The account page's texts in the login page's nine languages (a text missing in one is shown in
// English), and `ta` to look one up in the page's language.

import { ja, ko, zh } from './account-strings-cjk.js';
import { de, es, fr, nl, pt } from './account-strings-latin.js';

export const ACCOUNT_STRINGS = {
  en: {
    title: 'Your account',
    sessions: 'Signed-in devices',
    passkeys: 'Passkeys',
    thisDevice: 'this device',
    unnamed: 'Unnamed device',
    app: 'App {app}',
    created: 'Signed in {date}',
    renewed: 'last renewed {date}',
    passkeyCreated: 'Created {date}',
    lastUsed: 'last used {date}',
    transports: 'connects by {list}',
    end: 'Sign out',
    remove: 'Remove',
    noPasskeys: 'No passkeys yet.',
    mfaPasskeys: 'Passkey for two-step verification',
    mfaPasskeysNote: 'It is part of your two-step verification, so it cannot be removed here.',
    notUsedYet: 'not used yet',
    mfaDevices: 'Devices for two-step verification',
    mfaDevicesNote:
      'Each of these devices keeps a share of your key. Revoke one you no longer have (lost or sold): its share can no longer be used.',
    mfaDevice: 'Device {id}',
    deviceAdded: 'Added {date}',
    addedUnknown: 'Date added not recorded',
    deviceRevoked: 'revoked {date}',
    revoked: 'revoked',
    revoke: 'Revoke',
    lastPasskey: 'This passkey is your only way to sign in: add another one before removing it.',
    signedOut: 'This device is signed out. You can close this window.',
    expired: 'This page has expired. Open it again from the app.',
    error: 'Something went wrong',
    powered: 'Secured by Portico',
    exportTitle: 'Private key',
    exportOffered:
      'You can show your private key here, and only here. Anyone who sees it controls your account and its funds: keep it secret.',
    exportShow: 'Show my private key',
    exportStale: 'To export your key, sign in again in the app, then open this page within 5 minutes.',
    exportMfa:
      'Key export here needs a password, backup phrase or authenticator app for two-step verification, and this account has none of them.',
    exportOff: 'This app does not offer key export here.',
    exportFactor:
      'Your account uses two-step verification: enter one of your second factors to show your private key here, and only here. Anyone who sees it controls your account and its funds: keep it secret.',
    factorPassword: 'Password',
    factorBackupPhrase: 'Backup phrase (24 words)',
    factorAuthenticatorCode: 'Code from your authenticator app',
    wrongFactor: 'That was not right. Check it and try again.',
    tooManyAttempts: 'Too many wrong attempts. Wait a few minutes, then try again.',
  },
  de,
  es,
  fr,
  pt,
  nl,
  ja,
  ko,
  zh,
};

let lang = 'en';

/** Makes `tag`'s language the page's when the table has it (else English); returns the language used. */
export function setAccountLanguage(tag) {
  const short = String(tag ?? '')
    .slice(0, 2)
    .toLowerCase();
  lang = Object.hasOwn(ACCOUNT_STRINGS, short) ? short : 'en';
  return lang;
}

export function ta(key, vars = {}) {
  const table = Object.hasOwn(ACCOUNT_STRINGS, lang) ? ACCOUNT_STRINGS[lang] : ACCOUNT_STRINGS.en;
  const text = table[key] ?? ACCOUNT_STRINGS.en[key];
  return text.replace(/\{(\w+)\}/g, (_, name) => vars[name] ?? '');
}
