// The custom JWT verifier on its own, with a real SQLite store and real keys (jose): every algorithm
// an identity provider may sign with, tokens without kid, not-yet-valid and malformed tokens, the
// replay record's retention and profile claims that are not strings (a JWKS endpoint that is down
// or does not answer: jwt-verifier-jwks.test.ts).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { tempDir } from '@portico/testkit';
import { exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from 'jose';
import { SqliteStore } from '../src/store.ts';
import { JwtVerifier, type JwtVerifierConfig } from '../src/verifiers/jwt.ts';
import { VerifierError } from '../src/verifiers/types.ts';

type Keys = Awaited<ReturnType<typeof generateKeyPair>>;

const dir = tempDir('portico-auth-jwt-verifier-');
let store: SqliteStore;
before(() => {
  store = new SqliteStore(join(dir.path, 'store'));
});
after(() => dir.cleanup());

let runs = 0;
async function keyPair(alg: string, kid = `${alg}-key`): Promise<{ keys: Keys; jwk: JWK }> {
  const keys = await generateKeyPair(alg, { extractable: true });
  return { keys, jwk: { ...(await exportJWK(keys.publicKey)), kid, alg } };
}

function sign(
  keys: Keys,
  header: { alg: string; kid?: string },
  claims: JWTPayload = {},
  { iat = Math.floor(Date.now() / 1000), exp = iat + 600 }: { iat?: number; exp?: number } = {},
) {
  return new SignJWT({ sub: `user-${++runs}`, ...claims })
    .setProtectedHeader(header)
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .sign(keys.privateKey);
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof VerifierError, `expected a VerifierError, got ${String(error)}`);
    return error.message;
  }
  assert.fail('expected the token to be refused');
}

const verifier = (config: Omit<JwtVerifierConfig, 'type'>, name = `v${++runs}`) =>
  new JwtVerifier(name, { type: 'jwt', ...config }, store);

describe('algorithms identity providers sign with', () => {
  for (const alg of [
    'RS256',
    'RS384',
    'RS512',
    'PS256',
    'PS384',
    'PS512',
    'ES256',
    'ES384',
    'ES512',
    'EdDSA',
  ]) {
    test(`a ${alg} token is accepted`, async () => {
      const { keys, jwk } = await keyPair(alg);
      const token = await sign(keys, { alg, kid: jwk.kid }, { sub: `alg-${alg}` });
      const identity = await verifier({ keys: [jwk] }).verify(token);
      assert.equal(identity.verifierId, `alg-${alg}`);
      assert.equal(identity.oAuthIdToken, token);
    });
  }

  test('HS256 (a shared secret) and none are refused', async () => {
    const { jwk } = await keyPair('ES256');
    const v = verifier({ keys: [jwk] });
    const hs = await new SignJWT({ sub: 'x' })
      .setProtectedHeader({ alg: 'HS256', kid: jwk.kid })
      .setIssuedAt()
      .sign(new Uint8Array(32));
    assert.match(await refusal(v.verify(hs)), /^Token algorithm not allowed: HS256$/);
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', kid: jwk.kid })).toString('base64url')}.${Buffer.from('{"sub":"x"}').toString('base64url')}.`;
    assert.match(await refusal(v.verify(none)), /^Token algorithm not allowed: none$/);
  });
});

describe('tokens the verifier cannot place', () => {
  test('a token without kid is refused, with one key in the set and with several', async () => {
    const one = await keyPair('RS256', 'only');
    const other = await keyPair('RS256', 'other');
    const token = await sign(one.keys, { alg: 'RS256' });
    assert.equal(await refusal(verifier({ keys: [one.jwk] }).verify(token)), 'Token has no kid');
    assert.equal(await refusal(verifier({ keys: [one.jwk, other.jwk] }).verify(token)), 'Token has no kid');
  });

  test('a kid the set does not hold is refused; a token signed by another key is refused', async () => {
    const { keys, jwk } = await keyPair('ES256', 'known');
    const stranger = await keyPair('ES256', 'known');
    const v = verifier({ keys: [jwk] });
    assert.equal(
      await refusal(v.verify(await sign(keys, { alg: 'ES256', kid: 'unknown' }))),
      'No key in the JWKS matches the token kid',
    );
    assert.equal(
      await refusal(v.verify(await sign(stranger.keys, { alg: 'ES256', kid: 'known' }))),
      'Invalid token signature',
    );
  });

  test('malformed tokens are refused as such, never with an exception of another kind', async () => {
    const { keys, jwk } = await keyPair('ES256');
    const v = verifier({ keys: [jwk] });
    for (const token of ['', 'abc', 'a.b.c', '..', `${'%'.repeat(10)}.x.y`]) {
      assert.equal(await refusal(v.verify(token)), 'Malformed token', JSON.stringify(token));
    }
    const good = await sign(keys, { alg: 'ES256', kid: jwk.kid });
    const [header, , signature] = good.split('.');
    const notJson = `${header}.${Buffer.from('not json').toString('base64url')}.${signature}`;
    assert.match(await refusal(v.verify(notJson)), /^Invalid token/);
    assert.equal(
      await refusal(v.verify(`${header}.${good.split('.')[1]}`)),
      'Malformed token',
      'no signature',
    );
  });
});

describe('time', () => {
  test('nbf in the future is refused beyond the leeway and accepted within it', async () => {
    const { keys, jwk } = await keyPair('ES256');
    const now = Math.floor(Date.now() / 1000);
    const strict = verifier({ keys: [jwk] });
    const early = await sign(keys, { alg: 'ES256', kid: jwk.kid }, { nbf: now + 600 });
    assert.match(await refusal(strict.verify(early)), /^Token claim invalid: .*nbf/);
    const lenient = verifier({ keys: [jwk], leeway: 60 });
    const slightlyEarly = await sign(keys, { alg: 'ES256', kid: jwk.kid }, { nbf: now + 30 });
    await lenient.verify(slightlyEarly);
    assert.match(await refusal(lenient.verify(early)), /^Token claim invalid: .*nbf/);
  });

  test('a token without iat is refused; a stale one names the age limit', async () => {
    const { keys, jwk } = await keyPair('ES256');
    const v = verifier({ keys: [jwk], maxTokenAgeSeconds: 60 });
    const noIat = await new SignJWT({ sub: 'x' })
      .setProtectedHeader({ alg: 'ES256', kid: jwk.kid })
      .setExpirationTime('10m')
      .sign(keys.privateKey);
    assert.match(await refusal(v.verify(noIat)), /^Token iat is invalid: .*iat/);
    const now = Math.floor(Date.now() / 1000);
    const stale = await sign(keys, { alg: 'ES256', kid: jwk.kid }, {}, { iat: now - 3600, exp: now + 600 });
    assert.equal(await refusal(v.verify(stale)), 'Token is stale: signed more than 60 s ago');
  });

  test('the replay record outlives every moment the token is accepted (expiry plus leeway)', async () => {
    const { keys, jwk } = await keyPair('ES256');
    const kept: number[] = [];
    const recording = Object.create(store) as SqliteStore;
    recording.markTokenUsed = (hash, until) => {
      kept.push(until);
      return store.markTokenUsed(hash, until);
    };
    const leeway = 300;
    const v = new JwtVerifier(
      'replay',
      { type: 'jwt', keys: [jwk], leeway, maxLeeway: leeway, maxTokenAgeSeconds: 60 },
      recording,
    );
    const now = Math.floor(Date.now() / 1000);
    const exp = now + 3600;
    const token = await sign(keys, { alg: 'ES256', kid: jwk.kid }, {}, { iat: now, exp });
    await v.verify(token);
    assert.equal(await refusal(v.verify(token)), 'Duplicate token found');
    assert.equal(kept.length, 2);
    assert.ok(
      kept[0] >= (exp + leeway) * 1000,
      `kept until ${kept[0]}, accepted until ${(exp + leeway) * 1000}`,
    );

    // Without exp the token is accepted until iat + max age + leeway.
    const noExp = await new SignJWT({ sub: 'no-exp' })
      .setProtectedHeader({ alg: 'ES256', kid: jwk.kid })
      .setIssuedAt(now)
      .sign(keys.privateKey);
    await v.verify(noExp);
    assert.ok(kept[2] >= (now + 60 + leeway) * 1000);
  });
});

describe('claims', () => {
  test('profile claims that are not strings are left out, strings are kept', async () => {
    const { keys, jwk } = await keyPair('ES256');
    const v = verifier({ keys: [jwk] });
    const odd = await sign(
      keys,
      { alg: 'ES256', kid: jwk.kid },
      { email: 42, name: { first: 'A' }, picture: ['x'] },
    );
    const identity = await v.verify(odd);
    assert.equal(identity.email, undefined);
    assert.equal(identity.name, undefined);
    assert.equal(identity.profileImage, undefined);
    const plain = await sign(
      keys,
      { alg: 'ES256', kid: jwk.kid },
      { email: 'a@example.com', name: 'A', picture: 'https://example.com/a.png' },
    );
    const kept = await v.verify(plain);
    assert.equal(kept.email, 'a@example.com');
    assert.equal(kept.name, 'A');
    assert.equal(kept.profileImage, 'https://example.com/a.png');
  });

  test('a verifier id that is not a string or number is refused', async () => {
    const { keys, jwk } = await keyPair('ES256');
    const v = verifier({ keys: [jwk] });
    const token = await sign(keys, { alg: 'ES256', kid: jwk.kid }, { sub: { id: 1 } as unknown as string });
    assert.equal(await refusal(v.verify(token)), 'Token has no verifier id in "sub"');
  });
});
