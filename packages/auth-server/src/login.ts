// The login path: parked request → provider → verifier → keys → idToken → encrypted session →
// redirect. This file routes the API calls; the parts live in ./login/ (request, provider flows,
// completion with MFA, the MFA calls).
import { HttpError } from './http.ts';
import { confirmPageRoutes } from './login/confirm-page-routes.ts';
import { confirmRoutes } from './login/confirm-routes.ts';
import { type Answer, type ClientInfo, type LoginDeps, loginContext, type Route } from './login/context.ts';
import { callbackRedirect, loginRoutes } from './login/login-routes.ts';
import { mfaRoutes } from './login/mfa-routes.ts';
import { passkeyRoutes } from './login/passkey-routes.ts';

export type { ClientInfo, ConfirmMfa, LoginDeps, PendingMfa, RecoverMfa } from './login/context.ts';

/** Paths the client library calls from the app's origin. */
export const LOGIN_CORS_PATHS = [
  '/api/login/jwt',
  '/api/mfa/pending',
  '/api/mfa/setup',
  '/api/mfa/authenticator',
  '/api/mfa/skip',
  '/api/mfa/social',
  '/api/mfa/factor',
  '/api/mfa/confirm',
  '/api/mfa/confirm/passkey',
  '/api/mfa/confirm/status',
  '/api/mfa/confirm/ticket',
  '/api/mfa/device',
  '/api/mfa/revoke',
  '/api/passkey/link',
];

/** Every login and MFA route by path (a Map: a path is looked up, never inherited). */
const ROUTES = new Map<string, Route>(
  Object.entries({ ...loginRoutes, ...mfaRoutes, ...confirmRoutes, ...confirmPageRoutes, ...passkeyRoutes }),
);

export function createLogin(deps: LoginDeps) {
  const ctx = loginContext(deps);
  return {
    /** The login page's and the library's `/api/login/*`, `/api/dev-login` and `/api/mfa/*` calls. */
    async api(path: string, body: Record<string, unknown>, client: ClientInfo): Promise<Answer> {
      const route = ROUTES.get(path);
      if (!route) throw new HttpError(404, 'NOT_FOUND', 'Not found');
      return route(ctx, body, path, client);
    },
    callbackRedirect: (url: URL): Promise<string> => callbackRedirect(ctx, url),
    /** The login path's parts (the account page checks an export's typed factor with them). */
    context: ctx,
  };
}
