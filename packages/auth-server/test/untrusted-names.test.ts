import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Auth, MemoryStorage, normalizeInitParams, validateLoginParams } from '@portico/auth';
import { type AuthServer, startAuthServer } from '@portico/auth-server';
import { tempDir } from '@portico/testkit';
import { CLIENT_ID, type JwksIssuer, park, post, startJwksIssuer } from './helpers.ts';

// Names that are members of Object.prototype, used as verifier names, login providers, loginConfig
// keys and JSON keys: each must be looked up as what it is, never as an inherited member.
const PROTOTYPE_NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'];

describe('names that are members of Object.prototype', { timeout: 60_000 }, () => {
  const dir = tempDir('portico-auth-names-');
  let issuer: JwksIssuer;
  let server: AuthServer;

  before(async () => {
    issuer = await startJwksIssuer();
    // Computed keys make `__proto__` an own property, as JSON.parse does.
    const verifiers = Object.fromEntries(
      ['constructor', '__proto__'].map((name) => [name, { type: 'jwt' as const, keys: [issuer.publicJwk] }]),
    );
    server = await startAuthServer({ dataDir: dir.path, masterKey: '3'.repeat(64), verifiers });
  });
  after(async () => {
    await server?.close();
    await issuer?.close();
    dir.cleanup();
  });

  it('a verifier named constructor or __proto__ is a verifier like any other, with keys of its own', async () => {
    const keys: string[] = [];
    for (const verifier of ['constructor', '__proto__']) {
      const loginConfig = JSON.parse(
        `{"${verifier}": {"verifier": "${verifier}", "typeOfLogin": "jwt", "clientId": "x"}}`,
      );
      const auth = await Auth.create(
        { clientId: CLIENT_ID, network: 'sapphire_mainnet', sdkUrl: server.sdkUrl, loginConfig },
        { storage: new MemoryStorage() },
      );
      await auth.login({
        loginProvider: verifier,
        extraLoginOptions: { id_token: await issuer.sign({ sub: 'same-user' }) },
      });
      assert.equal(auth.getUserInfo().verifier, verifier);
      keys.push(auth.state.coreKitKey ?? '');
    }
    assert.match(keys[0], /^[0-9a-f]{64}$/);
    assert.notEqual(keys[0], keys[1], 'two verifiers, two keys for one verifierId');
  });

  it('a provider named after a prototype member is "not configured", not a dev login or a crash', async () => {
    for (const provider of ['toString', 'hasOwnProperty', 'valueOf']) {
      const loginId = await park(server.sdkUrl, {});
      const res = await post(server.sdkUrl, '/api/login/authorize', { loginId, provider });
      assert.equal(res.status, 400, provider);
      assert.equal(res.error.message, `Verifier "${provider}" is not configured on this auth service`);
    }
  });

  it('a parked loginConfig entry named __proto__ stays an entry (it does not become the prototype)', async () => {
    const loginConfig = JSON.parse(
      '{"__proto__": {"verifier": "__proto__", "typeOfLogin": "jwt", "clientId": "x"}}',
    );
    const loginId = await park(server.sdkUrl, { loginConfig });
    const res = await post(server.sdkUrl, '/api/login/request', { loginId });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.providers, [{ id: '__proto__', name: '__proto__', typeOfLogin: 'jwt' }]);
  });

  it('revoking a device named after a prototype member finds no device', async () => {
    const auth = await Auth.create(
      {
        clientId: CLIENT_ID,
        network: 'sapphire_mainnet',
        sdkUrl: server.sdkUrl,
        loginConfig: JSON.parse('{"c": {"verifier": "constructor", "typeOfLogin": "jwt", "clientId": "x"}}'),
      },
      { storage: new MemoryStorage() },
    );
    await auth.login(
      {
        loginProvider: 'c',
        mfaLevel: 'mandatory',
        extraLoginOptions: { id_token: await issuer.sign({ sub: 'mfa-user' }) },
      },
      { setup: { factors: ['deviceShareFactor', 'backUpShareFactor'] } },
    );
    for (const deviceId of PROTOTYPE_NAMES) {
      await assert.rejects(auth.revokeDevice(deviceId), /No such device, or already revoked/);
    }
  });
});

describe('the library keeps caller-named keys as own entries', () => {
  const base = { clientId: CLIENT_ID, network: 'sapphire_devnet' };

  it('loginConfig, theme and additionalParams keep a key named __proto__ and nothing else changes', () => {
    const input = JSON.parse(
      '{"loginConfig": {"__proto__": {"verifier": "v", "typeOfLogin": "jwt", "clientId": "c"}}, "whiteLabel": {"theme": {"__proto__": "#123456"}}}',
    );
    const { params } = normalizeInitParams({ ...base, ...input });
    assert.deepEqual(Object.keys(params.loginConfig ?? {}), ['__proto__']);
    assert.equal(Object.getPrototypeOf(params.loginConfig), Object.prototype);
    assert.deepEqual(Object.keys(params.whiteLabel?.theme ?? {}), ['__proto__']);
    const login = validateLoginParams(
      {
        loginProvider: '__proto__',
        extraLoginOptions: JSON.parse('{"additionalParams": {"__proto__": "x"}}'),
      },
      params,
    );
    assert.equal(login.loginProvider, '__proto__');
    assert.deepEqual(Object.keys(login.extraLoginOptions?.additionalParams ?? {}), ['__proto__']);
  });

  it('refuses a loginProvider named after a prototype member unless loginConfig has it', () => {
    const { params } = normalizeInitParams(base);
    for (const provider of PROTOTYPE_NAMES) {
      assert.throws(() => validateLoginParams({ loginProvider: provider }, params), /Invalid loginProvider/);
    }
  });
});
