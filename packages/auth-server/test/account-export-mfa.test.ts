// Key export on the account page for a user WITH MFA, at the API on SQLite: under export policy
// `user` the page's `/api/account/export` takes one of the user's typed factors (password, backup
// phrase, authenticator code) with its token, checks it under the attempt limits of
// `/api/mfa/factor`, rebuilds the key from the service's share and the factor's, and answers the
// app-scoped key — what `getPrivKey()` gives under `app` for that app. A wrong factor is refused and
// counted, up to the lockout; a factor the user did not set up is a clear 400; under `app` and `off`
// nothing is exported; a page of a logged-out sign-in acts no more. The service's clock is the test's.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Auth, type AuthInitParams, MemoryStorage, type MfaSettings } from '@portico/auth';
import { getAppScopedKey } from '@portico/auth/protocol';
import { type AuthServer, startAuthServer } from '@portico/auth-server';
import { tempDir } from '@portico/testkit';
import { base32, CLIENT_ID, errorOf, type JwksIssuer, post, startJwksIssuer, totp } from './helpers.ts';

const PASSWORD = 'correct horse battery';
const ADMIN = 'admin-token-for-the-account-export-mfa-test';
const USER_APP = 'user-mode-app';
const OFF_APP = 'off-mode-app';
const SETTINGS: MfaSettings = {
  deviceShareFactor: { enable: true, priority: 1, mandatory: false },
  backUpShareFactor: { enable: true, priority: 2, mandatory: false },
  socialBackupFactor: { enable: false },
  passwordFactor: { enable: true, priority: 3, mandatory: false },
  authenticatorFactor: { enable: true, priority: 4, mandatory: false },
};

interface AuditEntry {
  event: string;
  user?: string;
  detail: Record<string, unknown>;
}

describe('key export for MFA users on the account page (SQLite)', { timeout: 600_000 }, () => {
  const dir = tempDir('portico-auth-account-export-mfa-');
  let issuer: JwksIssuer;
  let server: AuthServer;
  // On a 30 s boundary plus 5 s, so that a later authenticator code is a later step.
  let clock = Math.floor(Date.now() / 30_000) * 30_000 + 5_000;

  before(async () => {
    issuer = await startJwksIssuer();
    server = await startAuthServer({
      dataDir: dir.path,
      masterKey: 'c'.repeat(64),
      adminToken: ADMIN,
      clock: () => clock,
      trustProxy: true,
      attemptLimits: { failureFactor: 3, waitIncrementSeconds: 60, maxWaitSeconds: 300, quickFailureMs: 0 },
      verifiers: { jwt: { type: 'jwt', keys: [issuer.publicJwk] } },
      exportPolicy: { [CLIENT_ID]: 'app', [USER_APP]: 'user', [OFF_APP]: 'off' },
    });
  });
  after(async () => {
    await server?.close();
    await issuer?.close();
    dir.cleanup();
  });

  const init = (clientId: string, useCoreKitKey = false): AuthInitParams => ({
    clientId,
    network: 'sapphire_devnet',
    sdkUrl: server.sdkUrl,
    useCoreKitKey,
    mfaSettings: SETTINGS,
  });
  const jwtLogin = async (sub: string) => ({
    loginProvider: 'jwt' as const,
    extraLoginOptions: { id_token: await issuer.sign({ sub }) },
  });

  /**
   * MFA on from the `app` app (device, phrase, password and, with `totp`, the authenticator):
   * the coreKitKey, the phrase, the authenticator's secret and the device's Auth.
   */
  async function enrol(sub: string, factors: Array<'password' | 'totp'> = ['password']) {
    let secret: Buffer = Buffer.alloc(0);
    const auth = await Auth.create(init(CLIENT_ID, true), {
      storage: new MemoryStorage(),
      onWarning: () => {}, // the library's warning that the service holds the authenticator's share
    });
    const state = await auth.login(
      { ...(await jwtLogin(sub)), mfaLevel: 'mandatory' },
      {
        setup: {
          factors: [
            'deviceShareFactor',
            'backUpShareFactor',
            ...(factors.includes('password') ? (['passwordFactor'] as const) : []),
            ...(factors.includes('totp') ? (['authenticatorFactor'] as const) : []),
          ],
          password: PASSWORD,
          authenticator: ({ uri }) => {
            secret = base32(new URL(uri).searchParams.get('secret')!);
            return totp(secret, clock);
          },
        },
      },
    );
    assert.ok(state.coreKitKey && state.backupPhrase);
    return { coreKitKey: state.coreKitKey, backupPhrase: state.backupPhrase, secret, auth };
  }

  /** A sign-in of `clientId` (no key in the app under `user`/`off`). */
  async function signIn(clientId: string, sub: string): Promise<Auth> {
    const auth = await Auth.create(init(clientId), { storage: new MemoryStorage(), onWarning: () => {} });
    await auth.login(await jwtLogin(sub));
    return auth;
  }

  /** The page's token, as the page gets it: the app's ticket traded once. */
  async function pageToken(auth: Auth): Promise<string> {
    const url = new URL(await auth.accountPageUrl());
    const ticket = new URLSearchParams(url.hash.slice(1)).get('ticket');
    const opened = await post(server.sdkUrl, '/api/account/open', { ticket });
    assert.equal(opened.status, 200, opened.error.message);
    return opened.body.token;
  }

  /** A `user` sign-in that confirmed the password (as the library does), and its page's token. */
  async function userPage(sub: string, clientId = USER_APP): Promise<{ auth: Auth; token: string }> {
    const auth = await signIn(clientId, sub);
    assert.equal(auth.getPrivKey(), '');
    await auth.confirmSecondFactor({ password: PASSWORD });
    return { auth, token: await pageToken(auth) };
  }

  /** The page's export call from client address `address` (behind the trusted proxy). */
  async function exportCall(body: Record<string, unknown>, address: string) {
    const res = await fetch(`${server.sdkUrl}/api/account/export`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as Record<string, unknown>;
    return { status: res.status, privKey: json.privKey as string | undefined, error: errorOf(json) };
  }

  async function audit(event: string, userId?: string): Promise<AuditEntry[]> {
    const res = await fetch(`${server.sdkUrl}/admin/audit?event=${event}`, {
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    const { entries } = (await res.json()) as { entries: AuditEntry[] };
    return entries.filter((e) => userId === undefined || e.user === userId);
  }
  const outcomes = async (event: string, userId: string) =>
    (await audit(event, userId)).map((e) => [e.detail.outcome, e.detail.factor, e.detail.clientId]);

  it('user: the page offers the typed factors and answers the app-scoped key for each of them', async () => {
    const { coreKitKey, backupPhrase, secret } = await enrol('ada', ['password', 'totp']);
    const { auth, token } = await userPage('ada');
    const state = await post(server.sdkUrl, '/api/account/state', { token });
    assert.equal(state.status, 200, state.error.message);
    assert.equal(state.body.export, 'factor');
    assert.deepEqual(state.body.exportFactors, ['password', 'backupPhrase', 'authenticatorCode']);

    // What `getPrivKey()` gives for this app under `app` (the same user, the same clientId).
    const appKey = getAppScopedKey(coreKitKey, USER_APP);
    const byPassword = await exportCall({ token, password: PASSWORD }, '198.51.100.1');
    assert.equal(byPassword.status, 200, byPassword.error.message);
    assert.equal(byPassword.privKey, appKey);
    const byPhrase = await exportCall({ token, backupPhrase }, '198.51.100.1');
    assert.equal(byPhrase.privKey, appKey);
    clock += 30_000;
    const byCode = await exportCall({ token, authenticatorCode: totp(secret, clock) }, '198.51.100.1');
    assert.equal(byCode.privKey, appKey);
    assert.equal(auth.getPrivKey(), '', 'the app still holds no key');

    const userId = (await audit('key.exported')).at(-1)?.user;
    assert.ok(userId);
    assert.deepEqual(await outcomes('key.exported', userId), [
      ['success', 'password', USER_APP],
      ['success', 'backup phrase', USER_APP],
      ['success', 'authenticator', USER_APP],
    ]);
    // Nothing typed, no share and no key in the trail.
    const trail = JSON.stringify(await audit('key.exported')) + JSON.stringify(await audit('mfa.factor'));
    for (const secretText of [PASSWORD, backupPhrase, appKey, coreKitKey]) {
      assert.equal(trail.includes(secretText), false);
    }
  });

  it('user: a wrong password is refused and counted, up to the lockout (429, a right one too)', async () => {
    const { coreKitKey } = await enrol('bob');
    const { token } = await userPage('bob');
    const address = '198.51.100.2';
    const wrong = await exportCall({ token, password: 'not the password' }, address);
    assert.deepEqual([wrong.status, wrong.error.code, wrong.privKey], [401, 'MFA_FACTOR_INVALID', undefined]);
    clock += 1_000;
    await exportCall({ token, password: 'not it either' }, address);
    clock += 1_000;
    // The third failure starts the wait: told with the refusal.
    const third = await exportCall({ token, password: 'nor this' }, address);
    assert.equal(third.error.code, 'MFA_FACTOR_INVALID');
    assert.equal(third.error.retryAfter, 60);
    clock += 1_000;
    const locked = await exportCall({ token, password: PASSWORD }, address);
    assert.deepEqual(
      [locked.status, locked.error.code, locked.privKey],
      [429, 'TOO_MANY_ATTEMPTS', undefined],
    );
    assert.equal(locked.error.retryAfter, 59);

    const userId = (await audit('key.exported')).at(-1)?.user;
    assert.ok(userId);
    assert.deepEqual(
      (await audit('mfa.factor', userId)).map((e) => e.detail.outcome),
      ['success', 'failure', 'failure', 'failure', 'refused'],
      'the confirm of the sign-in, three wrong guesses, the locked right one',
    );
    assert.equal((await audit('attempts.locked', userId)).length, 1);
    assert.deepEqual(
      (await audit('key.exported', userId)).map((e) => e.detail.outcome),
      ['refused', 'refused', 'refused', 'refused'],
    );
    // After the wait the right password exports.
    clock += 60_000;
    const later = await exportCall({ token, password: PASSWORD }, address);
    assert.equal(later.status, 200, later.error.message);
    assert.equal(later.privKey, getAppScopedKey(coreKitKey, USER_APP));
  });

  it('user: a factor the account did not set up, none, or two: a clear 400, not counted', async () => {
    await enrol('cid');
    const { token } = await userPage('cid');
    const state = await post(server.sdkUrl, '/api/account/state', { token });
    assert.deepEqual(state.body.exportFactors, ['password', 'backupPhrase']);
    const address = '198.51.100.3';
    const code = await exportCall({ token, authenticatorCode: '123456' }, address);
    assert.deepEqual([code.status, code.error.code], [400, 'MFA_FACTOR_NOT_SET_UP']);
    assert.match(code.error.message, /no authenticator factor/);
    const none = await exportCall({ token }, address);
    assert.deepEqual([none.status, none.error.code], [400, 'INVALID_BODY']);
    assert.match(none.error.message, /exactly one second factor/);
    const passkey = await exportCall({ token, passkeyAssertion: '{}' }, address);
    assert.deepEqual([passkey.status, passkey.error.code], [400, 'INVALID_BODY']);
    const two = await exportCall({ token, password: PASSWORD, backupPhrase: 'x' }, address);
    assert.deepEqual([two.status, two.error.code], [400, 'INVALID_BODY']);
    const typo = await exportCall({ token, password: 5 }, address);
    assert.deepEqual([typo.status, typo.error.code, typo.error.field], [400, 'INVALID_BODY', 'password']);
    const userId = (await audit('key.exported')).at(-1)?.user;
    assert.ok(userId);
    assert.equal(
      (await audit('mfa.factor', userId)).length,
      1,
      'only the confirm of the sign-in was checked',
    );
    // None of them counted: the right password still passes at once.
    const right = await exportCall({ token, password: PASSWORD }, address);
    assert.equal(right.status, 200, right.error.message);
  });

  it('app and off: nothing is exported, whatever the factor', async () => {
    const { auth: appDevice } = await enrol('dee');
    const appToken = await pageToken(appDevice);
    const { token: offToken } = await userPage('dee', OFF_APP);
    for (const token of [appToken, offToken]) {
      const state = await post(server.sdkUrl, '/api/account/state', { token });
      assert.equal(state.body.export, 'off');
      assert.equal(state.body.exportFactors, undefined);
      const refused = await exportCall({ token, password: PASSWORD }, '198.51.100.4');
      assert.deepEqual(
        [refused.status, refused.error.code, refused.privKey],
        [403, 'EXPORT_NOT_OFFERED', undefined],
      );
    }
    const userId = (await audit('key.exported')).at(-1)?.user;
    assert.ok(userId);
    assert.deepEqual(
      (await audit('key.exported', userId)).map((e) => [e.detail.outcome, e.detail.reason]),
      [
        ['refused', 'off'],
        ['refused', 'off'],
      ],
    );
  });

  it('a page of a logged-out sign-in, or opened before MFA was on, exports nothing and counts nothing', async () => {
    const { token, auth } = await (async () => {
      await enrol('eve');
      return userPage('eve');
    })();
    await auth.logout();
    const late = await exportCall({ token, password: PASSWORD }, '198.51.100.5');
    assert.deepEqual([late.status, late.error.code], [401, 'ACCOUNT_PAGE_EXPIRED']);

    // A page opened before MFA was on showed no second factor: the export is refused before the factor.
    const early = await signIn(USER_APP, 'fay');
    const earlyToken = await pageToken(early);
    await enrol('fay');
    const refused = await exportCall({ token: earlyToken, password: PASSWORD }, '198.51.100.5');
    assert.deepEqual([refused.status, refused.error.code], [403, 'SECOND_FACTOR_REQUIRED']);
    const userId = (await audit('key.exported')).at(-1)?.user;
    assert.ok(userId);
    assert.deepEqual(
      (await audit('key.exported', userId)).map((e) => e.detail.outcome),
      ['refused'],
    );
    assert.deepEqual(await audit('mfa.factor', userId), [], 'no factor was checked');
  });
});
