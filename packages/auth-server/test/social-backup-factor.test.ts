// The social-backup factor on its own (src/factors/social-backup.ts): the setup step's second
// login (a JWT verifier other than the account's, verified by the service's JwtVerifier against a
// local key; its id checked here with an independent SHA-256 of node:crypto), the share kept in
// the record and the binding that stops a second account from using the same login, and the check:
// a login of the bound user releases the share, another user's or another verifier's is refused
// (403), a bad token is a failure (401), and what is not a guess (the account's own verifier, a
// verifier that is not a JWT verifier) is refused without being counted. Through the service's
// `/api/mfa/factor` route over the SQLite store: what each answer does to the attempt limits.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { LoginRequest } from '@portico/auth';
import { combineShares, type KeyShare } from '@portico/auth/protocol';
import { tempDir } from '@portico/testkit';
import { FACTORS, type SetupBody, type SetupStep, typedFactorOf } from '../src/factors/index.ts';
import { socialBackupFactor, socialIdentity } from '../src/factors/social-backup.ts';
import { HttpError } from '../src/http.ts';
import { DEFAULT_LEGACY_NETWORK } from '../src/keys.ts';
import type { ResolvedProvider } from '../src/login/context.ts';
import type { MfaRecord, SetupInput, SetupOutput } from '../src/mfa.ts';
import { SqliteStore } from '../src/store/sqlite.ts';
import { JwtVerifier } from '../src/verifiers/jwt.ts';
import { VerifierError } from '../src/verifiers/types.ts';
import { ADDRESS, type FactorHarness, factorHarness, shareOf } from './factor-context.ts';

const check = socialBackupFactor.check!;
const SHARE: KeyShare = { index: 9, value: 'b2'.repeat(32) };
const DEVNET = 'sapphire_devnet';

/** The key id of (verifier, verifierId) on a network: SHA-256 of the JSON the service hashes. */
function idOf(verifier: string, verifierId: string, network = DEFAULT_LEGACY_NETWORK): string {
  const parts: unknown[] = ['portico-core-key', verifier, verifierId];
  if (network !== DEFAULT_LEGACY_NETWORK) parts.push({ network });
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

const TARGET: ResolvedProvider = {
  provider: 'main-verifier',
  keyVerifier: 'main-verifier',
  authVerifier: 'main-verifier',
  typeOfLogin: 'jwt',
};

/** The setup step as the social-backup factor sees it: the login's target, network and body. */
function setupStep(
  h: FactorHarness,
  socialBackup: SetupBody['socialBackup'],
  opts: { network?: string; target?: ResolvedProvider } = {},
): SetupStep {
  return {
    ctx: h.ctx,
    loginId: 'login-1',
    request: { options: { network: opts.network ?? DEFAULT_LEGACY_NETWORK } } as unknown as LoginRequest,
    target: opts.target ?? TARGET,
    pending: { provider: 'main-verifier', identity: { verifierId: 'ada' }, skippable: false },
    body: { loginId: 'login-1', factors: ['socialBackupFactor'], socialBackup },
  };
}

const input = (social?: { verifier: string; id: string }): SetupInput => ({
  factors: ['socialBackupFactor'],
  social,
  dappShare: false,
  clientId: 'client-1',
});

function rejectsWith(status: number, code: string, message: string) {
  return (err: unknown) => {
    assert.ok(err instanceof HttpError, String(err));
    assert.deepEqual({ status: err.status, code: err.code, message: err.message }, { status, code, message });
    return true;
  };
}

/** A thrown error that is neither an HttpError nor a VerifierError (a store failure). */
function storeFailure(err: unknown) {
  assert.ok(err instanceof Error, String(err));
  assert.ok(!(err instanceof HttpError) && !(err instanceof VerifierError), String(err));
  return true;
}

describe('the social-backup factor', { timeout: 600_000 }, () => {
  let h: FactorHarness;
  /** A JWT verifier whose store is closed: its replay mark fails as a store would. */
  const brokenDir = tempDir('portico-social-broken-');
  const login = (verifier: string, sub: string) => h.issuers[verifier]!.sign(sub);

  before(async () => {
    h = await factorHarness(['main-verifier', 'social', 'social-two']);
    const broken = new SqliteStore(brokenDir.path);
    await broken.close();
    h.ctx.deps.jwtVerifiers.set(
      'broken',
      new JwtVerifier('broken', h.ctx.deps.jwtVerifiers.get('social')!.config, broken),
    );
  });
  after(async () => {
    await h?.close();
    brokenDir.cleanup();
  });

  describe('setup', () => {
    it('is the registry’s socialBackupFactor, typed as {socialBackup}', () => {
      assert.equal(FACTORS.socialBackupFactor, socialBackupFactor);
      assert.equal(socialBackupFactor.key, 'socialBackupFactor');
      assert.equal(check.field, 'socialBackup');
      assert.equal(check.auditName, 'social backup');
      assert.equal(
        typedFactorOf({ socialBackup: { verifier: 'v', id_token: 't' } })?.module,
        socialBackupFactor,
      );
    });

    it('a login with another JWT verifier is verified and named by its key id on the login’s network', async () => {
      const step = setupStep(h, { verifier: 'social', id_token: await login('social', 'ada@social') });
      assert.deepEqual(await socialBackupFactor.prepare!(step), {
        social: { verifier: 'social', id: idOf('social', 'ada@social') },
      });
      const onDevnet = setupStep(
        h,
        { verifier: 'social', id_token: await login('social', 'ada@social') },
        { network: DEVNET },
      );
      assert.deepEqual(await socialBackupFactor.prepare!(onDevnet), {
        social: { verifier: 'social', id: idOf('social', 'ada@social', DEVNET) },
      });
      assert.notEqual(idOf('social', 'ada@social', DEVNET), idOf('social', 'ada@social'));
    });

    it('without socialBackup: 400 MFA_SETUP_INVALID', async () => {
      await assert.rejects(
        socialBackupFactor.prepare!(setupStep(h, undefined)),
        rejectsWith(400, 'MFA_SETUP_INVALID', 'socialBackupFactor needs socialBackup: {verifier, id_token}'),
      );
    });

    it('the login’s own verifier, the key’s or the authenticating one, is refused (400 MFA_SETUP_INVALID)', async () => {
      const aggregate = { ...TARGET, keyVerifier: 'social', authVerifier: 'social-two' };
      for (const verifier of ['social', 'social-two']) {
        await assert.rejects(
          socialBackupFactor.prepare!(
            setupStep(h, { verifier, id_token: await login(verifier, 'ada') }, { target: aggregate }),
          ),
          rejectsWith(
            400,
            'MFA_SETUP_INVALID',
            'The social backup factor needs a different verifier than the login',
          ),
          verifier,
        );
      }
    });

    it('a verifier that is not a JWT verifier of the service: 400 PROVIDER_INVALID naming it', async () => {
      for (const verifier of ['google', 'constructor', '']) {
        await assert.rejects(
          socialBackupFactor.prepare!(setupStep(h, { verifier, id_token: await login('social', 'ada') })),
          rejectsWith(400, 'PROVIDER_INVALID', `Verifier "${verifier}" is not a JWT verifier`),
        );
      }
    });

    it('a token the verifier refuses: 401 LOGIN_FAILED with its reason', async () => {
      const cases: [string, string][] = [
        ['not a token', 'Malformed token'],
        [await login('social-two', 'ada'), 'No key in the JWKS matches the token kid'],
      ];
      const used = await login('social', 'ada');
      await socialBackupFactor.prepare!(setupStep(h, { verifier: 'social', id_token: used }));
      cases.push([used, 'Duplicate token found']);
      for (const [token, reason] of cases) {
        await assert.rejects(
          socialBackupFactor.prepare!(setupStep(h, { verifier: 'social', id_token: token })),
          rejectsWith(401, 'LOGIN_FAILED', `Social backup login: ${reason}`),
        );
      }
    });

    it('a failure that is not the login’s (the store) is not turned into a refused login', async () => {
      await assert.rejects(
        socialBackupFactor.prepare!(
          setupStep(h, { verifier: 'broken', id_token: await login('social', 'ada') }),
        ),
        storeFailure,
      );
    });

    it('a login already bound as another account’s social backup: 409 SOCIAL_BACKUP_TAKEN', async () => {
      await h.ctx.mfaStore.bindSocial(idOf('social', 'taken'), 'someone-else');
      await assert.rejects(
        socialBackupFactor.prepare!(
          setupStep(h, { verifier: 'social', id_token: await login('social', 'taken') }),
        ),
        rejectsWith(409, 'SOCIAL_BACKUP_TAKEN', 'That login is already the social backup of another account'),
      );
      // The same person on another network is another key id, so not taken.
      const other = await socialBackupFactor.prepare!(
        setupStep(h, { verifier: 'social', id_token: await login('social', 'taken') }, { network: DEVNET }),
      );
      assert.deepEqual(other, { social: { verifier: 'social', id: idOf('social', 'taken', DEVNET) } });
    });

    it('the share stays in the record beside the login; nothing leaves; the binding is written once saved', async () => {
      const record = { devices: {} } as unknown as MfaRecord;
      const out = {} as SetupOutput;
      const social = { verifier: 'social', id: idOf('social', 'bound') };
      await socialBackupFactor.seal(SHARE, input(social), record, out);
      assert.deepEqual(record, { devices: {}, social: { ...social, share: SHARE } });
      assert.deepEqual(out, {});
      assert.equal(await h.ctx.mfaStore.socialOwner(social.id), undefined);
      await socialBackupFactor.saved!(h.ctx.mfaStore, 'owner', record);
      assert.equal(await h.ctx.mfaStore.socialOwner(social.id), 'owner');
    });

    it('sealing without the second login is a programming error; saving a record without one binds nothing', async () => {
      const record = { devices: {} } as unknown as MfaRecord;
      await assert.rejects(async () => socialBackupFactor.seal(SHARE, input(), record, {} as SetupOutput), {
        name: 'Error',
        message: 'The social backup factor needs a login with a second verifier',
      });
      assert.deepEqual(record, { devices: {} });
      const bound: string[] = [];
      await socialBackupFactor.saved!(
        { bindSocial: async (id, user) => void bound.push(`${id}:${user}`) },
        'owner',
        record,
      );
      assert.deepEqual(bound, []);
    });
  });

  describe('check', () => {
    const bound = { verifier: 'social', id: idOf('social', 'ada@social'), share: SHARE };
    const record = { social: bound } as unknown as MfaRecord;
    const grant = { userId: 'ada', keyVerifier: 'main-verifier' };
    const open = async (verifier: string, sub: string, caller: typeof grant & { network?: string } = grant) =>
      check.open(h.ctx, record, { verifier, id_token: await login(verifier, sub) }, caller);
    const NOT_BOUND = { status: 403, message: 'This login is not the social backup of this account' };

    it('is ready only on an account with a social backup', () => {
      assert.throws(
        () => check.ready({ devices: {} } as unknown as MfaRecord),
        rejectsWith(400, 'MFA_FACTOR_NOT_SET_UP', 'No social backup factor on this account'),
      );
      assert.doesNotThrow(() => check.ready(record));
    });

    it('a login of the bound user with the bound verifier releases the share', async () => {
      assert.deepEqual(await open('social', 'ada@social'), { share: SHARE });
    });

    it('the grant’s network names the key id: none or the legacy network is the legacy id', async () => {
      assert.deepEqual(await open('social', 'ada@social', { ...grant, network: DEFAULT_LEGACY_NETWORK }), {
        share: SHARE,
      });
      assert.deepEqual(await open('social', 'ada@social', { ...grant, network: DEVNET }), NOT_BOUND);
      const onDevnet = {
        social: { ...bound, id: idOf('social', 'ada@social', DEVNET) },
      } as unknown as MfaRecord;
      assert.deepEqual(
        await check.open(
          h.ctx,
          onDevnet,
          { verifier: 'social', id_token: await login('social', 'ada@social') },
          { ...grant, network: DEVNET },
        ),
        { share: SHARE },
      );
    });

    it('another user’s login, or the same user id with another verifier, is not the social backup (403)', async () => {
      assert.deepEqual(await open('social', 'mallory@social'), NOT_BOUND);
      assert.deepEqual(await open('social-two', 'ada@social'), NOT_BOUND);
    });

    it('a record naming another verifier for the same id is not matched either', async () => {
      const renamed = { social: { ...bound, verifier: 'social-two' } } as unknown as MfaRecord;
      assert.deepEqual(
        await check.open(
          h.ctx,
          renamed,
          { verifier: 'social', id_token: await login('social', 'ada@social') },
          grant,
        ),
        NOT_BOUND,
      );
    });

    it('a value that is not {verifier, id_token} is a failure (401)', async () => {
      for (const value of [
        undefined,
        'token',
        { verifier: 'social' },
        { id_token: 'x' },
        { verifier: 1, id_token: 'x' },
        { verifier: 'social', id_token: null },
      ]) {
        assert.deepEqual(
          await check.open(h.ctx, record, value, grant),
          { status: 401, message: 'socialBackup needs {verifier, id_token}' },
          JSON.stringify(value),
        );
      }
    });

    it('a token the verifier refuses is a failure (401) with its reason', async () => {
      const token = await login('social', 'ada@social');
      assert.deepEqual(await check.open(h.ctx, record, { verifier: 'social', id_token: token }, grant), {
        share: SHARE,
      });
      for (const [idToken, message] of [
        [token, 'Duplicate token found'],
        ['garbage', 'Malformed token'],
        [await login('social-two', 'ada@social'), 'No key in the JWKS matches the token kid'],
      ]) {
        assert.deepEqual(await check.open(h.ctx, record, { verifier: 'social', id_token: idToken }, grant), {
          status: 401,
          message,
        });
      }
    });

    it('the account’s own key verifier, or a verifier that is not a JWT verifier, throws (not a guess)', async () => {
      await assert.rejects(
        open('main-verifier', 'ada'),
        rejectsWith(
          400,
          'MFA_SETUP_INVALID',
          'The social backup factor needs a different verifier than the login',
        ),
      );
      await assert.rejects(
        check.open(h.ctx, record, { verifier: 'nope', id_token: await login('social', 'ada@social') }, grant),
        rejectsWith(400, 'PROVIDER_INVALID', 'Verifier "nope" is not a JWT verifier'),
      );
    });

    it('a failure that is not the login’s (the store) is thrown as it is', async () => {
      await assert.rejects(
        check.open(
          h.ctx,
          record,
          { verifier: 'broken', id_token: await login('social', 'ada@social') },
          grant,
        ),
        storeFailure,
      );
    });
  });

  describe('socialIdentity', () => {
    it('refuses any of the primary verifiers given, and names the login by verifier and key id', async () => {
      const token = await login('social', 'eve');
      assert.deepEqual(
        await socialIdentity(h.ctx, ['a', 'b'], { verifier: 'social', id_token: token }, DEVNET),
        {
          verifier: 'social',
          id: idOf('social', 'eve', DEVNET),
        },
      );
      await assert.rejects(
        socialIdentity(
          h.ctx,
          ['a', 'social'],
          { verifier: 'social', id_token: await login('social', 'eve') },
          DEVNET,
        ),
        rejectsWith(
          400,
          'MFA_SETUP_INVALID',
          'The social backup factor needs a different verifier than the login',
        ),
      );
    });
  });

  describe('at /api/mfa/factor (attempt limits, SQLite)', () => {
    let sessionId: string;
    let key: string;
    let serviceShare: KeyShare;
    const social = () => ({ verifier: 'social', id: idOf('social', 'ada-route') });
    before(async () => {
      const enabled = await h.enable('ada-route', ['deviceShareFactor', 'socialBackupFactor'], {
        social: social(),
      });
      key = enabled.key;
      serviceShare = enabled.record.serviceShare;
      assert.equal(await h.ctx.mfaStore.socialOwner(social().id), 'ada-route');
      sessionId = await h.session({ userId: 'ada-route', keyVerifier: 'main-verifier' });
    });
    const call = async (verifier: string, sub: string, address = ADDRESS) =>
      h.factorCall(sessionId, { socialBackup: { verifier, id_token: await login(verifier, sub) } }, address);

    it('the bound login answers the share, which rebuilds the key with the service’s', async () => {
      const share = shareOf(await call('social', 'ada-route'));
      assert.equal(await combineShares(serviceShare, share), key);
      assert.deepEqual((await h.audit('ada-route')).at(-1), {
        event: 'mfa.factor',
        detail: { factor: 'social backup', address: ADDRESS, outcome: 'success' },
      });
    });

    it('another user’s login is a counted failure (403 MFA_FACTOR_INVALID); a refused token too (401)', async () => {
      await assert.rejects(
        call('social', 'mallory'),
        rejectsWith(403, 'MFA_FACTOR_INVALID', 'This login is not the social backup of this account'),
      );
      assert.deepEqual(await h.failures('ada-route'), { user: 1, address: 1 });
      assert.deepEqual((await h.audit('ada-route')).at(-1), {
        event: 'mfa.factor',
        detail: {
          factor: 'social backup',
          address: ADDRESS,
          outcome: 'failure',
          reason: 'This login is not the social backup of this account',
        },
      });
      await assert.rejects(
        h.factorCall(sessionId, { socialBackup: { verifier: 'social', id_token: 'garbage' } }),
        rejectsWith(401, 'MFA_FACTOR_INVALID', 'Malformed token'),
      );
      assert.deepEqual(await h.failures('ada-route'), { user: 2, address: 2 });
    });

    it('the account’s own verifier is refused (400), counted and audited as a failure', async () => {
      const before = await h.failures('ada-route', '192.0.2.50');
      await assert.rejects(
        call('main-verifier', 'ada-route', '192.0.2.50'),
        rejectsWith(
          400,
          'MFA_SETUP_INVALID',
          'The social backup factor needs a different verifier than the login',
        ),
      );
      const trail = await h.audit('ada-route');
      assert.deepEqual(
        [trail.at(-1)?.detail.address, trail.at(-1)?.detail.outcome, trail.at(-1)?.detail.reason],
        ['192.0.2.50', 'failure', 'The social backup factor needs a different verifier than the login'],
        'the refusal is in the audit trail',
      );
      // The attempt was counted before the factor threw, like any failure.
      assert.deepEqual(await h.failures('ada-route', '192.0.2.50'), {
        user: before.user + 1,
        address: 1,
      });
    });

    it('an account without a social backup: 400 MFA_FACTOR_NOT_SET_UP, not counted, not audited', async () => {
      await h.enable('bob-route', ['deviceShareFactor', 'passwordFactor'], { password: 'bob password' });
      const bob = await h.session({ userId: 'bob-route', keyVerifier: 'main-verifier' });
      await assert.rejects(
        h.factorCall(
          bob,
          { socialBackup: { verifier: 'social', id_token: await login('social', 'ada-route') } },
          '192.0.2.99',
        ),
        rejectsWith(400, 'MFA_FACTOR_NOT_SET_UP', 'No social backup factor on this account'),
      );
      assert.deepEqual(await h.failures('bob-route', '192.0.2.99'), { user: 0, address: 0 });
      assert.deepEqual(await h.audit('bob-route'), []);
    });
  });
});
