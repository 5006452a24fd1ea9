// The page's half of the factor registry: each factor's setup step (the panel shown while it is
// ticked, what it sends to /api/mfa/setup) and recovery step (its input, its label, what the app's
// library receives). The service's half is src/factors/, the library's src/mfa-factors.ts.
import { $, field, post } from './page.js';
import { t } from './strings.js';
import { authenticationJson, creationOptions, registrationJson, requestOptions } from './webauthn.js';

/**
 * @typedef {{
 *   panel?: string[],
 *   open?: (loginId: string) => Promise<void>,
 *   send?: { field: string, read: () => string },
 *   libraryOnly?: true,
 * }} SetupStep
 * @typedef {{
 *   input: string,
 *   label: string,
 *   field: string,
 *   read: (value: string) => string | undefined,
 *   prepare?: (loginId: string, mode: 'login' | 'confirm') => Promise<string>,
 * }} RecoverStep
 * @typedef {{ setup?: SetupStep, recover?: RecoverStep }} PageFactor
 */

/** The authenticator app: a secret made for this login, shown as a QR code and an otpauth:// link. */
async function enrolAuthenticator(loginId) {
  $('mfa-authenticator-note').textContent = t('authenticatorNote');
  $('mfa-authenticator-code-label').textContent = t('authenticatorCode');
  const { uri, qrSvg } = await post('/api/mfa/authenticator', { loginId });
  /** @type {HTMLImageElement} */ ($('mfa-authenticator-qr')).src =
    `data:image/svg+xml;base64,${btoa(qrSvg)}`;
  field('mfa-authenticator-uri').value = uri;
}

/** The passkey factor's setup: the device makes a passkey for this account (the service checks it at setup). */
async function enrolPasskey(loginId) {
  $('mfa-passkey-note').textContent = t('passkeyFactorNote');
  const button = /** @type {HTMLButtonElement} */ ($('mfa-passkey-create'));
  button.textContent = t('passkeyLinkCreate');
  button.onclick = async () => {
    const error = $('mfa-setup-error');
    error.hidden = true;
    try {
      const { challengeId, options } = await post('/api/mfa/passkey', { loginId, mode: 'register' });
      const credential = /** @type {PublicKeyCredential | null} */ (
        await navigator.credentials.create({ publicKey: creationOptions(options) })
      );
      if (!credential) throw new Error(t('passkeyCancelled'));
      field('mfa-passkey-answer').value = JSON.stringify({
        challengeId,
        response: registrationJson(credential),
      });
      button.textContent = t('passkeyFactorDone');
      button.disabled = true;
    } catch (err) {
      error.textContent = err.name === 'NotAllowedError' ? t('passkeyCancelled') : err.message;
      error.hidden = false;
    }
  };
}

/**
 * The passkey factor's recovery (`login`: the device answers a challenge made for this user; the
 * app's library hands it on) or confirmation (`confirm`: a challenge bound to the login's sign-in,
 * answered to the service).
 */
async function answerPasskey(loginId, mode) {
  const { challengeId, options } = await post('/api/mfa/passkey', { loginId, mode });
  let credential;
  try {
    credential = /** @type {PublicKeyCredential | null} */ (
      await navigator.credentials.get({ publicKey: requestOptions(options) })
    );
  } catch (err) {
    throw new Error(err.name === 'NotAllowedError' ? t('passkeyCancelled') : err.message);
  }
  if (!credential) throw new Error(t('passkeyCancelled'));
  return JSON.stringify({ challengeId, response: authenticationJson(credential) });
}

/** A backup phrase as the service takes it: 24 words, lower case; undefined otherwise. */
function readPhrase(value) {
  const words = value.trim().split(/\s+/);
  return words.length === 24 ? words.join(' ').toLowerCase() : undefined;
}

/** @type {Record<string, PageFactor>} */
export const PAGE_FACTORS = {
  deviceShareFactor: {},
  backUpShareFactor: {
    recover: { input: 'mfa-recover-phrase', label: 'recoverPhrase', field: 'backupPhrase', read: readPhrase },
  },
  passwordFactor: {
    setup: {
      panel: ['mfa-password', 'mfa-password-label'],
      send: { field: 'password', read: () => field('mfa-password').value },
    },
    recover: { input: 'mfa-recover-password', label: 'recoverPassword', field: 'password', read: (v) => v },
  },
  // A second login, which the app's library runs.
  socialBackupFactor: { setup: { libraryOnly: true } },
  authenticatorFactor: {
    setup: {
      panel: ['mfa-authenticator'],
      open: enrolAuthenticator,
      send: { field: 'authenticatorCode', read: () => field('mfa-authenticator-code').value.trim() },
    },
    recover: {
      input: 'mfa-recover-code',
      label: 'recoverCode',
      field: 'authenticatorCode',
      read: (v) => v.trim(),
    },
  },
  passkeysFactor: {
    setup: {
      panel: ['mfa-passkey'],
      open: enrolPasskey,
      send: { field: 'passkeyCredential', read: () => field('mfa-passkey-answer').value },
    },
    recover: {
      input: 'mfa-recover-passkey',
      label: 'recoverPasskey',
      field: 'passkeyAssertion',
      read: (v) => v || undefined,
      prepare: answerPasskey,
    },
  },
};

/** The setup inputs to clear once they were sent. */
export const SETUP_INPUTS = [
  'mfa-password',
  'mfa-authenticator-code',
  'mfa-authenticator-uri',
  'mfa-passkey-answer',
];
