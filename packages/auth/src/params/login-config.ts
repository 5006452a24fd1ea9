// `loginConfig` (custom verifiers by login name) and the `extraLoginOptions` they and a login take.
import { type Infer, optional } from '@metamask/superstruct';
import { dict, exact, flag, nonEmptyText, oneOf, text, wholeNumber } from './rules.ts';
import { TYPES_OF_LOGIN } from './values.ts';

export const extraLoginOptions = exact({
  display: optional(text),
  prompt: optional(text),
  max_age: optional(text),
  ui_locales: optional(text),
  id_token_hint: optional(text),
  id_token: optional(text),
  login_hint: optional(text),
  acr_values: optional(text),
  scope: optional(text),
  audience: optional(text),
  connection: optional(text),
  domain: optional(text),
  client_id: optional(text),
  redirect_uri: optional(text),
  verifierIdField: optional(text),
  leeway: optional(wholeNumber('a whole number of seconds, 0 or more', 0)),
  isVerifierIdCaseSensitive: optional(flag),
  additionalParams: optional(dict(text, 'an object of string values')),
});
export type ExtraLoginOptions = Infer<typeof extraLoginOptions>;

export const loginConfigEntry = exact(
  {
    verifier: nonEmptyText,
    typeOfLogin: oneOf(TYPES_OF_LOGIN),
    clientId: nonEmptyText,
    name: optional(text),
    verifierSubIdentifier: optional(text),
    description: optional(text),
    logoHover: optional(text),
    logoLight: optional(text),
    logoDark: optional(text),
    mainOption: optional(flag),
    showOnModal: optional(flag),
    showOnDesktop: optional(flag),
    showOnMobile: optional(flag),
    jwtParameters: optional(extraLoginOptions),
  },
  { shape: 'an object with verifier, typeOfLogin, clientId' },
);
export type AuthLoginConfig = Infer<typeof loginConfigEntry>;

export const loginConfig = dict(loginConfigEntry, 'an object keyed by login name');
