import type { ExtraLoginOptions } from '@portico/auth';
import { ownValue, setOwn } from '@portico/auth/protocol';
import * as oidc from 'openid-client';
import {
  type AppIdOptions,
  appIdOptions,
  checkVerifierIdRules,
  type VerifierIdRules,
  verifierIdFrom,
} from './app-options.ts';
import { type Identity, VerifierError } from './types.ts';

/**
 * An OpenID Connect provider, used with the authorization code flow and PKCE. The verifier-id rules
 * (`verifierIdField`, `verifierIdFields`, `isVerifierIdCaseSensitive`, `allowCaseInsensitive`,
 * `leeway` — default 30 s, openid-client's — and `maxLeeway`) bound what an app may ask for.
 */
export interface OidcVerifierConfig extends VerifierIdRules {
  type: 'oidc';
  issuer: string;
  clientId: string;
  clientSecret?: string;
  /** How the client secret is sent (default `client_secret_basic`). */
  tokenEndpointAuthMethod?: 'client_secret_basic' | 'client_secret_post';
  /** Default `openid email profile`; an app's `extraLoginOptions.scope` replaces it. */
  scope?: string;
  /**
   * Other addresses of this service's `/callback` (e.g. a second public hostname), registered at the
   * provider, that an app may name in `extraLoginOptions.redirect_uri`.
   */
  redirectUris?: string[];
  /** Display name on the login page. */
  name?: string;
}

/** Carried from the authorization request to the callback. */
export interface OidcFlow {
  codeVerifier: string;
  state: string;
  nonce: string;
  /** The verifier-id rules in force for this login (checked when it started). */
  id: AppIdOptions;
  /** The redirect URI sent to the provider (the code exchange must repeat it). */
  redirectUri: string;
}

/** openid-client's clock tolerance for id_tokens, used when neither verifier nor app set `leeway`. */
const DEFAULT_OIDC_LEEWAY = 30;

/**
 * ExtraLoginOptions sent as authorization request parameters. `display`, `prompt`, `max_age`,
 * `ui_locales`, `id_token_hint`, `login_hint` and `acr_values` are OpenID Connect's; `audience` and
 * `connection` are Auth0's (a provider that does not know them ignores them, as OAuth 2.0 requires).
 */
const PASSTHROUGH = [
  'display',
  'prompt',
  'max_age',
  'ui_locales',
  'id_token_hint',
  'login_hint',
  'acr_values',
  'audience',
  'connection',
] as const;

/** Parameters that carry the flow's own security (PKCE, state, nonce, client): never from additionalParams. */
const RESERVED = new Set([
  'client_id',
  'redirect_uri',
  'response_type',
  'response_mode',
  'scope',
  'state',
  'nonce',
  'code_challenge',
  'code_challenge_method',
  'request',
  'request_uri',
]);

/**
 * The authorization request parameters an app chose: `scope` (with `openid` added when missing, the
 * login needs an id_token), the pass-through options and `additionalParams` (never a reserved one).
 */
export function authorizationParams(
  defaultScope: string,
  extra: ExtraLoginOptions | undefined,
): Record<string, string> {
  const scopes = (extra?.scope ?? defaultScope).split(/\s+/).filter(Boolean);
  const params: Record<string, string> = {
    scope: (scopes.includes('openid') ? scopes : ['openid', ...scopes]).join(' '),
  };
  for (const key of PASSTHROUGH) {
    const v = extra?.[key];
    if (v) params[key] = v;
  }
  for (const [k, v] of Object.entries(extra?.additionalParams ?? {})) {
    if (!RESERVED.has(k) && !Object.hasOwn(params, k)) setOwn(params, k, v);
  }
  return params;
}

function isLoopback(url: string): boolean {
  const { protocol, hostname } = new URL(url);
  return (
    protocol === 'http:' && (hostname === '127.0.0.1' || hostname === 'localhost' || hostname === '[::1]')
  );
}

export class OidcVerifier {
  private config?: Promise<oidc.Configuration>;
  constructor(
    readonly name: string,
    readonly settings: OidcVerifierConfig,
  ) {
    checkVerifierIdRules(name, settings, DEFAULT_OIDC_LEEWAY);
    for (const uri of settings.redirectUris ?? []) {
      if (!URL.canParse(uri) || !/^https?:$/.test(new URL(uri).protocol) || /[?#]/.test(uri)) {
        throw new Error(`verifier ${name}: redirectUris must be http(s) URLs without query or fragment`);
      }
    }
  }

  private clientAuth(): oidc.ClientAuth {
    const s = this.settings;
    if (!s.clientSecret) return oidc.None();
    return s.tokenEndpointAuthMethod === 'client_secret_post'
      ? oidc.ClientSecretPost(s.clientSecret)
      : oidc.ClientSecretBasic(s.clientSecret);
  }

  private configuration(): Promise<oidc.Configuration> {
    if (!this.config) {
      const s = this.settings;
      this.config = oidc
        .discovery(new URL(s.issuer), s.clientId, undefined, this.clientAuth(), {
          // Plain http only for a provider on this machine (development and tests).
          execute: isLoopback(s.issuer) ? [oidc.allowInsecureRequests] : [],
        })
        .catch((err: unknown) => {
          this.config = undefined;
          throw new VerifierError(`OpenID provider ${s.issuer} unreachable: ${(err as Error).message}`);
        });
    }
    return this.config;
  }

  /** The configuration with the clock tolerance of one login (a copy when it differs). */
  private async configurationFor(leeway: number): Promise<oidc.Configuration> {
    const base = await this.configuration();
    if (leeway === DEFAULT_OIDC_LEEWAY) return base;
    const copy = new oidc.Configuration(
      base.serverMetadata(),
      this.settings.clientId,
      { ...base.clientMetadata(), [oidc.clockTolerance]: leeway },
      this.clientAuth(),
    );
    if (isLoopback(this.settings.issuer)) oidc.allowInsecureRequests(copy);
    return copy;
  }

  /**
   * The provider's authorization URL for `state` with a fresh nonce and PKCE verifier, carrying the
   * app's authorization request parameters (see `authorizationParams`). `callbackUrl` is this
   * service's OIDC redirect URI; an app may name another of the verifier's `redirectUris`.
   */
  async start(
    callbackUrl: string,
    extra: ExtraLoginOptions | undefined,
    state: string,
  ): Promise<{ url: string; flow: OidcFlow }> {
    const id = appIdOptions(this.name, this.settings, extra, DEFAULT_OIDC_LEEWAY);
    const redirectUri = this.redirectUriFor(callbackUrl, extra?.redirect_uri);
    this.checkTenant(extra);
    const config = await this.configuration();
    const codeVerifier = oidc.randomPKCECodeVerifier();
    const flow: OidcFlow = { codeVerifier, state, nonce: oidc.randomNonce(), id, redirectUri };
    const params = authorizationParams(this.settings.scope ?? 'openid email profile', extra);
    Object.assign(params, {
      redirect_uri: redirectUri,
      code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      state: flow.state,
      nonce: flow.nonce,
    });
    return { url: oidc.buildAuthorizationUrl(config, params).href, flow };
  }

  /** The redirect URI of this login: the service's callback, or one of `redirectUris` the app named. */
  private redirectUriFor(callbackUrl: string, asked: string | undefined): string {
    if (asked === undefined || asked === callbackUrl) return callbackUrl;
    if (this.settings.redirectUris?.includes(asked)) return asked;
    throw new VerifierError(
      `redirect_uri "${asked}" is not a callback of verifier "${this.name}": the provider's answer must reach the auth service (${[callbackUrl, ...(this.settings.redirectUris ?? [])].join(', ')})`,
    );
  }

  /**
   * `domain` and `client_id` name the provider tenant and the client registered there (Auth0's
   * options): this verifier trusts one issuer and one client, so other values are refused.
   */
  private checkTenant(extra: ExtraLoginOptions | undefined): void {
    const { issuer, clientId } = this.settings;
    if (extra?.client_id !== undefined && extra.client_id !== clientId) {
      throw new VerifierError(
        `client_id "${extra.client_id}" is not the client of verifier "${this.name}" (${clientId})`,
      );
    }
    if (extra?.domain !== undefined) {
      const bare = (u: string) =>
        u
          .replace(/^https?:\/\//i, '')
          .replace(/\/+$/, '')
          .toLowerCase();
      const host = new URL(issuer).host.toLowerCase();
      if (bare(extra.domain) !== host && bare(extra.domain) !== bare(issuer)) {
        throw new VerifierError(
          `domain "${extra.domain}" is not the provider of verifier "${this.name}" (${host})`,
        );
      }
    }
  }

  /** Exchanges the code (with the PKCE verifier), validates the id_token and reads the identity. */
  async finish(callbackUrl: URL, flow: OidcFlow): Promise<Identity> {
    const error = callbackUrl.searchParams.get('error');
    if (error) {
      throw new VerifierError(
        error === 'access_denied' ? 'User cancelled.' : `Login refused by the provider: ${error}`,
        error === 'access_denied' ? 'USER_CANCELLED' : 'LOGIN_FAILED',
      );
    }
    // A flow started before an upgrade carries neither: the verifier's own rules and callback then.
    const id = flow.id ?? appIdOptions(this.name, this.settings, undefined, DEFAULT_OIDC_LEEWAY);
    const config = await this.configurationFor(id.leeway);
    let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
    try {
      // The provider's answer, as received at the redirect URI this login sent.
      const currentUrl = new URL(flow.redirectUri ?? `${callbackUrl.origin}${callbackUrl.pathname}`);
      currentUrl.search = callbackUrl.search;
      tokens = await oidc.authorizationCodeGrant(config, currentUrl, {
        pkceCodeVerifier: flow.codeVerifier,
        expectedState: flow.state,
        expectedNonce: flow.nonce,
        idTokenExpected: true,
      });
    } catch (err) {
      throw new VerifierError(`OpenID login failed: ${(err as Error).message}`);
    }
    let claims: Record<string, unknown> = { ...(tokens.claims() ?? {}) };
    const field = id.field;
    if (
      (ownValue(claims, field) === undefined || claims.email === undefined) &&
      config.serverMetadata().userinfo_endpoint
    ) {
      const info = await oidc.fetchUserInfo(config, tokens.access_token, String(claims.sub));
      claims = { ...info, ...claims };
    }
    const verifierId = verifierIdFrom(claims, id);
    if (verifierId === undefined) throw new VerifierError(`The provider returned no "${field}"`);
    return {
      verifierId,
      claim: id.claim,
      email: typeof claims.email === 'string' ? claims.email : undefined,
      name: typeof claims.name === 'string' ? claims.name : undefined,
      profileImage: typeof claims.picture === 'string' ? claims.picture : undefined,
      oAuthIdToken: tokens.id_token,
      oAuthAccessToken: tokens.access_token,
    };
  }
}
