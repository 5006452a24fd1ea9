// The authenticator-app factor (TOTP, RFC 6238): set up from the otpauth:// URI with a code made by
// an independent TOTP implementation (node:crypto, checked against the RFC's test vector), used to
// recover on a new device, each code accepted once, wrong codes under the attempt limits and in the
// audit trail. The service's clock is the test's; the codes are computed for it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  AUTHENTICATOR_WARNING,
  Auth,
  type AuthError,
  type AuthInitParams,
  MemoryStorage,
  type MfaSettings,
} from '@portico/auth';
import { type AuthServer, startAuthServer } from '@portico/auth-server';
import { tempDir } from '@portico/testkit';
import { KeyService } from '../src/keys.ts';
import { base32, CLIENT_ID, type JwksIssuer, startJwksIssuer, totp } from './helpers.ts';

const ADMIN = 'admin-token-for-the-authenticator-test';
const SETTINGS: MfaSettings = {
  deviceShareFactor: { enable: true, priority: 1 },
  authenticatorFactor: { enable: true, priority: 2, mandatory: true },
  backUpShareFactor: { enable: false },
};

describe('authenticator factor (TOTP)', { timeout: 120_000 }, () => {
  const dir = tempDir('portico-auth-totp-');
  let issuer: JwksIssuer;
  let server: AuthServer;
  // On a 30 s boundary plus 5 s, so a step later is exactly 30 s on.
  let clock = Math.floor(Date.now() / 30_000) * 30_000 + 5_000;
  const warnings: string[] = [];

  before(async () => {
    issuer = await startJwksIssuer();
    server = await startAuthServer({
      dataDir: dir.path,
      masterKey: 'a'.repeat(64),
      verifiers: { jwt: { type: 'jwt', keys: [issuer.publicJwk] } },
      clock: () => clock,
      adminToken: ADMIN,
      trustProxy: true,
      attemptLimits: { failureFactor: 3, waitIncrementSeconds: 60, maxWaitSeconds: 300 },
    });
  });
  after(async () => {
    await server?.close();
    await issuer?.close();
    dir.cleanup();
  });

  const init = (): AuthInitParams => ({
    clientId: CLIENT_ID,
    network: 'sapphire_devnet',
    sdkUrl: server.sdkUrl,
    useCoreKitKey: true,
    mfaSettings: SETTINGS,
    whiteLabel: { appName: 'Acme Wallet' },
  });
  /** The app on a new device at `address` (behind the service's trusted proxy). */
  const device = (address = '198.51.100.1') =>
    Auth.create(init(), {
      storage: new MemoryStorage(),
      onWarning: (m) => warnings.push(m),
      fetch: (input, request) =>
        fetch(input, {
          ...request,
          headers: { ...(request?.headers as object), 'x-forwarded-for': address },
        }),
    });
  const jwt = async (sub: string) => ({
    loginProvider: 'jwt' as const,
    extraLoginOptions: { id_token: await issuer.sign({ sub, email: `${sub}@example.com` }) },
  });

  /** Sets MFA up with the authenticator; the secret as read from the URI. */
  async function enrol(sub: string): Promise<{ key: Buffer; uri: string; coreKitKey: string }> {
    let uri = '';
    let qrSvg = '';
    const auth = await device();
    const state = await auth.login(
      { ...(await jwt(sub)), mfaLevel: 'mandatory' },
      {
        setup: {
          factors: ['deviceShareFactor', 'authenticatorFactor'],
          authenticator: (enrolment) => {
            ({ uri, qrSvg } = enrolment);
            return totp(base32(new URL(uri).searchParams.get('secret')!), clock);
          },
        },
      },
    );
    assert.match(qrSvg, /^<svg[\s\S]*<\/svg>$/);
    return { key: base32(new URL(uri).searchParams.get('secret')!), uri, coreKitKey: state.coreKitKey! };
  }

  it('the independent TOTP matches RFC 6238’s test vector', () => {
    // RFC 6238 Appendix B, SHA1, T = 59 s: 94287082 (8 digits).
    assert.equal(totp(Buffer.from('12345678901234567890'), 59_000, 8), '94287082');
    assert.equal(totp(Buffer.from('12345678901234567890'), 1_111_111_109_000, 8), '07081804');
  });

  it('sets up from an otpauth:// URI with a code of the app, and recovers a new device with a later code', async () => {
    const { uri, key, coreKitKey } = await enrol('amy');
    const parsed = new URL(uri);
    assert.equal(parsed.protocol, 'otpauth:');
    assert.equal(parsed.host, 'totp');
    assert.equal(decodeURIComponent(parsed.pathname), '/Acme Wallet:amy@example.com');
    assert.deepEqual(
      ['issuer', 'algorithm', 'digits', 'period'].map((p) => parsed.searchParams.get(p)),
      ['Acme Wallet', 'SHA1', '6', '30'],
    );
    assert.equal(key.length, 20, 'a 160-bit secret (RFC 4226 §4)');
    assert.ok(warnings.includes(`[portico/auth] ${AUTHENTICATOR_WARNING}`));

    clock += 30_000;
    const phone = await device();
    await assert.rejects(phone.login(await jwt('amy')), (err: AuthError) => err.code === 'MFA_REQUIRED');
    const state = await phone.completeMfa({ authenticatorCode: totp(key, clock) });
    assert.equal(state.coreKitKey, coreKitKey);
  });

  it('accepts a code one step late (clock drift) but each code only once', async () => {
    const { key, coreKitKey } = await enrol('bob');
    clock += 60_000;
    const code = totp(key, clock - 30_000); // the previous step's code
    const first = await device();
    await first.login(await jwt('bob'), { authenticatorCode: code });
    assert.equal(first.state.coreKitKey, coreKitKey);
    const second = await device();
    await assert.rejects(
      second.login(await jwt('bob'), { authenticatorCode: code }),
      (err: AuthError) => err.code === 'MFA_FACTOR_INVALID' && err.message === 'Wrong authenticator code',
    );
    clock += 90_000; // three steps on: too old
    await assert.rejects(
      second.completeMfa({ authenticatorCode: totp(key, clock - 90_000) }),
      (err: AuthError) => err.code === 'MFA_FACTOR_INVALID',
    );
  });

  it('a wrong code at setup enables nothing', async () => {
    const auth = await device();
    await assert.rejects(
      auth.login(
        { ...(await jwt('cy')), mfaLevel: 'mandatory' },
        { setup: { factors: ['deviceShareFactor', 'authenticatorFactor'], authenticator: () => '000000' } },
      ),
      (err: AuthError) => err.code === 'LOGIN_FAILED' && /Wrong authenticator code/.test(err.message),
    );
  });

  it('wrong codes count under the attempt limits: a right code during the wait is refused; audited', async () => {
    const { key } = await enrol('dee');
    clock += 30_000;
    const phone = await device('198.51.100.77'); // an address with no failures of earlier tests
    await assert.rejects(phone.login(await jwt('dee')), (err: AuthError) => err.code === 'MFA_REQUIRED');
    for (const guess of ['111111', '222222', '333333']) {
      clock += 2_000;
      await assert.rejects(
        phone.completeMfa({ authenticatorCode: guess }),
        (err: AuthError) => err.code === 'MFA_FACTOR_INVALID',
      );
    }
    clock += 2_000;
    await assert.rejects(
      phone.completeMfa({ authenticatorCode: totp(key, clock) }),
      (err: AuthError) => err.code === 'TOO_MANY_ATTEMPTS',
    );
    clock += 60_000;
    const state = await phone.completeMfa({ authenticatorCode: totp(key, clock) });
    assert.ok(state.coreKitKey);

    const user = KeyService.idOf('jwt', 'dee', { network: 'sapphire_devnet' });
    const res = await fetch(`${server.sdkUrl}/admin/audit?event=mfa.factor&user=${user}`, {
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    const { entries } = (await res.json()) as { entries: Array<{ detail: Record<string, unknown> }> };
    assert.deepEqual(
      entries.map((e) => [e.detail.factor, e.detail.outcome]),
      [
        ['authenticator', 'failure'],
        ['authenticator', 'failure'],
        ['authenticator', 'failure'],
        ['authenticator', 'refused'],
        ['authenticator', 'success'],
      ],
    );
    assert.equal(JSON.stringify(entries).includes(totp(key, clock)), false, 'no code in the audit trail');
  });
});
