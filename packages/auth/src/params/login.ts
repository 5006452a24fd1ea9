// The login parameters: `auth.login(loginParams)`, checked against the init parameters.
import { type Infer, optional, refine } from '@metamask/superstruct';
import type { AuthInitParams } from './init.ts';
import { extraLoginOptions } from './login-config.ts';
import { exact, failAt, oneOf, rule, text } from './rules.ts';
import { CURVES, LOGIN_PROVIDERS, MFA_LEVELS } from './values.ts';

const dappShare = rule<string>((v, ctx) => {
  if (typeof v !== 'string' || v.trim() === '') return 'a non-empty string';
  return v.trim().split(/\s+/).length === 24 || failAt(ctx.path, 'a 24-word share', '(not 24 words)');
});

/** The login parameters' schema: a login provider is a built-in one or a key of init's loginConfig. */
export function loginParams(init: AuthInitParams) {
  const fields = exact(
    {
      mfaLevel: optional(oneOf(MFA_LEVELS)),
      /**
       * Which public key the service-signed idToken carries in `wallets` (default `secp256k1`). It does
       * not change the keys: `getPrivKey()` is always the secp256k1 key, `getEd25519PrivKey()` the ed25519 one.
       */
      curve: optional(oneOf(CURVES)),
      /** A built-in provider or a key of `loginConfig`; omitted, the login page lists the providers. */
      loginProvider: optional(oneOf<string>([...LOGIN_PROVIDERS, ...Object.keys(init.loginConfig ?? {})])),
      dappShare: optional(dappShare),
      extraLoginOptions: optional(extraLoginOptions),
      /** v5/v6: opaque app state handed back with the result (`LoginOutcome.appState`; redirect mode: `auth.appState`). */
      appState: optional(text),
    },
    {
      name: 'loginParams',
      listed: ['loginProvider', 'dappShare', 'extraLoginOptions', 'mfaLevel', 'curve', 'appState'],
    },
  );
  return refine(
    fields,
    'jwtNeedsToken',
    (params) =>
      !(params.loginProvider === 'jwt' && !init.loginConfig?.jwt && !params.extraLoginOptions?.id_token) ||
      failAt(['extraLoginOptions', 'id_token'], 'a JWT when loginProvider is "jwt"'),
  );
}

export type AuthLoginParams = Infer<ReturnType<typeof loginParams>>;
