// The service of the confirmation tests (passkey-confirm, confirm-ticket, confirm-step): export
// policy `app` for CLIENT_ID and `user` for USER_APP, JWT logins from a local issuer, and an MFA
// user (device, passkey, password) set up from the `app` app with the software authenticator of
// ./soft-authenticator.ts. The clock can be moved forward (`advance`).
import assert from 'node:assert/strict';
import { decodeB64Params, type MfaSettings } from '@portico/auth';
import { signStoreMessage, storeKeyOf } from '@portico/auth/protocol';
import { type AuthServer, startAuthServer } from '@portico/auth-server';
import { tempDir } from '@portico/testkit';
import { CLIENT_ID, type JwksIssuer, park, post, startJwksIssuer } from './helpers.ts';
import { SoftAuthenticator } from './soft-authenticator.ts';

export const ADMIN = 'admin-token-for-the-confirm-tests';
export const USER_APP = 'user-mode-app';
export const SETTINGS: MfaSettings = {
  deviceShareFactor: { enable: true, priority: 1, mandatory: true },
  passkeysFactor: { enable: true, priority: 2 },
  backUpShareFactor: { enable: false },
  passwordFactor: { enable: true, priority: 3 },
  socialBackupFactor: { enable: false },
};
export const PASSWORD = 'correct horse battery';

export type Json = Record<string, unknown>;
export interface Challenge {
  challengeId: string;
  options: { challenge: string; allowCredentials: Array<{ id: string }> };
}

/** A call signed by `sessionId` over the path and payload, as the library signs MFA calls. */
export function signed(base: string, path: string, sessionId: string, payload: Json = {}) {
  return post(base, path, {
    key: storeKeyOf(sessionId),
    payload,
    signature: signStoreMessage(sessionId, `${path}:${JSON.stringify(payload)}`),
  });
}

export interface HarnessOptions {
  /** `attemptLimits.failureFactor`. */
  failureFactor?: number;
  rateLimits?: { tokensPerMinute?: number; readsPerMinute?: number };
}

/** A service with the export policy `user` for USER_APP, and the issuer of its JWT logins. */
export class Harness {
  base = '';
  issuer!: JwksIssuer;
  server!: AuthServer;
  /** Added to the real time on the service's clock. */
  private offsetMs = 0;
  private readonly dir = tempDir('portico-auth-confirm-');

  async start(options: HarnessOptions = {}): Promise<void> {
    this.issuer = await startJwksIssuer();
    this.server = await startAuthServer({
      dataDir: this.dir.path,
      masterKey: 'e'.repeat(64),
      adminToken: ADMIN,
      clock: () => Date.now() + this.offsetMs,
      attemptLimits: { quickFailureMs: 0, failureFactor: options.failureFactor ?? 50 },
      rateLimits: options.rateLimits,
      verifiers: { jwt: { type: 'jwt', keys: [this.issuer.publicJwk] } },
      exportPolicy: { [CLIENT_ID]: 'app', [USER_APP]: 'user' },
    });
    this.base = this.server.sdkUrl;
  }

  async stop(): Promise<void> {
    await this.server?.close();
    await this.issuer?.close();
    this.dir.cleanup();
  }

  /** Moves the service's clock `ms` forward. */
  advance(ms: number): void {
    this.offsetMs += ms;
  }

  authenticator(): SoftAuthenticator {
    return new SoftAuthenticator(new URL(this.base).hostname, new URL(this.base).origin);
  }

  /** A login page's JWT login of `sub` from `clientId`. */
  async pageLogin(sub: string, clientId = CLIENT_ID, settings = SETTINGS) {
    const loginId = await park(
      this.base,
      { clientId, mfaSettings: settings },
      {
        loginProvider: 'jwt',
        mfaLevel: 'mandatory',
        extraLoginOptions: { id_token: await this.issuer.sign({ sub }), verifierIdField: 'sub' },
      },
    );
    const res = await post(this.base, '/api/login/authorize', { loginId });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return {
      loginId,
      body: res.body as unknown as { mfa?: { step: string; factors: string[] }; url?: string },
    };
  }

  /** MFA on for `sub` (device, passkey, password), set up from the `app` app. */
  async setUp(sub: string, device: SoftAuthenticator): Promise<void> {
    const { loginId, body } = await this.pageLogin(sub);
    assert.equal(body.mfa?.step, 'setup');
    const made = await post(this.base, '/api/mfa/passkey', { loginId, mode: 'register' });
    assert.equal(made.status, 200, JSON.stringify(made.body));
    const { challengeId, options } = made.body as unknown as { challengeId: string; options: never };
    const done = await post(this.base, '/api/mfa/setup', {
      loginId,
      factors: ['deviceShareFactor', 'passkeysFactor', 'passwordFactor'],
      password: PASSWORD,
      passkeyCredential: JSON.stringify({ challengeId, response: device.create(options) }),
    });
    assert.equal(done.status, 200, JSON.stringify(done.body));
  }

  /**
   * A sign-in of `sub` on a new device, first factor only. Under `user` the page's confirmation
   * step is skipped here; under `app` it shows the recovery step, left here without a factor,
   * whose own passkey challenge (bound to the user) comes back too.
   */
  async signIn(sub: string, clientId = USER_APP): Promise<{ sessionId: string; recovery?: Challenge }> {
    const { loginId, body } = await this.pageLogin(sub, clientId);
    if (body.url) return { sessionId: sessionOf(body.url) };
    if (body.mfa?.step === 'confirm') {
      const later = await post(this.base, '/api/mfa/confirm/later', { loginId });
      assert.equal(later.status, 200, JSON.stringify(later.body));
      return { sessionId: sessionOf(later.body.url!) };
    }
    assert.equal(body.mfa?.step, 'recover', JSON.stringify(body));
    const challenge = await post(this.base, '/api/mfa/passkey', { loginId, mode: 'login' });
    assert.equal(challenge.status, 200, JSON.stringify(challenge.body));
    const left = await post(this.base, '/api/mfa/recover', { loginId });
    assert.equal(left.status, 200, JSON.stringify(left.body));
    return { sessionId: sessionOf(left.body.url!), recovery: challenge.body as unknown as Challenge };
  }

  /** A confirmation challenge for the session. */
  async challenge(sessionId: string): Promise<Challenge> {
    const res = await signed(this.base, '/api/mfa/confirm/passkey', sessionId);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body as unknown as Challenge;
  }

  confirm(sessionId: string, challengeId: string, response: unknown) {
    return signed(this.base, '/api/mfa/confirm', sessionId, {
      passkeyAssertion: JSON.stringify({ challengeId, response }),
    });
  }

  /** Whether the session's sign-in is marked: the account ticket needs the second factor. */
  async marked(sessionId: string): Promise<boolean> {
    const res = await signed(this.base, '/api/account/ticket', sessionId);
    if (res.status === 200) return true;
    assert.equal(res.status, 403, JSON.stringify(res.body));
    assert.equal(res.error.code, 'SECOND_FACTOR_REQUIRED');
    return false;
  }

  /** The audit entries of `event`, newest first. */
  async audit(event: string): Promise<Array<{ detail: Json }>> {
    const res = await fetch(`${this.base}/admin/audit?event=${event}&limit=100`, {
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    return ((await res.json()) as { entries: Array<{ detail: Json }> }).entries;
  }
}

/** The sessionId of a login's result URL. */
export function sessionOf(url: string): string {
  return decodeB64Params<{ sessionId: string }>(url)!.sessionId;
}
