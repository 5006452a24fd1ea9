// What `startAuthServer` takes and returns.
import type { KeyExportPolicy, Network } from '@portico/auth';
import type { AttemptLimits } from './attempts.ts';
import type { AuditWebhook } from './audit-webhooks.ts';
import type { DevJwtOptions } from './dev-jwt.ts';
import type { LoginEvent } from './login-event.ts';
import type { RateLimits } from './rate-limit.ts';
import type { VerifierConfig } from './verifiers/config.ts';

export interface StartAuthServerOptions {
  /** Port to listen on (default 0: any free port). */
  port?: number;
  host?: string;
  /** SQLite file, development master key (default `.portico/auth`). */
  dataDir?: string;
  /** PostgreSQL connection string; when set, the store lives there instead of SQLite. */
  databaseUrl?: string;
  /** 64 hex characters or a 32+ character passphrase; else PORTICO_AUTH_MASTER_KEY; else a dev key file. */
  masterKey?: string;
  /** `iss` of the idTokens (default: the service's own base URL). */
  issuerUrl?: string;
  /** Public base URL when behind a proxy (default `http://<publicHost>:<port>`). */
  publicUrl?: string;
  /**
   * The host name of the default public URL, with the port the service listens on (default: the
   * address it listens on). Passkeys need a name: WebAuthn takes no IP address as RP ID, so a
   * service on `127.0.0.1` is published as `localhost` for them to work (`portico dev` does).
   */
  publicHost?: string;
  /** Verifiers by name. With none, the development login is on for every provider. */
  verifiers?: Record<string, VerifierConfig>;
  /** Offer the development login for providers without a configured verifier (default: no verifiers given). */
  devLogin?: boolean;
  /** When set, login results go only to redirect URLs on these origins (clients without `allowedRedirects`). */
  allowedRedirectOrigins?: string[];
  /**
   * Per clientId, the redirect URLs its login results may go to: web URLs or origins, loopback
   * addresses (`http://127.0.0.1/cb` matches any port) and native apps' custom schemes
   * (`com.example.app://auth`, which are refused unless listed here).
   */
  allowedRedirects?: Record<string, string[]>;
  onLog?: (line: string) => void;
  /**
   * Longest sign-in in seconds, renewals included (the absolute cap). A session lasts the app's
   * `sessionTime` (at most this much; longer requests are cut and the library warns the app) and
   * each renewal while the app is used grants another `sessionTime`, never past `maxSessionTime`
   * from the login. Unset: no cap (the spec sets none), so a session used often enough lives on.
   */
  maxSessionTime?: number;
  /**
   * The network whose users keep the keys made before keys were separated by network (default
   * `sapphire_mainnet`, v7's production network). Every other network gets unrelated keys.
   */
  legacyNetwork?: Network;
  /** Clock for session and login-request expiry, in ms (tests move it forward). Default `Date.now`. */
  clock?: () => number;
  /**
   * Told of every completed login (who, which app, the addresses of its keys; never keys or
   * tokens). Awaited before the result goes back to the app; a failure is logged, the login stands.
   */
  onLogin?: (event: LoginEvent) => Promise<void> | void;
  /**
   * **Development only** (`portico dev`): a custom-JWT verifier (default name `jwt`) trusting
   * `key`, and `POST /dev/token {sub, email?, name?}`, which signs a token for any user id.
   * Anyone who can reach the service can then log in as anyone. Never in production.
   */
  devJwt?: DevJwtOptions;
  /**
   * Limits on typed second factors (password, backup phrase, social-backup login), per user and
   * per client address, counted in the store. Defaults follow Keycloak's brute-force detection:
   * see `DEFAULT_ATTEMPT_LIMITS`.
   */
  attemptLimits?: Partial<AttemptLimits>;
  /** Turns the admin API on (`/admin/*`, `Authorization: Bearer <adminToken>`); 32+ characters. */
  adminToken?: string;
  /**
   * Behind a reverse proxy: take the client address from the last `X-Forwarded-For` entry (the one
   * the proxy added). Off by default: the socket's address.
   */
  trustProxy?: boolean;
  /**
   * Per-address requests per minute (per instance): `tokensPerMinute` (default 300) to each of
   * `/dev/token`, `/api/session` (parking a login), `/api/login/jwt`, `/api/dev-login`;
   * `readsPerMinute` (default 1200) to `/api/session/get`.
   */
  rateLimits?: Partial<RateLimits>;
  /** Every audit entry is also POSTed to these URLs, signed with HMAC-SHA256 (see audit-webhooks.ts). */
  auditWebhooks?: AuditWebhook[];
  /**
   * Who may read a user's key, per clientId (beyond `002_…txt`): `app` (the default, as v7: the
   * session carries the keys and `getPrivKey()` returns them), `user` (the app never receives key
   * material: identity and the idToken's public keys only) or `off` (the same, and no export is
   * ever offered). A clientId not listed is `app`.
   */
  exportPolicy?: Record<string, KeyExportPolicy>;
}

export interface AuthServer {
  /** The login page base: the library's `sdkUrl`. */
  sdkUrl: string;
  /** The idToken signing keys. */
  jwksUrl: string;
  close(): Promise<void>;
}
