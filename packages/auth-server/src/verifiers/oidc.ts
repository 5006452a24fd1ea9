import type { ExtraLoginOptions } from '@portico/auth';
import * as oidc from 'openid-client';
import { type Identity, VerifierError } from './types.ts';

/** An OpenID Connect provider, used with the authorization code flow and PKCE. */
export interface OidcVerifierConfig {
  type: 'oidc';
  issuer: string;
  clientId: string;
  clientSecret?: string;
  /** How the client secret is sent (default `client_secret_basic`). */
  tokenEndpointAuthMethod?: 'client_secret_basic' | 'client_secret_post';
  /** Default `openid email profile`. */
  scope?: string;
  /** Claim holding the verifier id (default `sub`). */
  verifierIdField?: string;
  /** Default true; when false the verifier id is lowercased. */
  isVerifierIdCaseSensitive?: boolean;
  /** Display name on the login page. */
  name?: string;
}

/** Carried from the authorization request to the callback. */
export interface OidcFlow {
  codeVerifier: string;
  state: string;
  nonce: string;
}

const PASSTHROUGH = ['display', 'prompt', 'max_age', 'ui_locales', 'login_hint', 'acr_values'] as const;

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
  ) {}

  private configuration(): Promise<oidc.Configuration> {
    if (!this.config) {
      const s = this.settings;
      const auth = s.clientSecret
        ? s.tokenEndpointAuthMethod === 'client_secret_post'
          ? oidc.ClientSecretPost(s.clientSecret)
          : oidc.ClientSecretBasic(s.clientSecret)
        : oidc.None();
      this.config = oidc
        .discovery(new URL(s.issuer), s.clientId, undefined, auth, {
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

  /** The provider's authorization URL for `state` with a fresh nonce and PKCE verifier. */
  async start(
    redirectUri: string,
    extra: ExtraLoginOptions | undefined,
    state: string,
  ): Promise<{ url: string; flow: OidcFlow }> {
    const config = await this.configuration();
    const codeVerifier = oidc.randomPKCECodeVerifier();
    const flow: OidcFlow = { codeVerifier, state, nonce: oidc.randomNonce() };
    const params: Record<string, string> = {
      redirect_uri: redirectUri,
      scope: this.settings.scope ?? 'openid email profile',
      code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      state: flow.state,
      nonce: flow.nonce,
    };
    for (const key of PASSTHROUGH) {
      const v = extra?.[key];
      if (v) params[key] = v;
    }
    for (const [k, v] of Object.entries(extra?.additionalParams ?? {})) if (!(k in params)) params[k] = v;
    return { url: oidc.buildAuthorizationUrl(config, params).href, flow };
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
    const config = await this.configuration();
    let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
    try {
      tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
        pkceCodeVerifier: flow.codeVerifier,
        expectedState: flow.state,
        expectedNonce: flow.nonce,
        idTokenExpected: true,
      });
    } catch (err) {
      throw new VerifierError(`OpenID login failed: ${(err as Error).message}`);
    }
    let claims: Record<string, unknown> = { ...(tokens.claims() ?? {}) };
    const field = this.settings.verifierIdField ?? 'sub';
    if (
      (claims[field] === undefined || claims.email === undefined) &&
      config.serverMetadata().userinfo_endpoint
    ) {
      const info = await oidc.fetchUserInfo(config, tokens.access_token, String(claims.sub));
      claims = { ...info, ...claims };
    }
    const raw = claims[field];
    if (typeof raw !== 'string' || raw === '') throw new VerifierError(`The provider returned no "${field}"`);
    return {
      verifierId: this.settings.isVerifierIdCaseSensitive === false ? raw.toLowerCase() : raw,
      email: typeof claims.email === 'string' ? claims.email : undefined,
      name: typeof claims.name === 'string' ? claims.name : undefined,
      profileImage: typeof claims.picture === 'string' ? claims.picture : undefined,
      oAuthIdToken: tokens.id_token,
      oAuthAccessToken: tokens.access_token,
    };
  }
}
