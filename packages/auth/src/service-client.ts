// The library's calls to the auth service: JSON over POST, sessions read and ended, MFA calls
// signed with the sessionId, the MFA setup answer of a JWT login.

import type { MfaLoginInput } from './auth-options.ts';
import { decryptJson, encryptJsonTo, mfaProofMessage, signStoreMessage, storeKeyOf } from './ecies.ts';
import { AuthError } from './errors.ts';
import { randomPrivKey } from './keys.ts';
import type { LoginResult } from './login-result.ts';
import type { LoginRequest, SecondFactorInput, SessionPayload } from './types.ts';

/** A second factor typed into the app and sent to the service as it is (not the passkey). */
type TypedSecondFactor = Exclude<SecondFactorInput, { passkey: true }>;

/** A session as read from the service: its content and the seconds it has left. */
export interface ReadSession {
  state: SessionPayload;
  expiresIn?: number;
  /** The idle window a renewal grants (seconds); absent for services without renewal. */
  idleTime?: number;
}

/** A signed-in session of the user in this app, as `auth.listSessions()` lists it. Beyond `002_…txt`. */
export interface SessionInfo {
  /** Stable across renewals (not a sessionId: it grants nothing); pass it to `endSession`. */
  id: string;
  clientId: string;
  /** ms since the epoch, the service's clock. */
  createdAt: number;
  lastUsedAt: number;
  /** When it ends unless renewed. */
  expiresAt: number;
  /** The absolute end the operator set (`maxSessionTime`), if any. */
  endsAt?: number;
  /** The device's name as its library gave it at login (`deviceName`, else its user agent). */
  device?: string;
  /** This instance's session. */
  current: boolean;
}

/** The answer of a renewal: the new sessionId and its window. */
export interface RenewedSession {
  sessionId: string;
  expiresIn: number;
  idleTime?: number;
  /** The idToken the service signed for the new window. */
  idToken?: string;
}

/** The idToken a renewal left beside the session, encrypted to its key; undefined when none or unreadable. */
function renewedIdToken(sessionId: string, token: unknown): string | undefined {
  if (typeof token !== 'string') return undefined;
  try {
    const { idToken } = decryptJson<{ idToken?: unknown }>(sessionId, token);
    return typeof idToken === 'string' ? idToken : undefined;
  } catch {
    return undefined;
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;
const textOf = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The `error` of an auth service error answer, `{ error: { code, message, ... } }` (docs/http-errors.md). */
export function serviceError(body: unknown): { code?: string; message?: string } {
  const error = isRecord(body) ? body.error : undefined;
  return isRecord(error) ? { code: textOf(error.code), message: textOf(error.message) } : {};
}

/** The message of an error answer, else the HTTP status. */
export const errorText = (res: { status: number; body: unknown }): string =>
  serviceError(res.body).message ?? `status ${res.status}`;

const num = (v: unknown): number | undefined => (typeof v === 'number' && v >= 0 ? v : undefined);

export class ServiceClient {
  constructor(
    private readonly sdkUrl: string,
    private readonly fetcher: typeof fetch,
  ) {}

  /** POSTs JSON; the status and the parsed body (a non-JSON body as `{ error: { message: text } }`). */
  async post<T>(path: string, body: unknown): Promise<{ status: number; body: T }> {
    let res: Response;
    try {
      res = await this.fetcher(`${this.sdkUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    } catch (err) {
      throw new AuthError(
        'SERVICE_ERROR',
        `Auth service unreachable at ${this.sdkUrl}: ${(err as Error).message}`,
        { cause: err },
      );
    }
    const text = await res.text();
    let parsed: unknown = {};
    try {
      parsed = text ? JSON.parse(text) : {};
    } catch {
      parsed = { error: { message: text } };
    }
    return { status: res.status, body: parsed as T };
  }

  /**
   * An MFA call of a session: signed by the sessionId over the path and the payload. Calls that
   * change the account's MFA (device, revoke) also carry `proof`, the same call signed by the
   * rebuilt coreKitKey: only a session that passed the second factor holds it.
   */
  async signedMfaCall<T>(path: string, sessionId: string, payload: unknown, coreKitKey?: string) {
    const key = storeKeyOf(sessionId);
    const body = JSON.stringify(payload ?? {});
    return this.post<T>(path, {
      key,
      payload,
      signature: signStoreMessage(sessionId, `${path}:${body}`),
      proof: coreKitKey ? signStoreMessage(coreKitKey, mfaProofMessage(path, key, body)) : undefined,
    });
  }

  /** Parks a login request on the service, ECIES-encrypted under the loginId, for 10 minutes. */
  async parkLogin(loginId: string, request: LoginRequest): Promise<void> {
    const key = storeKeyOf(loginId);
    const data = encryptJsonTo(key, request);
    const parked = await this.post('/api/session', {
      key,
      data,
      signature: signStoreMessage(loginId, data),
      timeout: 600,
    });
    if (parked.status !== 201) {
      throw new AuthError('SERVICE_ERROR', `Auth service refused the login request: ${errorText(parked)}`);
    }
  }

  /** Reads and decrypts a session; undefined when it is gone or expired. */
  async readSession(sessionId: string): Promise<ReadSession | undefined> {
    const res = await this.post<{
      data?: string;
      expiresIn?: number;
      idleTime?: number;
      token?: string;
    }>('/api/session/get', {
      key: storeKeyOf(sessionId),
    });
    if (res.status === 404) return undefined;
    if (res.status !== 200 || !res.body.data) {
      throw new AuthError('SERVICE_ERROR', `Auth service: ${errorText(res)}`);
    }
    try {
      const state = decryptJson<SessionPayload>(sessionId, res.body.data);
      // A renewed session: the service's idToken for the current window replaces the login's.
      const idToken = renewedIdToken(sessionId, res.body.token);
      if (idToken && state.userInfo) state.userInfo = { ...state.userInfo, idToken };
      return {
        state: { ...state, sessionId },
        expiresIn: num(res.body.expiresIn),
        idleTime: num(res.body.idleTime),
      };
    } catch {
      return undefined; // not ours or damaged: treated as no session
    }
  }

  /** Ends a session on the service (already gone counts as ended). */
  async invalidate(sessionId: string): Promise<void> {
    const key = storeKeyOf(sessionId);
    const res = await this.post('/api/session/invalidate', {
      key,
      signature: signStoreMessage(sessionId, `invalidate:${key}`),
    });
    if (res.status !== 200 && res.status !== 404) {
      throw new AuthError('SERVICE_ERROR', `Logout failed: ${errorText(res)}`);
    }
  }

  /** A session call signed by the sessionId over the path and the payload. */
  private signedSessionCall<T>(path: string, sessionId: string, payload: unknown) {
    return this.post<T>(path, {
      key: storeKeyOf(sessionId),
      payload,
      signature: signStoreMessage(sessionId, `${path}:${JSON.stringify(payload ?? {})}`),
    });
  }

  /**
   * Renews a session: a new sessionId made here, the stored payload encrypted to it, the request
   * signed by the current sessionId. The old sessionId stops working.
   */
  async renewSession(sessionId: string, payload: SessionPayload): Promise<RenewedSession> {
    const next = randomPrivKey();
    const newKey = storeKeyOf(next);
    const { sessionId: _s, ...stored } = payload;
    const res = await this.signedSessionCall<{ expiresIn?: number; idleTime?: number; token?: string }>(
      '/api/session/refresh',
      sessionId,
      { newKey, data: encryptJsonTo(newKey, stored) },
    );
    if (res.status !== 200) throw sessionCallError(res);
    return {
      sessionId: next,
      expiresIn: num(res.body.expiresIn) ?? 0,
      idleTime: num(res.body.idleTime),
      idToken: renewedIdToken(next, res.body.token),
    };
  }

  async listSessions(sessionId: string): Promise<SessionInfo[]> {
    const res = await this.signedSessionCall<{ sessions?: SessionInfo[] }>(
      '/api/session/list',
      sessionId,
      {},
    );
    if (res.status !== 200) throw sessionCallError(res);
    return res.body.sessions ?? [];
  }

  /**
   * A one-time link to the service's account page for this session (a ticket in the fragment, good
   * for one opening within two minutes). An MFA user's call carries `proof`, as `endSession`.
   */
  async accountPageUrl(sessionId: string, coreKitKey?: string, lang?: string): Promise<string> {
    const res = await this.signedMfaCall<{ ticket?: unknown }>(
      '/api/account/ticket',
      sessionId,
      {},
      coreKitKey,
    );
    if (res.status !== 200 || typeof res.body.ticket !== 'string') throw sessionCallError(res);
    const query = lang ? `?lang=${encodeURIComponent(lang)}` : '';
    return `${this.sdkUrl}/account${query}#ticket=${res.body.ticket}`;
  }

  /**
   * Marks a parked passkey login (`loginId`) as a link to this session's account: the passkey it
   * registers signs in to the same account (and key). Beyond `002_…txt`.
   */
  async linkPasskey(sessionId: string, loginId: string): Promise<void> {
    const res = await this.signedSessionCall('/api/passkey/link', sessionId, { loginId });
    if (res.status !== 200) throw sessionCallError(res);
  }

  /**
   * Ends a session of the list (false when it had ended already). For an MFA user the call carries
   * `proof`, signed by the rebuilt coreKitKey: a session that passed only the first factor may not
   * sign the user out elsewhere.
   */
  async endSession(sessionId: string, id: string, coreKitKey?: string): Promise<boolean> {
    const res = await this.signedMfaCall('/api/session/end', sessionId, { id }, coreKitKey);
    if (serviceError(res.body).code === 'LISTED_SESSION_NOT_FOUND') return false;
    if (res.status !== 200) throw sessionCallError(res);
    return true;
  }

  /**
   * Shows the service a second factor for this session (export policy \`user\` or \`off\`, where
   * the app never rebuilds the key): the service marks the sign-in, and \`endSession\` and the
   * account page work without a proof. Nothing comes back but success.
   */
  async confirmSecondFactor(sessionId: string, factor: TypedSecondFactor): Promise<void> {
    const res = await this.signedMfaCall('/api/mfa/confirm', sessionId, factor);
    if (res.status !== 200) throw sessionCallError(res);
  }

  /**
   * A one-time link to the service's passkey confirmation page for this session's sign-in (a ticket
   * in the fragment, good for one opening within two minutes): the MFA passkey answers there, on
   * the service's origin, its relying party.
   */
  async confirmPageUrl(sessionId: string, lang?: string): Promise<string> {
    const res = await this.signedMfaCall<{ ticket?: unknown }>('/api/mfa/confirm/ticket', sessionId, {});
    if (res.status !== 200 || typeof res.body.ticket !== 'string') throw sessionCallError(res);
    const query = lang ? `?lang=${encodeURIComponent(lang)}` : '';
    return `${this.sdkUrl}/confirm${query}#ticket=${res.body.ticket}`;
  }

  /** Whether this session's sign-in passed the second factor on the service (it is marked). */
  async confirmed(sessionId: string): Promise<boolean> {
    const res = await this.signedMfaCall<{ confirmed?: unknown }>('/api/mfa/confirm/status', sessionId, {});
    if (res.status !== 200) throw sessionCallError(res);
    return res.body.confirmed === true;
  }

  /** The service asks for MFA setup (JWT logins, no page): set up, skip, or refuse. */
  async answerSetup(
    loginId: string,
    ask: NonNullable<LoginResult['mfa']>,
    input: MfaLoginInput,
  ): Promise<LoginResult> {
    const setup = input.setup;
    if (!setup || 'skip' in setup) {
      if (!ask.skippable) {
        await this.post('/api/login/cancel', { loginId }).catch(() => {});
        throw new AuthError(
          'MFA_SETUP_REQUIRED',
          `MFA setup is mandatory: pass setup.factors (in this order: ${ask.factors.map((f) => f.factor).join(', ')})`,
        );
      }
      const res = await this.post<LoginResult>('/api/mfa/skip', { loginId });
      return res.status === 200 ? res.body : failedLogin(res);
    }
    let authenticatorCode: string | undefined;
    if (setup.factors.includes('authenticatorFactor')) {
      if (!setup.authenticator) {
        throw new AuthError(
          'MFA_SETUP_REQUIRED',
          'authenticatorFactor needs setup.authenticator (show the URI, return the code)',
        );
      }
      const enrol = await this.post<{ uri?: string; qrSvg?: string }>('/api/mfa/authenticator', {
        loginId,
      });
      if (enrol.status !== 200 || !enrol.body.uri) {
        throw new AuthError('LOGIN_FAILED', `MFA setup refused: ${errorText(enrol)}`);
      }
      authenticatorCode = await setup.authenticator({ uri: enrol.body.uri, qrSvg: enrol.body.qrSvg ?? '' });
    }
    const res = await this.post<LoginResult>('/api/mfa/setup', {
      loginId,
      factors: setup.factors,
      password: setup.password,
      socialBackup: setup.socialBackup,
      authenticatorCode,
    });
    if (res.status !== 200) {
      throw new AuthError('LOGIN_FAILED', `MFA setup refused: ${errorText(res)}`);
    }
    return res.body;
  }
}

/** A login the service refused (an error answer), as the login result the app gets. */
export function failedLogin(res: { status: number; body: unknown }): LoginResult {
  return { error: errorText(res), code: serviceError(res.body).code };
}

/** A refused session call: the session is gone (`SESSION_EXPIRED`), else `SERVICE_ERROR`. */
function sessionCallError(res: { status: number; body: unknown }): AuthError {
  const { code, message } = serviceError(res.body);
  if (code === 'SESSION_NOT_FOUND' || code === 'SESSION_REUSED') {
    return new AuthError('SESSION_EXPIRED', message ?? 'Session expired, please login again!');
  }
  if (code === 'SESSION_ROTATED') return new AuthError('SESSION_ROTATED', message ?? 'Session renewed');
  return new AuthError('SERVICE_ERROR', `Auth service: ${errorText(res)}`);
}
