// One login attempt up to its result: the request parked on the service under a fresh loginId,
// then either the JWT login answered directly (with its MFA setup step) or the login page shown
// and its result checked against this attempt's `state`.
import { bytesToHex, randomBytes } from '@noble/hashes/utils.js';
import type { MfaLoginInput } from './auth-options.ts';
import { AuthError } from './errors.ts';
import { randomPrivKey } from './keys.ts';
import { decodeB64Params, encodeB64Params, type LoginResult } from './login-result.ts';
import { type OpenLoginPage, openLoginPage } from './open-login-page.ts';
import { ownValue } from './own.ts';
import { browserWindow } from './popup.ts';
import { failedLogin, type ServiceClient } from './service-client.ts';
import type { AuthLoginParams, LoginRequest } from './types.ts';

export interface LoginAttempt {
  client: ServiceClient;
  /** The init parameters as this login sends them (its redirectUrl and sessionTime). */
  options: LoginRequest['options'];
  /** Validated, without the dappShare: it is a factor, and the service must not see it. */
  params: AuthLoginParams;
  /** The page shows in a popup: its result is marked for the opener. */
  popup: boolean;
  /** This device's MFA share id, if it has one. */
  deviceId?: string;
  mfaInput: MfaLoginInput;
  /** The name of this device in the user's session list. */
  device?: string;
  /** Runs once the request is parked, before the page opens (a passkey link names the session's account). */
  beforePage?: (loginId: string) => Promise<void>;
  /** How to show the login page (`url`, `redirectUrl` and `state` come from the attempt). */
  page: Omit<OpenLoginPage, 'url' | 'redirectUrl' | 'state'>;
}

export async function obtainLoginResult(a: LoginAttempt): Promise<LoginResult> {
  const { client, options, params } = a;
  const loginId = randomPrivKey();
  const loginState = bytesToHex(randomBytes(16));
  const request: LoginRequest = {
    options,
    params,
    actionType: 'login',
    origin: browserWindow()?.location.origin,
    mfa: a.deviceId ? { deviceId: a.deviceId } : undefined,
    state: loginState,
    popup: a.popup || undefined,
    device: a.device,
  };
  await client.parkLogin(loginId, request);
  await a.beforePage?.(loginId);

  const provider = params.loginProvider;
  const isJwt =
    provider === 'jwt' || (provider && ownValue(options.loginConfig, provider)?.typeOfLogin === 'jwt');
  if (isJwt && params.extraLoginOptions?.id_token) {
    const res = await client.post<LoginResult>('/api/login/jwt', { loginId });
    const result = res.status === 200 ? res.body : failedLogin(res);
    return result.mfa ? client.answerSetup(loginId, result.mfa, a.mfaInput) : result;
  }
  const finalUrl = await openLoginPage({
    ...a.page,
    url: `${options.sdkUrl}/start#b64Params=${encodeB64Params({ loginId })}`,
    redirectUrl: options.redirectUrl,
    state: loginState,
  });
  const returned = decodeB64Params<LoginResult>(finalUrl);
  if (returned && returned.state !== loginState) {
    throw new AuthError('LOGIN_FAILED', 'The login result does not belong to this login (state mismatch)');
  }
  return returned ?? { error: 'The login page returned no result' };
}
