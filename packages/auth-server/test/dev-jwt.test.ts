import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Auth, MemoryStorage } from '@portico/auth';
import { ed25519PublicKey } from '@portico/auth/protocol';
import {
  type AuthServer,
  type LoginEvent,
  loadDevJwtKey,
  signDevToken,
  startAuthServer,
} from '@portico/auth-server';
import { tempDir } from '@portico/testkit';
import { getAddressDecoder } from '@solana/kit';
import { hexToBytes } from 'viem';
import { privateKeyToAddress } from 'viem/accounts';
import { CLIENT_ID, park, post } from './helpers.ts';

describe('development JWT issuer (devJwt) and onLogin', () => {
  const dir = tempDir('portico-auth-devjwt-');
  const events: LoginEvent[] = [];
  const logs: string[] = [];
  let server: AuthServer;
  let plain: AuthServer;
  let failHook = false;

  before(async () => {
    const key = await loadDevJwtKey(join(dir.path, 'dev-jwt-key.json'));
    server = await startAuthServer({
      dataDir: join(dir.path, 'dev'),
      masterKey: 'a'.repeat(64),
      devJwt: { key },
      onLog: (line) => logs.push(line),
      onLogin: (event) => {
        if (failHook) throw new Error('hook broke');
        events.push(event);
      },
    });
    plain = await startAuthServer({ dataDir: join(dir.path, 'plain'), masterKey: 'a'.repeat(64) });
  });
  after(async () => {
    await server?.close();
    await plain?.close();
    dir.cleanup();
  });

  const token = async (body: Record<string, unknown>) => {
    const res = await post(server.sdkUrl, '/dev/token', body);
    assert.equal(res.status, 200, res.error.message);
    return res.body.id_token;
  };

  const login = async (idToken: string, extra: Record<string, unknown> = {}) => {
    const auth = await Auth.create(
      { clientId: CLIENT_ID, network: 'sapphire_devnet', sdkUrl: server.sdkUrl },
      { storage: new MemoryStorage() },
    );
    await auth.login({
      loginProvider: 'jwt',
      extraLoginOptions: { id_token: idToken, verifierIdField: 'sub', ...extra },
    });
    return auth;
  };

  it('a token from POST /dev/token logs in with loginProvider "jwt", once; the same user id gets the same key', async () => {
    const first = await login(await token({ sub: 'alice' }));
    assert.equal(first.getUserInfo().verifier, 'jwt');
    assert.equal(first.getUserInfo().verifierId, 'alice');
    const again = await login(await token({ sub: 'alice' }));
    assert.equal(again.getPrivKey(), first.getPrivKey());
    const bob = await login(await token({ sub: 'bob', email: 'bob@example.com', name: 'Bob' }));
    assert.notEqual(bob.getPrivKey(), first.getPrivKey());
    assert.equal(bob.getUserInfo().email, 'bob@example.com');
    assert.equal(bob.getUserInfo().name, 'Bob');

    const replayed = await token({ sub: 'carol' });
    await login(replayed);
    await assert.rejects(login(replayed), /Duplicate token found/);
  });

  it('answers what POST /dev/token cannot use with a 400 and the reason', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{}, /sub \(the user id\) is required/],
      [{ sub: 42 }, /sub must be a non-empty string/],
      [{ sub: '  ' }, /sub must be a non-empty string/],
      [{ sub: 'x'.repeat(257) }, /at most 256 characters/],
      [{ sub: 'a\nb' }, /without control characters/],
      [{ sub: 'dave', email: 'not-an-email' }, /email is not an email address/],
      [{ sub: 'dave', email: 7 }, /email must be a non-empty string of at most 254 characters/],
      [{ sub: 'dave', name: ['Dave'] }, /name must be a non-empty string of at most 256 characters/],
    ];
    for (const [body, reason] of cases) {
      const res = await post(server.sdkUrl, '/dev/token', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.match(res.error.message, reason);
    }
    const notJson = await fetch(`${server.sdkUrl}/dev/token`, { method: 'POST', body: '[1]' });
    assert.equal(notJson.status, 400);
    assert.equal(
      ((await notJson.json()) as { error: { message: string } }).error.message,
      'Body must be a JSON object',
    );
  });

  it('refuses a body over 64 KiB with 413 and keeps serving', async () => {
    const oversized = await post(server.sdkUrl, '/dev/token', { sub: 'erin', pad: 'x'.repeat(70_000) });
    assert.equal(oversized.status, 413);
    assert.equal(oversized.error.message, 'Request body too large');
    assert.equal((await post(server.sdkUrl, '/dev/token', { sub: 'erin' })).status, 200);
  });

  it('the dev verifier trusts only its key: a token signed with another key is refused', async () => {
    const other = await loadDevJwtKey(join(dir.path, 'another-key.json'));
    const forged = await signDevToken(
      { ...other, kid: (await loadDevJwtKey(join(dir.path, 'dev-jwt-key.json'))).kid },
      { sub: 'alice' },
    );
    await assert.rejects(login(forged), /Invalid token signature/);
  });

  it('exists only with devJwt: a service without it has no /dev/token and no "jwt" verifier', async () => {
    const res = await fetch(`${plain.sdkUrl}/dev/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ sub: 'alice' }),
    });
    assert.equal(res.status, 405);
    const key = await loadDevJwtKey(join(dir.path, 'dev-jwt-key.json'));
    const auth = await Auth.create(
      { clientId: CLIENT_ID, network: 'sapphire_devnet', sdkUrl: plain.sdkUrl },
      { storage: new MemoryStorage() },
    );
    await assert.rejects(
      auth.login({
        loginProvider: 'jwt',
        extraLoginOptions: { id_token: await signDevToken(key, { sub: 'alice' }) },
      }),
      /"jwt" is not a JWT verifier/,
    );
    assert.ok(
      logs.some((l) => l.includes('development JWT issuer enabled') && l.includes('not for production')),
    );
  });

  it('keeps the development login page next to it, and answers CORS requests from apps', async () => {
    const loginId = await park(server.sdkUrl, {});
    const view = await post(server.sdkUrl, '/api/login/request', { loginId });
    assert.deepEqual(
      (view.body as unknown as { providers: { typeOfLogin: string }[] }).providers.map((p) => p.typeOfLogin),
      ['dev'],
    );
    const preflight = await fetch(`${server.sdkUrl}/dev/token`, { method: 'OPTIONS' });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-origin'), '*');
  });

  it('keeps the key in a file only its owner reads, and reads the same key back', async () => {
    const file = join(dir.path, 'dev-jwt-key.json');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.deepEqual(await loadDevJwtKey(file), await loadDevJwtKey(file));
    await assert.rejects(loadDevJwtKey(join(dir.path, 'missing.json'), { create: false }), /missing\.json/);
  });

  it('onLogin hears each login with the addresses of the app and core keys, never a key or token; a failing hook leaves the login standing', async () => {
    events.length = 0;
    const idToken = await token({ sub: 'erin' });
    const auth = await login(idToken);
    assert.equal(events.length, 1);
    const [event] = events;
    assert.equal(event.clientId, CLIENT_ID);
    assert.equal(event.network, 'sapphire_devnet');
    assert.equal(event.verifier, 'jwt');
    assert.equal(event.verifierId, 'erin');
    const solanaOf = (ed: string) => getAddressDecoder().decode(hexToBytes(`0x${ed25519PublicKey(ed)}`));
    const state = auth.state;
    assert.deepEqual(event.accounts, [
      {
        key: 'app',
        eip155: privateKeyToAddress(`0x${state.privKey}`),
        solana: solanaOf(state.ed25519PrivKey ?? ''),
      },
      {
        key: 'core',
        eip155: privateKeyToAddress(`0x${state.coreKitKey}`),
        solana: solanaOf(state.coreKitEd25519PrivKey ?? ''),
      },
    ]);
    const text = JSON.stringify(event);
    for (const secret of [state.privKey, state.coreKitKey, state.sessionId, idToken]) {
      assert.equal(text.includes(String(secret)), false);
    }

    // An MFA user: the service no longer holds the key; the accounts come from the recorded public keys.
    const storage = new MemoryStorage();
    const mfa = await Auth.create(
      { clientId: CLIENT_ID, network: 'sapphire_devnet', sdkUrl: server.sdkUrl },
      { storage },
    );
    events.length = 0;
    await mfa.login(
      {
        loginProvider: 'jwt',
        mfaLevel: 'mandatory',
        extraLoginOptions: { id_token: await token({ sub: 'erin' }) },
      },
      { setup: { factors: ['deviceShareFactor', 'backUpShareFactor'] } },
    );
    const sameDevice = await Auth.create(
      { clientId: CLIENT_ID, network: 'sapphire_devnet', sdkUrl: server.sdkUrl },
      { storage },
    );
    await sameDevice.login({
      loginProvider: 'jwt',
      extraLoginOptions: { id_token: await token({ sub: 'erin' }) },
    });
    assert.equal(sameDevice.getPrivKey(), auth.getPrivKey());
    assert.equal(events.length, 2);
    assert.deepEqual(events[1].accounts, event.accounts);

    failHook = true;
    try {
      const later = await login(await token({ sub: 'frank' }));
      assert.equal(later.getUserInfo().verifierId, 'frank');
      assert.ok(logs.some((l) => l === 'auth: onLogin failed: hook broke'));
    } finally {
      failHook = false;
    }
  });
});
