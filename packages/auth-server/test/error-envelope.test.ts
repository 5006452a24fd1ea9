// The auth service's one error model (docs/http-errors.md): every JSON error answer is
// `{ error: { code, message, ...details } }` with a stable code, every route body is checked by its
// schema (400 INVALID_BODY naming the field), and the service keeps serving after a bad body.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it, test } from 'node:test';
import { randomPrivKey, signStoreMessage, storeKeyOf } from '@portico/auth/protocol';
import { type AuthServer, loadDevJwtKey, startAuthServer, VerifierError } from '@portico/auth-server';
import { tempDir } from '@portico/testkit';
import { TooManyAttemptsError } from '../src/attempts.ts';
import { BaseError } from '../src/base-error.ts';
import { InvalidBodyError } from '../src/body.ts';
import { ERROR_CODES } from '../src/error-codes.ts';
import { HttpError, sendErrorAnswer } from '../src/http.ts';
import { RateLimitedError } from '../src/rate-limit.ts';
import { SessionError } from '../src/sessions.ts';
import { RotateRefused } from '../src/store/sql.ts';
import { loginWithJwt, park, post } from './helpers.ts';

const ADMIN = 'admin-token-for-the-envelope-tests-0123';

describe('error answers: one envelope, bodies checked by their schema', () => {
  const dir = tempDir('portico-auth-envelope-');
  let server: AuthServer;
  let sessionId: string;

  before(async () => {
    server = await startAuthServer({
      dataDir: dir.path,
      masterKey: 'a'.repeat(64),
      devJwt: { key: await loadDevJwtKey(join(dir.path, 'dev-jwt-key.json')) },
      devLogin: true,
      adminToken: ADMIN,
    });
    const token = await post(server.sdkUrl, '/dev/token', { sub: 'envelope-user' });
    const auth = await loginWithJwt(server.sdkUrl, token.body.id_token);
    sessionId = auth.state.sessionId!;
  });
  after(async () => {
    await server?.close();
    dir.cleanup();
  });

  /** A call signed by the session, as the library signs it (the payload as given). */
  const signed = (path: string, payload: unknown) =>
    post(server.sdkUrl, path, {
      key: storeKeyOf(sessionId),
      payload,
      signature: signStoreMessage(sessionId, `${path}:${JSON.stringify(payload ?? {})}`),
    });

  const assertInvalid = (
    res: Awaited<ReturnType<typeof post>>,
    field: string,
    message: RegExp,
    what: string,
  ) => {
    assert.equal(res.status, 400, what);
    assert.deepEqual(Object.keys(res.body), ['error'], what);
    assert.equal(res.error.code, 'INVALID_BODY', what);
    assert.equal(res.error.field, field, what);
    assert.match(res.error.message, message, what);
  };

  it('a field of the wrong type gets 400 INVALID_BODY naming it, on every kind of route', async () => {
    const base = server.sdkUrl;
    const loginId = await park(base, {}, { loginProvider: 'jwt' });
    const cases: Array<[string, unknown, string, RegExp]> = [
      ['/api/session/get', { key: 5 }, 'key', /^key must be an uncompressed public key \(hex\)$/],
      [
        '/api/session',
        { key: storeKeyOf(randomPrivKey()), data: 1, signature: 'x', timeout: 60 },
        'data',
        /^data must be a string$/,
      ],
      [
        '/api/session',
        { key: storeKeyOf(randomPrivKey()), data: 'd', signature: 'x', timeout: 6000 },
        'timeout',
        /^timeout must be a whole number from 1 to 600$/,
      ],
      [
        '/api/session/invalidate',
        { key: storeKeyOf(randomPrivKey()) },
        'signature',
        /^signature must be a string$/,
      ],
      ['/api/login/request', { loginId: 42 }, 'loginId', /^loginId must be 64 hex characters$/],
      ['/api/login/authorize', { loginId, provider: 5 }, 'provider', /^provider must be a string$/],
      ['/api/login/cancel', {}, 'loginId', /^loginId must be 64 hex characters$/],
      ['/api/dev-login', { state: 1, email: 'a@b.c' }, 'state', /^state must be a string$/],
      ['/api/mfa/setup', { loginId, factors: 'password' }, 'factors', /^factors must be a list$/],
      ['/api/mfa/setup', { loginId, factors: ['nope'] }, 'factors.0', /^factors\.0 must be one of /],
      [
        '/api/mfa/setup',
        { loginId, factors: ['passwordFactor'], password: 12345678 },
        'password',
        /^password must be a string$/,
      ],
      [
        '/api/mfa/passkey',
        { loginId, mode: 'both' },
        'mode',
        /^mode must be one of "register", "login", "confirm"$/,
      ],
      [
        '/api/login/passkey/options',
        { loginId, mode: 7 },
        'mode',
        /^mode must be one of "login", "register"$/,
      ],
      [
        '/api/login/passkey/verify',
        { loginId, challengeId: 'a'.repeat(48), response: 'credential' },
        'response',
        /^response must be an object$/,
      ],
      ['/api/passkey/link', { key: 'k', signature: 's', payload: {} }, 'key', /^key must be an uncompressed/],
    ];
    for (const [path, body, field, message] of cases) {
      assertInvalid(await post(base, path, body), field, message, `${path} ${JSON.stringify(body)}`);
    }
  });

  it('a signed call names the payload field at fault (payload.<field>)', async () => {
    const cases: Array<[string, unknown, string, RegExp]> = [
      ['/api/session/end', { id: 7 }, 'payload.id', /^payload\.id must be a string$/],
      ['/api/session/refresh', { newKey: 'x', data: 'd' }, 'payload.newKey', /^payload\.newKey must be an/],
      [
        '/api/session/refresh',
        { newKey: storeKeyOf(randomPrivKey()), data: '' },
        'payload.data',
        /non-empty/,
      ],
      ['/api/session/list', 'all', 'payload', /^payload must be an object$/],
      ['/api/mfa/factor', { password: 12345678 }, 'payload.password', /^payload\.password must be a string$/],
      ['/api/mfa/social', { verifier: 'jwt' }, 'payload.id_token', /^payload\.id_token must be a string$/],
      ['/api/mfa/revoke', { deviceId: 1 }, 'payload.deviceId', /^payload\.deviceId must be a string$/],
      ['/api/passkey/link', { loginId: 'short' }, 'payload.loginId', /^payload\.loginId must be 64 hex/],
    ];
    for (const [path, payload, field, message] of cases) {
      assertInvalid(await signed(path, payload), field, message, `${path} ${JSON.stringify(payload)}`);
    }
  });

  it('the admin API and /dev/token answer a bad body the same way', async () => {
    const res = await fetch(`${server.sdkUrl}/admin/sessions/revoke`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ user: 5 }),
    });
    assert.equal(res.status, 400);
    const body = (await res.json()) as { error: { code: string; field: string; message: string } };
    assert.deepEqual(body, {
      error: { code: 'INVALID_BODY', field: 'user', message: 'user must be a non-empty string' },
    });
    assertInvalid(
      await post(server.sdkUrl, '/dev/token', { sub: 42 }),
      'sub',
      /^sub must be a non-empty/,
      'dev',
    );
  });

  it('keeps serving after bad bodies: the session still reads and renews', async () => {
    const read = await post(server.sdkUrl, '/api/session/get', { key: storeKeyOf(sessionId) });
    assert.equal(read.status, 200);
    const list = await signed('/api/session/list', {});
    assert.equal(list.status, 200, list.error.message);
    assert.equal((await fetch(`${server.sdkUrl}/health`)).status, 200);
  });

  it('each family of error answers with its code in the envelope', async () => {
    const base = server.sdkUrl;
    const expect = async (res: Response | Promise<Response>, status: number, code: string) => {
      const answer = await res;
      assert.equal(answer.status, status, code);
      assert.equal(answer.headers.get('content-type'), 'application/json', code);
      const body = (await answer.json()) as { error: { code: string; message: string } };
      assert.equal(body.error.code, code);
      assert.equal(typeof body.error.message, 'string');
      return body.error;
    };
    const postRaw = (path: string, body: string) => fetch(`${base}${path}`, { method: 'POST', body });
    await expect(postRaw('/api/session/get', 'not json'), 400, 'INVALID_BODY');
    await expect(postRaw('/api/session/get', '[1]'), 400, 'INVALID_BODY');
    await expect(postRaw('/api/session/get', `"${'x'.repeat(70_000)}"`), 413, 'BODY_TOO_LARGE');
    await expect(postRaw('/api/nothing-here', '{}'), 404, 'NOT_FOUND');
    await expect(fetch(`${base}/api/session/get`, { method: 'PUT', body: '{}' }), 405, 'METHOD_NOT_ALLOWED');
    // SessionError: a session key nobody stored.
    await expect(
      postRaw('/api/session/get', JSON.stringify({ key: storeKeyOf(randomPrivKey()) })),
      404,
      'SESSION_NOT_FOUND',
    );
    const stranger = randomPrivKey();
    const payload = {};
    await expect(
      postRaw(
        '/api/session/list',
        JSON.stringify({
          key: storeKeyOf(stranger),
          payload,
          signature: signStoreMessage(stranger, `/api/session/list:${JSON.stringify(payload)}`),
        }),
      ),
      404,
      'SESSION_NOT_FOUND',
    );
    await expect(
      postRaw('/api/session/list', JSON.stringify({ key: storeKeyOf(stranger), payload, signature: 'bad' })),
      401,
      'BAD_SIGNATURE',
    );
    // VerifierError: a JWT login with a token the verifier refuses.
    const loginId = await park(base, {}, { loginProvider: 'jwt', extraLoginOptions: { id_token: 'a.b.c' } });
    await expect(postRaw('/api/login/jwt', JSON.stringify({ loginId })), 401, 'LOGIN_FAILED');
    // A login request that is not there.
    await expect(
      postRaw('/api/login/request', JSON.stringify({ loginId: randomPrivKey() })),
      404,
      'LOGIN_NOT_FOUND',
    );
    // The admin API without its token.
    await expect(fetch(`${base}/admin/audit`), 401, 'ADMIN_TOKEN_REQUIRED');
    await expect(
      fetch(`${base}/admin/audit?limit=0`, { headers: { authorization: `Bearer ${ADMIN}` } }),
      400,
      'INVALID_QUERY',
    );
    // A second-factor call of a session without MFA.
    await expect(
      postRaw(
        '/api/mfa/factor',
        JSON.stringify({
          key: storeKeyOf(sessionId),
          payload: { password: 'x' },
          signature: signStoreMessage(sessionId, `/api/mfa/factor:${JSON.stringify({ password: 'x' })}`),
        }),
      ),
      403,
      'MFA_SESSION_REQUIRED',
    );
  });
});

describe('rate limits answer the envelope too', () => {
  const dir = tempDir('portico-auth-envelope-rate-');
  let server: AuthServer;
  before(async () => {
    server = await startAuthServer({
      dataDir: dir.path,
      masterKey: 'a'.repeat(64),
      rateLimits: { tokensPerMinute: 1 },
    });
  });
  after(async () => {
    await server?.close();
    dir.cleanup();
  });

  it('429 RATE_LIMITED with retryAfter in the envelope and Retry-After', async () => {
    await post(server.sdkUrl, '/api/login/request', { loginId: randomPrivKey() });
    const refused = await fetch(`${server.sdkUrl}/api/login/request`, { method: 'POST', body: '{}' });
    assert.equal(refused.status, 429);
    const { error } = (await refused.json()) as { error: { code: string; retryAfter: number } };
    assert.equal(error.code, 'RATE_LIMITED');
    assert.equal(refused.headers.get('retry-after'), String(error.retryAfter));
  });
});

test('every error class has BaseError as its base, with name, code, status and cause', () => {
  const cause = new Error('behind');
  const errors: Array<[BaseError, string, string, number | undefined]> = [
    [new HttpError(404, 'NOT_FOUND', 'Not found', { cause }), 'HttpError', 'NOT_FOUND', 404],
    [new InvalidBodyError('key', 'key must be a string'), 'InvalidBodyError', 'INVALID_BODY', 400],
    [new SessionError(409, 'SESSION_ROTATED', 'renewed'), 'SessionError', 'SESSION_ROTATED', 409],
    [new RateLimitedError(3), 'RateLimitedError', 'RATE_LIMITED', 429],
    [new TooManyAttemptsError(0, 5), 'TooManyAttemptsError', 'TOO_MANY_ATTEMPTS', 429],
    [new VerifierError('no', 'USER_CANCELLED', cause), 'VerifierError', 'USER_CANCELLED', 401],
    [new RotateRefused(), 'RotateRefused', 'ROTATE_REFUSED', undefined],
  ];
  for (const [error, name, code, status] of errors) {
    assert.ok(error instanceof BaseError, name);
    assert.equal(error.name, name);
    assert.equal(error.code, code, name);
    assert.equal(error.status, status, name);
    if (status !== undefined) assert.ok(ERROR_CODES.includes(code as (typeof ERROR_CODES)[number]), name);
  }
  assert.equal(errors[0][0].cause, cause);
  assert.equal(errors[5][0].cause, cause);
  assert.deepEqual(new RateLimitedError(3).details, { retryAfter: 3 });
  assert.deepEqual(new InvalidBodyError('key', 'm').details, { field: 'key' });
});

test('an error without a status is 500 INTERNAL_ERROR, its text not shown', async () => {
  const server = createServer((_req, res) => sendErrorAnswer(res, new Error('db password in here')));
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()));
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    assert.equal(res.status, 500);
    assert.deepEqual(await res.json(), { error: { code: 'INTERNAL_ERROR', message: 'Internal error' } });
  } finally {
    server.close();
  }
});

test("docs/http-errors.md's auth service section lists exactly the codes the service answers", () => {
  const doc = readFileSync(new URL('../../../docs/http-errors.md', import.meta.url), 'utf8');
  const start = doc.indexOf('\n## The auth service');
  assert.ok(start >= 0, 'docs/http-errors.md has a section for the auth service');
  const end = doc.indexOf('\n## ', start + 1);
  const section = doc.slice(start, end === -1 ? undefined : end);
  const listed = [...section.matchAll(/^\| `([A-Z_]+)` \|/gm)].map((m) => m[1]);
  assert.deepEqual([...listed].sort(), [...ERROR_CODES].sort());
});
