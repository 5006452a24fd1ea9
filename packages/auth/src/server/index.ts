// @portico/auth/server (Node only): the app's server learns who the user is from an HttpOnly
// session cookie holding the auth service's idToken, checked against the service's public JWKS.
// Never import this from browser code; the library's side is the `sessionCookie` option of `Auth`.
export { DEFAULT_COOKIE_NAME } from './cookie.ts';
export {
  type CookieSource,
  createSessionCookieHandler,
  type SessionCookieHandler,
  type SessionCookieOptions,
} from './handler.ts';
export {
  AuthServiceUnreachableError,
  createSessionVerifier,
  type SessionUser,
  type SessionVerifier,
  type SessionVerifierOptions,
  type SessionWallet,
} from './verify.ts';
