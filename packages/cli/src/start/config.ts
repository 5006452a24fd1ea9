// The sections `portico start` adds to the gateway's config file — `dashboard`, `auth`, `wallet` —
// checked by the gateway's own schema builders, so one file has one set of rules and messages
// (unknown fields named with the closest known one, `${VAR}` from the environment).
import {
  configBoolean as boolean,
  configField as field,
  configFromEnv as fromEnv,
  type GatewayConfig,
  configInteger as integer,
  isRecord,
  configList as list,
  loadConfigFile,
  configOptional as optional,
  configOptionalString as optionalString,
  configRecord as record,
  configRootOf as rootOf,
  configSection as section,
  configDefault as withDefault,
} from '@portico/gateway';

/** A part's port: written, or the gateway's port plus `offset` as in `portico dev` (0 stays 0). */
const portNextToGateway = (offset: number) =>
  withDefault(integer(0, 65535), (context) => {
    const port = rootOf(context).port;
    return typeof port === 'number' ? (port === 0 ? 0 : port + offset) : 8545 + offset;
  });

const hostOfGateway = withDefault(optionalString, (context) => {
  const host = rootOf(context).host;
  return typeof host === 'string' ? host : '127.0.0.1';
}) as ReturnType<typeof field<string>>;

const httpUrlString = field<string>((value, at) => {
  if (typeof value !== 'string') return `${at} must be a URL string`;
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:' || `${at} must be an http(s) URL`;
  } catch {
    return `${at} must be an http(s) URL`;
  }
});

const strings = (what: string) =>
  list(
    field<string>((value, at) => typeof value === 'string' || `${at} must be a string`),
    () => true,
    (at) => `${at} must be a list of ${what}`,
  );

const section_ = (value: unknown) => (value === undefined || value === null ? {} : value);

const dashboardSchema = section(
  { enabled: withDefault(boolean, false) },
  { prepare: (value) => (typeof value === 'boolean' ? { enabled: value } : section_(value)) },
);

/** One verifier: the fields of `startAuthServer`'s JwtVerifierConfig / OidcVerifierConfig / AggregateVerifierConfig / PasskeyVerifierConfig. */
const verifierSchema = (env: NodeJS.ProcessEnv) =>
  section(
    {
      type: field<'jwt' | 'oidc' | 'aggregate' | 'passkey'>((value, at) => {
        if (value === 'dev')
          return `${at}: dev is the development login, which portico start refuses (use portico dev)`;
        return (
          value === 'jwt' ||
          value === 'oidc' ||
          value === 'aggregate' ||
          value === 'passkey' ||
          `${at} must be jwt, oidc, aggregate or passkey`
        );
      }),
      name: optionalString,
      jwksUrl: optional(fromEnv(httpUrlString, env)),
      keys: optional(
        list(
          field<Record<string, unknown>>((value, at) => isRecord(value) || `${at} must be a JWK object`),
          (value, at) => value.length > 0 || `${at} must hold at least one JWK`,
          (at) => `${at} must be a list of JWKs`,
        ),
      ),
      claims: optional(
        record(
          fromEnv(
            field<string>((v, at) => typeof v === 'string' || `${at} must be a string`),
            env,
          ),
        ),
      ),
      maxTokenAgeSeconds: optional(integer(1, 86_400)),
      issuer: optional(fromEnv(httpUrlString, env)),
      clientId: fromEnv(optionalString, env),
      clientSecret: fromEnv(optionalString, env),
      tokenEndpointAuthMethod: optional(
        field<'client_secret_basic' | 'client_secret_post'>(
          (value, at) =>
            value === 'client_secret_basic' ||
            value === 'client_secret_post' ||
            `${at} must be client_secret_basic or client_secret_post`,
        ),
      ),
      scope: optionalString,
      redirectUris: optional(strings('URLs')),
      subVerifiers: optional(strings('verifier names')),
      verifierIdField: optionalString,
      verifierIdFields: optional(strings('claim names')),
      isVerifierIdCaseSensitive: optional(boolean),
      allowCaseInsensitive: optional(boolean),
      leeway: optional(integer(0, 3600)),
      maxLeeway: optional(integer(0, 3600)),
      // Passkey verifiers (beyond `002_…txt`).
      rpName: optionalString,
      allowRegistration: optional(boolean),
      userVerification: optional(
        field<'required' | 'preferred'>(
          (value, at) =>
            value === 'required' || value === 'preferred' || `${at} must be required or preferred`,
        ),
      ),
      timeoutSeconds: optional(integer(30, 600)),
    },
    {
      checkFirst: ['type'],
      refine: (value, at) => {
        if (value.type === 'jwt' && !value.jwksUrl && !value.keys)
          return `${at}: a jwt verifier needs jwksUrl or keys`;
        if (value.type === 'oidc' && !(value.issuer && value.clientId))
          return `${at}: an oidc verifier needs issuer and clientId`;
        if (value.type === 'aggregate' && !value.subVerifiers?.length)
          return `${at}: an aggregate verifier needs subVerifiers`;
        return true;
      },
    },
  );

const authSchema = (env: NodeJS.ProcessEnv) =>
  section(
    {
      port: portNextToGateway(2),
      host: hostOfGateway,
      /** The address users and apps reach the service at, when it differs from http://host:port. */
      publicUrl: optional(fromEnv(httpUrlString, env)),
      /** `iss` of the idTokens it issues. Default: publicUrl. */
      issuerUrl: optional(fromEnv(httpUrlString, env)),
      /** 64 hex characters or a passphrase of 32+; `${VAR}` from the environment. */
      masterKey: fromEnv(optionalString, env),
      /** A file holding the master key (e.g. a mounted secret); read at start. */
      masterKeyFile: fromEnv(optionalString, env),
      verifiers: withDefault(
        record(
          verifierSchema(env),
          (key, at) =>
            /^[A-Za-z0-9_.-]{1,64}$/.test(key) || `${at}: a verifier name is 1 to 64 of A-Z a-z 0-9 _ . -`,
        ),
        {},
      ),
      allowedRedirects: optional(record(strings('redirect URLs or origins'))),
      allowedRedirectOrigins: optional(strings('origins')),
      /** Turns the auth service's admin API on (32+ characters); the dashboard's Audit page uses it. */
      adminToken: fromEnv(optionalString, env),
      maxSessionTime: optional(integer(1, 365 * 86_400)),
      legacyNetwork: optionalString,
      /** Behind a reverse proxy: the client address is the last X-Forwarded-For entry (attempt and rate limits count by it). */
      trustProxy: optional(boolean),
      /** Limits on typed second factors (startAuthServer's attemptLimits; unset fields: Keycloak's defaults). */
      attemptLimits: optional(
        section({
          failureFactor: optional(integer(1, 1_000_000)),
          waitIncrementSeconds: optional(integer(1, 365 * 86_400)),
          maxWaitSeconds: optional(integer(1, 365 * 86_400)),
          quickFailureMs: optional(integer(0, 86_400_000)),
          quickFailureWaitSeconds: optional(integer(1, 365 * 86_400)),
          resetAfterSeconds: optional(integer(1, 365 * 86_400)),
        }),
      ),
      /** Per-address requests per minute, per instance (startAuthServer's rateLimits). */
      rateLimits: optional(
        section({
          tokensPerMinute: optional(integer(1, 1_000_000)),
          readsPerMinute: optional(integer(1, 1_000_000)),
        }),
      ),
      /** Every audit entry POSTed to these URLs, HMAC-signed with `secret` (32+ characters; `${VAR}` from the environment). */
      auditWebhooks: optional(
        list(
          section({
            url: fromEnv(httpUrlString, env),
            secret: fromEnv(
              field<string>(
                (value, at) =>
                  (typeof value === 'string' && value.length >= 32) ||
                  `${at} must be a string of 32 or more characters`,
              ),
              env,
            ),
          }),
          () => true,
          (at) => `${at} must be a list of {url, secret}`,
        ),
      ),
      /** Per clientId: `app` (default), `user` or `off` (who may read the user's key). */
      exportPolicy: optional(
        record(
          field<'app' | 'user' | 'off'>(
            (value, at) =>
              value === 'app' || value === 'user' || value === 'off' || `${at} must be one of app, user, off`,
          ),
        ),
      ),
    },
    { prepare: section_ },
  );

const walletSchema = (env: NodeJS.ProcessEnv) =>
  section(
    {
      enabled: withDefault(boolean, true),
      port: portNextToGateway(1),
      host: hostOfGateway,
      /** The clientId its user logs in with through `auth`. */
      clientId: field<string>(
        (value, at) =>
          (typeof value === 'string' && value.length > 0) ||
          `${at} is required (the clientId users log in with)`,
      ),
      /** The API key it reads chains through the gateway with (metered like any app); `${VAR}` from the environment. */
      apiKey: fromEnv(
        field<string>(
          (value, at) =>
            (typeof value === 'string' && value.length > 0) ||
            `${at} is required (an API key of this gateway, e.g. \${PORTICO_WALLET_API_KEY})`,
        ),
        env,
      ),
      /** The networks it serves (names from networks); default every one. */
      networks: optional(strings('network names')),
      autoApprove: optional(
        field<false>(
          (value, at) =>
            value === false ||
            `${at} is for development only (portico dev --wallet-auto-approve); portico start refuses it`,
        ),
      ),
    },
    { prepare: (value) => (value === true ? {} : section_(value)) },
  );

export const startSections = (env: NodeJS.ProcessEnv) => ({
  dashboard: dashboardSchema,
  auth: optional(authSchema(env)),
  wallet: optional(walletSchema(env), (value) => value === undefined || value === null || value === false),
});

type Sections = ReturnType<typeof startSections>;
type SectionValue<K extends keyof Sections> = Sections[K] extends { TYPE: infer T } ? T : never;

export type DashboardSection = SectionValue<'dashboard'>;
export type AuthSection = NonNullable<SectionValue<'auth'>>;
export type VerifierSection = AuthSection['verifiers'][string];
export type WalletSection = NonNullable<SectionValue<'wallet'>>;

/** The whole of `portico start`'s config: the gateway's fields and the other parts' sections. */
export type StartConfig = GatewayConfig & {
  dashboard: DashboardSection;
  auth?: AuthSection;
  wallet?: WalletSection;
};

export function loadStartConfig(path: string, env: NodeJS.ProcessEnv = process.env): StartConfig {
  return loadConfigFile(path, env, startSections(env)) as StartConfig;
}
