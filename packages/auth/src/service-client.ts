// The library's calls to the auth service: JSON over POST, sessions read and ended, MFA calls
// signed with the sessionId, the MFA setup answer of a JWT login.

import type { MfaLoginInput } from './auth-options.ts';
import { decryptJson, encryptJsonTo, mfaProofMessage, signStoreMessage, storeKeyOf } from './ecies.ts';
import { AuthError } from './errors.ts';
import type { LoginResult } from './login-result.ts';
import type { LoginRequest, SessionPayload } from './types.ts';

/** A session as read from the service: its content and the seconds it has left. */
export interface ReadSession {
  state: SessionPayload;
  expiresIn?: number;
}

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
    const res = await this.post<{ data?: string; error?: string; expiresIn?: number }>('/api/session/get', {
      key: storeKeyOf(sessionId),
    });
    if (res.status === 404) return undefined;
    if (res.status !== 200 || !res.body.data) {
      throw new AuthError('SERVICE_ERROR', `Auth service: ${res.body.error ?? `status ${res.status}`}`);
    }
    try {
      const state = decryptJson<SessionPayload>(sessionId, res.body.data);
      const { expiresIn } = res.body;
      return {
        state: { ...state, sessionId },
        expiresIn: typeof expiresIn === 'number' && expiresIn >= 0 ? expiresIn : undefined,
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
    const res = await this.post<LoginResult>('/api/mfa/setup', {
      loginId,
      factors: setup.factors,
      password: setup.password,
      socialBackup: setup.socialBackup,
    });
    if (res.status !== 200) {
      throw new AuthError('LOGIN_FAILED', `MFA setup refused: ${res.body.error ?? res.status}`);
    }
    return res.body;
  }
}
