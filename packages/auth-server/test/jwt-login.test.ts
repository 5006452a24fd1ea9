import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Auth, AuthError, type AuthInitParams, type ExtraLoginOptions, MemoryStorage } from '@portico/auth';
import { getAppScopedKey, getEd25519PrivKey, secp256k1PublicKey } from '@portico/auth/protocol';
import { type AuthServer, startAuthServer } from '@portico/auth-server';
import { freshDatabase, serviceUrl, tempDir } from '@portico/testkit';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { type JwksIssuer, startJwksIssuer, unsignedToken } from './helpers.ts';

const CLIENT_ID = 'BPi5PB_UiIZ-cPz1GtV5i1I2iOSOHuimiXBI0e-Oe_u6X3oVAbCiAZOTEBtTXw4tsluTITPqA8zMsfxIKMjiqNQ';
const OTHER_CLIENT_ID =
  'BHr_dKcxC0ecKn_2dZQmQeNdjPgWykMkcodEHkVvPMo71qzOV6SgtoN8KCvFdLN7bf34JOm89vWQMLFmSfIo84A';
const ISS = 'https://idp.portico.test';

describe('custom JWT login (local JWKS issuer, SQLite store)', { timeout: 120_000 }, () => {
  const dir = tempDir('portico-auth-jwt-');
  let issuer: JwksIssuer;
  let server: AuthServer;
  let clock = Date.now();
  const claims = (sub: string, extra: Record<string, unknown> = {}) => ({
    sub,
    email: `${sub}@example.com`,
    iss: ISS,
    aud: 'portico-app',
    ...extra,
  });

  before(async () => {
    issuer = await startJwksIssuer();
    server = await startAuthServer({
      dataDir: dir.path,
      masterKey: 'a'.repeat(64),
      clock: () => clock,
      verifiers: {
        jwt: { type: 'jwt', jwksUrl: issuer.jwksUrl, claims: { iss: ISS, aud: 'portico-app' } },
        'jwt-email': {
          type: 'jwt',
          keys: [issuer.publicJwk],
          verifierIdField: 'email',
          isVerifierIdCaseSensitive: false,
        },
        // What an app may ask for: the email or a claim named like a prototype member as the id,
        // lowercased ids, up to 300 s of leeway.
        'jwt-bounded': {
          type: 'jwt',
          keys: [issuer.publicJwk],
          verifierIdFields: ['email', 'toString'],
          allowCaseInsensitive: true,
          maxLeeway: 300,
        },
      },
    });
  });
  after(async () => {
    await server?.close();
    await issuer?.close();
    dir.cleanup();
  });

  function init(extra: Partial<AuthInitParams> = {}): AuthInitParams {
    return {
      clientId: CLIENT_ID,
      network: 'sapphire_devnet',
      sdkUrl: server.sdkUrl,
      loginConfig: {
        byEmail: { verifier: 'jwt-email', typeOfLogin: 'jwt', clientId: CLIENT_ID },
        bounded: { verifier: 'jwt-bounded', typeOfLogin: 'jwt', clientId: CLIENT_ID },
      },
      ...extra,
    };
  }

  async function loginWith(
    token: string,
    provider = 'jwt',
    extra: Partial<AuthInitParams> = {},
    storage = new MemoryStorage(),
  ) {
    const auth = await Auth.create(init(extra), { storage });
    await auth.login({ loginProvider: provider, extraLoginOptions: { id_token: token } });
    return auth;
  }

  it('logs in without a page and returns the four keys, derived as the reference says', async () => {
    const auth = await loginWith(await issuer.sign(claims('alice')));
    const s = auth.state;
    assert.match(s.coreKitKey ?? '', /^[0-9a-f]{64}$/);
    assert.equal(s.privKey, getAppScopedKey(s.coreKitKey!, CLIENT_ID));
    assert.equal(s.ed25519PrivKey, getEd25519PrivKey(s.privKey!));
    assert.equal(s.coreKitEd25519PrivKey, getEd25519PrivKey(s.coreKitKey!));
    assert.equal(auth.getPrivKey(), s.privKey);
    assert.equal(auth.getEd25519PrivKey(), s.ed25519PrivKey);
    const user = auth.getUserInfo();
    assert.equal(user.verifier, 'jwt');
    assert.equal(user.verifierId, 'alice');
    assert.equal(user.typeOfLogin, 'jwt');
    assert.equal(user.email, 'alice@example.com');
  });

  it('signs an idToken a backend can verify with the published JWKS, with wallets per curve', async () => {
    const keysByCurve: string[] = [];
    for (const curve of ['secp256k1', 'ed25519'] as const) {
      const auth = await Auth.create(init(), { storage: new MemoryStorage() });
      await auth.login({
        loginProvider: 'jwt',
        curve,
        extraLoginOptions: { id_token: await issuer.sign(claims('bob')) },
      });
      const { payload } = await jwtVerify(
        auth.getUserInfo().idToken!,
        createRemoteJWKSet(new URL(server.jwksUrl)),
        {
          issuer: server.sdkUrl,
          audience: CLIENT_ID,
        },
      );
      assert.equal(payload.verifierId, 'bob');
      assert.equal(payload.verifier, 'jwt');
      assert.ok(typeof payload.nonce === 'string' && typeof payload.exp === 'number');
      const wallets = payload.wallets as Array<{ public_key: string; type: string; curve: string }>;
      const s = auth.state;
      const expected =
        curve === 'secp256k1'
          ? [secp256k1PublicKey(s.privKey!), secp256k1PublicKey(s.coreKitKey!)]
          : [s.ed25519PrivKey!.slice(64), s.coreKitEd25519PrivKey!.slice(64)];
      assert.deepEqual(wallets, [
        { public_key: expected[0], type: 'web3auth_app_key', curve },
        { public_key: expected[1], type: 'web3auth_threshold_key', curve },
      ]);
      // curve changes the idToken only: getPrivKey is the secp256k1 key, getEd25519PrivKey the ed25519 one.
      assert.equal(auth.getPrivKey(), s.privKey);
      assert.equal(auth.getEd25519PrivKey(), s.ed25519PrivKey);
      keysByCurve.push(`${auth.getPrivKey()}|${auth.getEd25519PrivKey()}`);
    }
    assert.equal(keysByCurve[0], keysByCurve[1], 'the same keys whatever the curve');
  });

  it('keeps one coreKitKey per (verifier, verifierId) across apps; privKey differs per clientId', async () => {
    const a = await loginWith(await issuer.sign(claims('carol')));
    const b = await loginWith(await issuer.sign(claims('carol')), 'jwt', { clientId: OTHER_CLIENT_ID });
    assert.equal(a.state.coreKitKey, b.state.coreKitKey);
    assert.notEqual(a.state.privKey, b.state.privKey);
    const other = await loginWith(await issuer.sign(claims('dave')));
    assert.notEqual(other.state.coreKitKey, a.state.coreKitKey);
  });

  it('useCoreKitKey switches getPrivKey and getEd25519PrivKey to the core kit pair', async () => {
    const auth = await loginWith(await issuer.sign(claims('erin')), 'jwt', { useCoreKitKey: true });
    assert.equal(auth.getPrivKey(), auth.state.coreKitKey);
    assert.equal(auth.getEd25519PrivKey(), auth.state.coreKitEd25519PrivKey);
  });

  it('honours the verifier-id field and case-insensitivity (loginConfig entry → verifier)', async () => {
    const upper = await loginWith(await issuer.sign({ sub: 'x1', email: 'Frank@Example.COM' }), 'byEmail');
    const lower = await loginWith(await issuer.sign({ sub: 'x2', email: 'frank@example.com' }), 'byEmail');
    assert.equal(upper.getUserInfo().verifierId, 'frank@example.com');
    assert.equal(upper.getUserInfo().verifier, 'jwt-email');
    assert.equal(upper.state.coreKitKey, lower.state.coreKitKey);
    // The case-sensitive default verifier keeps ids apart.
    const a = await loginWith(await issuer.sign(claims('Gina')));
    const b = await loginWith(await issuer.sign(claims('gina')));
    assert.notEqual(a.state.coreKitKey, b.state.coreKitKey);
  });

  /** A JWT login with extraLoginOptions besides the token; resolves with the instance or rejects. */
  async function loginWithOptions(provider: string, token: string, options: ExtraLoginOptions) {
    const auth = await Auth.create(init(), { storage: new MemoryStorage() });
    await auth.login({ loginProvider: provider, extraLoginOptions: { ...options, id_token: token } });
    return auth;
  }
  const expiredBy30s = (sub: string) => issuer.sign({ sub }, { iatOffset: -40, expIn: 10 });

  it('extraLoginOptions.leeway lets a token expired 30 s ago through, up to the verifier’s maxLeeway', async () => {
    await assert.rejects(loginWithOptions('bounded', await expiredBy30s('lee-1'), {}), /Token expired/);
    const auth = await loginWithOptions('bounded', await expiredBy30s('lee-2'), { leeway: 120 });
    assert.equal(auth.getUserInfo().verifierId, 'lee-2');
    await assert.rejects(
      loginWithOptions('bounded', await expiredBy30s('lee-3'), { leeway: 301 }),
      /leeway 301 is above the 300 seconds verifier "jwt-bounded" allows/,
    );
    // A verifier without maxLeeway allows up to 60 s.
    await assert.rejects(
      loginWithOptions('jwt', await issuer.sign(claims('lee-4'), { iatOffset: -40, expIn: 10 }), {
        leeway: 120,
      }),
      /leeway 120 is above the 60 seconds verifier "jwt" allows/,
    );
  });

  it('extraLoginOptions.verifierIdField picks an allowed claim; keys stay apart from the same value in sub', async () => {
    const byEmail = await loginWithOptions(
      'bounded',
      await issuer.sign({ sub: 'opaque-1', email: 'nina@example.com' }),
      { verifierIdField: 'email' },
    );
    assert.equal(byEmail.getUserInfo().verifierId, 'nina@example.com');
    const again = await loginWithOptions(
      'bounded',
      await issuer.sign({ sub: 'opaque-2', email: 'nina@example.com' }),
      { verifierIdField: 'email' },
    );
    assert.equal(again.state.coreKitKey, byEmail.state.coreKitKey, 'one email, one user');
    // Somebody whose sub happens to read like Nina's email gets a key of their own.
    const bySub = await loginWithOptions('bounded', await issuer.sign({ sub: 'nina@example.com' }), {});
    assert.equal(bySub.getUserInfo().verifierId, 'nina@example.com');
    assert.notEqual(bySub.state.coreKitKey, byEmail.state.coreKitKey);
    await assert.rejects(
      loginWithOptions('jwt', await issuer.sign(claims('nina')), { verifierIdField: 'email' }),
      /verifierIdField "email" is not allowed by verifier "jwt" \(allowed: sub\)/,
    );
  });

  it('a verifierIdField named after a prototype member reads only a claim of that name', async () => {
    await assert.rejects(
      loginWithOptions('jwt', await issuer.sign(claims('omar')), { verifierIdField: 'toString' }),
      /verifierIdField "toString" is not allowed/,
    );
    await assert.rejects(
      loginWithOptions('bounded', await issuer.sign({ sub: 'omar' }), { verifierIdField: 'toString' }),
      /Token has no verifier id in "toString"/,
    );
    const auth = await loginWithOptions('bounded', await issuer.sign({ sub: 'omar', toString: 'omar-id' }), {
      verifierIdField: 'toString',
    });
    assert.equal(auth.getUserInfo().verifierId, 'omar-id');
  });

  it('isVerifierIdCaseSensitive false makes User@X and user@x one user with one key, where the verifier allows it', async () => {
    const options = { verifierIdField: 'email', isVerifierIdCaseSensitive: false };
    const upper = await loginWithOptions(
      'bounded',
      await issuer.sign({ sub: 'p1', email: 'Pia@Example.COM' }),
      options,
    );
    const lower = await loginWithOptions(
      'bounded',
      await issuer.sign({ sub: 'p2', email: 'pia@example.com' }),
      options,
    );
    assert.equal(upper.getUserInfo().verifierId, 'pia@example.com');
    assert.equal(upper.state.coreKitKey, lower.state.coreKitKey);
    assert.equal(upper.getPrivKey(), lower.getPrivKey());
    // The default (true) keeps them apart.
    const a = await loginWithOptions('bounded', await issuer.sign({ sub: 'p3', email: 'Pia@Example.COM' }), {
      verifierIdField: 'email',
    });
    assert.equal(a.getUserInfo().verifierId, 'Pia@Example.COM');
    assert.notEqual(a.state.coreKitKey, upper.state.coreKitKey);
    await assert.rejects(
      loginWithOptions('jwt', await issuer.sign(claims('Quinn')), { isVerifierIdCaseSensitive: false }),
      /Verifier "jwt" keeps verifier ids case-sensitive/,
    );
  });

  describe('refuses bad tokens', () => {
    const cases: Array<[string, () => Promise<string>, RegExp]> = [
      ['a replayed token', async () => '', /Duplicate token found/],
      [
        'a forged signature',
        () => issuer.sign(claims('mallory'), { key: issuer.otherKey }),
        /Invalid token signature/,
      ],
      [
        'an expired token',
        () => issuer.sign(claims('mallory'), { iatOffset: -30, expIn: 10 }),
        /Token expired/,
      ],
      [
        'a stale token (iat older than 60 s)',
        () => issuer.sign(claims('mallory'), { iatOffset: -120 }),
        /stale/,
      ],
      ['an unknown kid', () => issuer.sign(claims('mallory'), { kid: 'nope' }), /No key in the JWKS matches/],
      [
        'alg none',
        async () => unsignedToken({ ...claims('mallory'), iat: Math.floor(Date.now() / 1000) }, issuer.kid),
        /algorithm not allowed/,
      ],
      [
        'a failed claim check (aud)',
        () => issuer.sign(claims('mallory', { aud: 'other-app' })),
        /Claim check failed: aud/,
      ],
      [
        'a token without iat',
        () => issuer.sign(claims('mallory'), { noIat: true }),
        /Token iat is invalid: missing required "iat" claim/,
      ],
    ];
    for (const [name, make, expected] of cases) {
      it(`refuses ${name}`, async () => {
        let token = await make();
        if (name === 'a replayed token') {
          token = await issuer.sign(claims('replayed'));
          await loginWith(token);
        }
        await assert.rejects(loginWith(token), (err: Error) => {
          assert.match(err.message, expected);
          return true;
        });
      });
    }
  });

  it('restores a session after an app restart, and logout invalidates it at once', async () => {
    const storage = new MemoryStorage();
    const first = await loginWith(await issuer.sign(claims('henry')), 'jwt', {}, storage);
    const restarted = await Auth.create(init(), { storage });
    assert.deepEqual(restarted.state, first.state);
    assert.equal(restarted.getPrivKey(), first.getPrivKey());
    await restarted.logout();
    assert.deepEqual(restarted.state, {});
    assert.equal(restarted.getPrivKey(), '');
    assert.throws(() => restarted.getUserInfo(), /No user found, please login again!/);
    // The first instance still holds the sessionId, but the service has dropped the session.
    const again = await Auth.create(init(), { storage: new MemoryStorage() });
    assert.deepEqual(again.state, {});
    // Logging out there too just forgets the local state.
    await first.logout();
    assert.deepEqual(first.state, {});
    const third = await Auth.create(init(), { storage });
    assert.deepEqual(third.state, {});
  });

  it('a second login replaces the session; a failed one keeps it and records the error', async () => {
    const storage = new MemoryStorage();
    const auth = await loginWith(await issuer.sign(claims('kate')), 'jwt', {}, storage);
    const firstSession = auth.state.sessionId!;
    await auth.login({
      loginProvider: 'jwt',
      extraLoginOptions: { id_token: await issuer.sign(claims('kate')) },
    });
    assert.notEqual(auth.state.sessionId, firstSession);
    const stale = new MemoryStorage();
    await stale.set(`portico-auth:${CLIENT_ID}`, firstSession);
    assert.deepEqual((await Auth.create(init(), { storage: stale })).state, {}, 'the old session is gone');
    const token = await issuer.sign(claims('kate'), { key: issuer.otherKey });
    await assert.rejects(auth.login({ loginProvider: 'jwt', extraLoginOptions: { id_token: token } }));
    assert.equal(auth.state.error, 'Invalid token signature');
    assert.equal(auth.getUserInfo().verifierId, 'kate');
  });

  it('AuthState.error is reset when a login starts: a stale error outlives neither a success nor another failure', async () => {
    const seenAtStart: Array<string | undefined> = [];
    let auth: Auth | undefined;
    auth = await Auth.create(init(), {
      storage: new MemoryStorage(),
      // Looks at the state when the login reaches the service, before it is decided.
      fetch: (input, requestInit) => {
        if (String(input).endsWith('/api/login/jwt')) seenAtStart.push(auth?.state.error);
        return fetch(input, requestInit);
      },
    });
    const forged = await issuer.sign(claims('lena'), { key: issuer.otherKey });
    await assert.rejects(auth.login({ loginProvider: 'jwt', extraLoginOptions: { id_token: forged } }));
    assert.equal(auth.state.error, 'Invalid token signature');
    const stale = await issuer.sign(claims('lena'), { iatOffset: -120 });
    await assert.rejects(auth.login({ loginProvider: 'jwt', extraLoginOptions: { id_token: stale } }));
    assert.match(auth.state.error ?? '', /stale/);
    await auth.login({
      loginProvider: 'jwt',
      extraLoginOptions: { id_token: await issuer.sign(claims('lena')) },
    });
    assert.equal(auth.state.error, undefined);
    assert.equal(auth.getUserInfo().verifierId, 'lena');
    assert.deepEqual(seenAtStart, [undefined, undefined, undefined]);
  });

  it('expires a session after sessionTime without a renewal', async () => {
    const storage = new MemoryStorage();
    await loginWith(await issuer.sign(claims('ivy')), 'jwt', { sessionTime: 120 }, storage);
    // A load before half the window neither renews (sessions.test.ts: past half it does) nor ends it.
    clock += 50_000;
    assert.ok((await Auth.create(init({ sessionTime: 120 }), { storage })).state.privKey);
    clock += 71_000;
    const expired = await Auth.create(init({ sessionTime: 120 }), { storage });
    assert.deepEqual(expired.state, {});
    assert.equal(await storage.get(`portico-auth:${CLIENT_ID}`), null);
  });

  it('a live instance drops its keys when its session expires and reports the expiry', async () => {
    const storage = new MemoryStorage();
    // Long enough that a slow login still finds its keys before the end: the expiry is asserted
    // against the moments around the login, not against how fast the machine is.
    const auth = await Auth.create(init({ sessionTime: 5 }), { storage });
    const expired = new Promise<{ expiredAt: number }>((resolve) => auth.on('sessionExpired', resolve));
    const idToken = await issuer.sign(claims('mia'));
    const before = Date.now();
    await auth.login({ loginProvider: 'jwt', extraLoginOptions: { id_token: idToken } });
    const after = Date.now();
    const expiresAt = auth.sessionExpiresAt ?? 0;
    // Five seconds after the service made the session (between before and after), to the second.
    assert.ok(
      expiresAt >= before + 4000 && expiresAt <= after + 5000,
      `${expiresAt - before} ms after the login began`,
    );
    if (Date.now() < expiresAt) assert.match(auth.getPrivKey(), /^[0-9a-f]{64}$/);
    const event = await expired;
    assert.ok(event.expiredAt >= expiresAt);
    assert.deepEqual(auth.state, { error: 'Session expired, please login again!' });
    assert.equal(auth.getPrivKey(), '');
    assert.equal(auth.getEd25519PrivKey(), '');
    assert.equal(auth.sessionExpiresAt, undefined);
    assert.throws(
      () => auth.getUserInfo(),
      (err: unknown) => err instanceof AuthError && err.code === 'SESSION_EXPIRED',
    );
    assert.equal(await storage.get(`portico-auth:${CLIENT_ID}`), null);
    // A new login starts a new session.
    await auth.login({
      loginProvider: 'jwt',
      extraLoginOptions: { id_token: await issuer.sign(claims('mia')) },
    });
    assert.equal(auth.state.error, undefined);
    assert.equal(auth.getUserInfo().verifierId, 'mia');
  });

  it('sessionTime has no cap: a 30-day session lasts 30 days, in the service and in the idToken', async () => {
    const warnings: string[] = [];
    const days30 = 30 * 86_400;
    const auth = await Auth.create(init({ sessionTime: days30 }), {
      storage: new MemoryStorage(),
      onWarning: (m) => warnings.push(m),
    });
    await auth.login({
      loginProvider: 'jwt',
      extraLoginOptions: { id_token: await issuer.sign(claims('noor')) },
    });
    assert.deepEqual(warnings, []);
    const left = ((auth.sessionExpiresAt ?? 0) - Date.now()) / 1000;
    assert.ok(Math.abs(left - days30) < 5, String(left));
    const { payload } = await jwtVerify(
      auth.getUserInfo().idToken ?? '',
      createRemoteJWKSet(new URL(server.jwksUrl)),
    );
    assert.equal((payload.exp ?? 0) - (payload.iat ?? 0), days30);
  });

  it('v5/v6 login parameters still work: sessionTime for this login, appState handed back, each with a warning', async () => {
    const warnings: string[] = [];
    const auth = await Auth.create(init(), {
      storage: new MemoryStorage(),
      onWarning: (m) => warnings.push(m),
    });
    const outcome = await auth.login({
      loginProvider: 'jwt',
      sessionTime: 120,
      appState: 'cart=3',
      extraLoginOptions: { id_token: await issuer.sign(claims('olga')) },
    });
    assert.equal(outcome.appState, 'cart=3');
    const left = ((auth.sessionExpiresAt ?? 0) - Date.now()) / 1000;
    assert.ok(left > 110 && left <= 120, String(left));
    assert.deepEqual(warnings, [
      '[portico/auth] loginParams.sessionTime is v5/v6: v7 takes sessionTime in the init parameters (used for this login)',
    ]);
  });

  it('keeps no key material or verifier ids in plaintext at rest', async () => {
    const auth = await loginWith(await issuer.sign(claims('judy')));
    const s = auth.state;
    const files = readdirSync(dir.path).filter((f) => f.startsWith('auth.db'));
    const bytes = files.map((f) => readFileSync(join(dir.path, f)).toString('latin1')).join('');
    assert.ok(bytes.length > 0);
    for (const secret of [s.coreKitKey!, s.privKey!, s.ed25519PrivKey!, 'judy@example.com']) {
      assert.equal(bytes.includes(secret), false);
    }
  });
});

describe('a service that caps sessions (maxSessionTime)', () => {
  it('gives a longer sessionTime the cap, and the library says so', async () => {
    const issuer = await startJwksIssuer();
    const dir = tempDir('portico-auth-maxsession-');
    const server = await startAuthServer({
      dataDir: dir.path,
      masterKey: '5'.repeat(64),
      maxSessionTime: 3600,
      verifiers: { jwt: { type: 'jwt', keys: [issuer.publicJwk] } },
    });
    try {
      const warnings: string[] = [];
      const auth = await Auth.create(
        { clientId: CLIENT_ID, network: 'sapphire_mainnet', sdkUrl: server.sdkUrl, sessionTime: 86_400 },
        { storage: new MemoryStorage(), onWarning: (m) => warnings.push(m) },
      );
      await auth.login({
        loginProvider: 'jwt',
        extraLoginOptions: { id_token: await issuer.sign({ sub: 'cap' }) },
      });
      assert.equal(warnings.length, 1);
      assert.match(
        warnings[0],
        /^\[portico\/auth\] sessionTime 86400 is above what the auth service allows: this session lasts (3599|3600) seconds$/,
      );
      const left = ((auth.sessionExpiresAt ?? 0) - Date.now()) / 1000;
      assert.ok(Math.abs(left - 3600) < 5, String(left));
    } finally {
      await server.close();
      await issuer.close();
      dir.cleanup();
    }
  });
});

describe('PostgreSQL store', () => {
  const pg = serviceUrl('DATABASE_URL');
  it('logs in and restores a session with the store in PostgreSQL', { skip: pg.skip }, async () => {
    const issuer = await startJwksIssuer();
    const dir = tempDir('portico-auth-pg-');
    // A database of its own: the store's schema version is not shared with other branches' runs.
    const database = await freshDatabase(pg.url!);
    const server = await startAuthServer({
      dataDir: dir.path,
      databaseUrl: database.url,
      masterKey: 'b'.repeat(64),
      verifiers: { jwt: { type: 'jwt', jwksUrl: issuer.jwksUrl } },
    });
    try {
      const storage = new MemoryStorage();
      const params: AuthInitParams = {
        clientId: CLIENT_ID,
        network: 'sapphire_mainnet',
        sdkUrl: server.sdkUrl,
      };
      const auth = await Auth.create(params, { storage });
      const sub = `pg-${Date.now()}`;
      await auth.login({ loginProvider: 'jwt', extraLoginOptions: { id_token: await issuer.sign({ sub }) } });
      const again = await Auth.create(params, { storage });
      assert.equal(again.state.coreKitKey, auth.state.coreKitKey);
      await again.logout();
    } finally {
      await server.close();
      await issuer.close();
      await database.drop();
      dir.cleanup();
    }
  });
});
