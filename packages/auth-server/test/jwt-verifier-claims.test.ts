// The custom JWT verifier's configuration and claim checks, with a real SQLite store and real
// keys: what a verifier needs to start, the exact-claim checks, expiry and issued-at, the leeway an
// app may ask for, and the verifier-id field.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { tempDir } from '@portico/testkit';
import { CompactSign, exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from 'jose';
import { SqliteStore } from '../src/store.ts';
import { JwtVerifier, type JwtVerifierConfig } from '../src/verifiers/jwt.ts';
import { VerifierError } from '../src/verifiers/types.ts';

const dir = tempDir('portico-auth-jwt-claims-');
let store: SqliteStore;
let keys: Awaited<ReturnType<typeof generateKeyPair>>;
let jwk: JWK;
before(async () => {
  store = new SqliteStore(join(dir.path, 'store'));
  keys = await generateKeyPair('ES256', { extractable: true });
  jwk = { ...(await exportJWK(keys.publicKey)), kid: 'k1', alg: 'ES256' };
});
after(() => dir.cleanup());

let runs = 0;
const now = () => Math.floor(Date.now() / 1000);
function sign(claims: JWTPayload = {}, header: Record<string, unknown> = { alg: 'ES256', kid: 'k1' }) {
  return new SignJWT({ sub: `user-${++runs}`, iat: now(), exp: now() + 600, ...claims })
    .setProtectedHeader(header as { alg: string })
    .sign(keys.privateKey);
}
const verifier = (config: Omit<JwtVerifierConfig, 'type'> = {}) =>
  new JwtVerifier(`v${++runs}`, { type: 'jwt', keys: [jwk], ...config }, store);

async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof VerifierError, `expected a VerifierError, got ${String(error)}`);
    return error.message;
  }
  assert.fail('expected the token to be refused');
}

describe('configuration', () => {
  test('a verifier needs jwksUrl or at least one key', () => {
    assert.throws(
      () => new JwtVerifier('none', { type: 'jwt' }, store),
      /^Error: verifier none: give jwksUrl or keys$/,
    );
    assert.throws(
      () => new JwtVerifier('empty', { type: 'jwt', keys: [] }, store),
      /^Error: verifier empty: give jwksUrl or keys$/,
    );
  });

  test('at most three claim checks', () => {
    verifier({ claims: { iss: 'a', aud: 'b', azp: 'c' } });
    assert.throws(
      () =>
        new JwtVerifier(
          'many',
          { type: 'jwt', keys: [jwk], claims: { a: '1', b: '2', c: '3', d: '4' } },
          store,
        ),
      /^Error: verifier many: at most three claim checks$/,
    );
  });

  test('a leeway above maxLeeway is refused at start', () => {
    assert.throws(
      () => new JwtVerifier('skew', { type: 'jwt', keys: [jwk], leeway: 120, maxLeeway: 60 }, store),
      /verifier skew: leeway is above maxLeeway/,
    );
  });
});

describe('claim checks', () => {
  test('exact values match; an audience list holding the value matches; anything else fails naming the claim', async () => {
    const v = verifier({ claims: { iss: 'https://idp.example', aud: 'my-app' } });
    await v.verify(await sign({ iss: 'https://idp.example', aud: 'my-app' }));
    await v.verify(await sign({ iss: 'https://idp.example', aud: ['other', 'my-app'] }));
    assert.equal(
      await refusal(v.verify(await sign({ iss: 'https://idp.example', aud: 'other' }))),
      'Claim check failed: aud',
    );
    assert.equal(
      await refusal(v.verify(await sign({ iss: 'https://evil.example', aud: 'my-app' }))),
      'Claim check failed: iss',
    );
    assert.equal(await refusal(v.verify(await sign({ aud: 'my-app' }))), 'Claim check failed: iss');
  });
});

describe('time', () => {
  test('an expired token is refused as expired', async () => {
    assert.equal(
      await refusal(verifier().verify(await sign({ iat: now() - 30, exp: now() - 10 }))),
      'Token expired',
    );
  });

  test('an iat in the future is refused naming iat', async () => {
    assert.match(
      await refusal(verifier().verify(await sign({ iat: now() + 600 }))),
      /^Token iat is invalid: .*iat/,
    );
  });

  test('by default a token signed more than 60 s ago is stale', async () => {
    const v = verifier();
    await v.verify(await sign({ iat: now() - 30 }));
    assert.equal(
      await refusal(v.verify(await sign({ iat: now() - 120 }))),
      'Token is stale: signed more than 60 s ago',
    );
  });

  test('the leeway an app asks for (within maxLeeway) lets an expired-by-a-little token through', async () => {
    const v = verifier({ maxLeeway: 120 });
    const late = () => sign({ iat: now() - 30, exp: now() - 20 });
    assert.equal(await refusal(v.verify(await late())), 'Token expired');
    await v.verify(await late(), { leeway: 60 });
    assert.match(
      await refusal(v.verify(await late(), { leeway: 300 })),
      /leeway 300 is above the 120 seconds/,
    );
  });
});

describe('replay record', () => {
  test('a token without exp, signed a little in the future (within the leeway), is remembered as long as it is accepted', async () => {
    const kept: number[] = [];
    const recording = Object.create(store) as SqliteStore;
    recording.markTokenUsed = (hash, until) => {
      kept.push(until);
      return store.markTokenUsed(hash, until);
    };
    const leeway = 300;
    const maxAge = 60;
    const v = new JwtVerifier(
      'future-iat',
      { type: 'jwt', keys: [jwk], leeway, maxLeeway: leeway, maxTokenAgeSeconds: maxAge },
      recording,
    );
    const iat = now() + leeway - 30;
    const token = await new SignJWT({ sub: 'no-exp-future' })
      .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
      .setIssuedAt(iat)
      .sign(keys.privateKey);
    await v.verify(token);
    // Accepted until iat + maxAge + leeway (the age check allows the leeway too).
    assert.ok(kept[0] >= (iat + maxAge + leeway) * 1000, `kept until ${kept[0]}`);
  });
});

describe('header', () => {
  test('a correctly signed token whose payload is not a JSON object is an invalid token', async () => {
    const token = await new CompactSign(new TextEncoder().encode('not a claims set'))
      .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
      .sign(keys.privateKey);
    assert.match(await refusal(verifier().verify(token)), /^Invalid token: .+/);
  });

  test('a token whose header names no algorithm is refused', async () => {
    const token = await sign();
    const [, payload, signature] = token.split('.');
    const header = Buffer.from(JSON.stringify({ kid: 'k1' })).toString('base64url');
    assert.equal(
      await refusal(verifier().verify(`${header}.${payload}.${signature}`)),
      'Token algorithm not allowed: undefined',
    );
  });
});

describe('verifier id', () => {
  test('the verifier id comes from the configured claim, lowercased when the verifier says so', async () => {
    const v = verifier({ verifierIdField: 'email', isVerifierIdCaseSensitive: false });
    const identity = await v.verify(await sign({ email: 'Person@Example.com' }));
    assert.equal(identity.verifierId, 'person@example.com');
    assert.equal(identity.email, 'Person@Example.com');
    assert.equal(identity.claim, undefined);
  });

  test('an app may name another allowed claim; its keys are kept apart by that claim', async () => {
    const v = verifier({ verifierIdFields: ['email'] });
    const identity = await v.verify(await sign({ email: 'a@example.com' }), { verifierIdField: 'email' });
    assert.equal(identity.verifierId, 'a@example.com');
    assert.equal(identity.claim, 'email');
  });
});
