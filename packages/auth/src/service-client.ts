// The library's calls to the auth service: JSON over POST, sessions read and ended, MFA calls
// signed with the sessionId, the MFA setup answer of a JWT login.

import type { MfaLoginInput } from './auth-options.ts';
import { decryptJson, encryptJsonTo, mfaProofMessage, signStoreMessage, storeKeyOf } from './ecies.ts';
import { AuthError } from './errors.ts';
import { randomPrivKey } from './keys.ts';
import type { LoginResult } from './login-result.ts';
import type { LoginRequest, SessionPayload } from './types.ts';

/** A session as read from the service: its content and the seconds it has left. */
export interface ReadSession {
  state: SessionPayload;
  expiresIn?: number;
  /** The idle window a renewal grants (seconds); absent for services without renewal. */
  idleTime?: number;
}

/** A signed-in session of the user in this app, as `auth.listSessions()` lists it. Beyond the seed. */
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

type SessionCallError = { error?: string; code?: string };

const num = (v: unknown): number | undefined => (typeof v === 'number' && v >= 0 ? v : undefined);

export class ServiceClient {
  constructor(
    private readonly sdkUrl: string,
    private readonly fetcher: typeof fetch,
  ) {}

  /** POSTs JSON; the status and the parsed body (a non-JSON body as `{ error: text }`). */
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
      );
    }
    const text = await res.text();
    let parsed: unknown = {};
    try {
      parsed = text ? JSON.parse(text) : {};
    } catch {
      parsed = { error: text };
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
    return this.post<T & { error?: string; retryAfter?: number }>(path, {
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
    const parked = await this.post<{ error?: string }>('/api/session', {
      key,
      data,
      signature: signStoreMessage(loginId, data),
      timeout: 600,
    });
    if (parked.status !== 201) {
      throw new AuthError(
        'SERVICE_ERROR',
        `Auth service refused the login request: ${parked.body.error ?? parked.status}`,
      );
    }
  }

  /** Reads and decrypts a session; undefined when it is gone or expired. */
  async readSession(sessionId: string): Promise<ReadSession | undefined> {
    const res = await this.post<{
      data?: string;
      error?: string;
      expiresIn?: number;
      idleTime?: number;
      token?: string;
    }>('/api/session/get', {
      key: storeKeyOf(sessionId),
    });
    if (res.status === 404) return undefined;
    if (res.status !== 200 || !res.body.data) {
      throw new AuthError('SERVICE_ERROR', `Auth service: ${res.body.error ?? `status ${res.status}`}`);
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
    const res = await this.post<{ error?: string }>('/api/session/invalidate', {
      key,
      signature: signStoreMessage(sessionId, `invalidate:${key}`),
    });
    if (res.status !== 200 && res.status !== 404) {
      throw new AuthError('SERVICE_ERROR', `Logout failed: ${res.body.error ?? res.status}`);
    }
  }

  /** A session call signed by the sessionId over the path and the payload. */
  private signedSessionCall<T>(path: string, sessionId: string, payload: unknown) {
    return this.post<T & SessionCallError>(path, {
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
    if (res.status !== 200) throw sessionCallError(res.status, res.body);
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
    if (res.status !== 200) throw sessionCallError(res.status, res.body);
    return res.body.sessions ?? [];
  }

  /** Ends a session of the list (false when it had ended already). */
  async endSession(sessionId: string, id: string): Promise<boolean> {
    const res = await this.signedSessionCall('/api/session/end', sessionId, { id });
    if (res.status === 404 && res.body.code === undefined) return false;
    if (res.status !== 200) throw sessionCallError(res.status, res.body);
    return true;
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
      return res.status === 200 ? res.body : { error: res.body.error ?? `status ${res.status}` };
    }
    let authenticatorCode: string | undefined;
    if (setup.factors.includes('authenticatorFactor')) {
      if (!setup.authenticator) {
        throw new AuthError(
          'MFA_SETUP_REQUIRED',
          'authenticatorFactor needs setup.authenticator (show the URI, return the code)',
        );
      }
      const enrol = await this.post<{ uri?: string; qrSvg?: string; error?: string }>(
        '/api/mfa/authenticator',
        {
          loginId,
        },
      );
      if (enrol.status !== 200 || !enrol.body.uri) {
        throw new AuthError('LOGIN_FAILED', `MFA setup refused: ${enrol.body.error ?? enrol.status}`);
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
      throw new AuthError('LOGIN_FAILED', `MFA setup refused: ${res.body.error ?? res.status}`);
    }
    return res.body;
  }
}

/** A refused session call: the session is gone (`SESSION_EXPIRED`), else `SERVICE_ERROR`. */
function sessionCallError(status: number, body: SessionCallError): AuthError {
  if (body.code === 'SESSION_NOT_FOUND' || body.code === 'SESSION_REUSED') {
    return new AuthError('SESSION_EXPIRED', body.error ?? 'Session expired, please login again!');
  }
  if (body.code === 'SESSION_ROTATED')
    return new AuthError('SESSION_ROTATED', body.error ?? 'Session renewed');
  return new AuthError('SERVICE_ERROR', `Auth service: ${body.error ?? `status ${status}`}`);
}
