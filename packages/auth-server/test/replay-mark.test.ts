// A one-time token is accepted once however it is spelled: the replay mark names the token's
// claims, never its text. Re-spellings tried: ECDSA's (r, n − s) and the unused low bits of the
// signature's last base64url character, for ES256, RS256 and EdDSA tokens; through the verifier
// (fast-check over claims and re-spellings) and end to end through `portico dev`'s /dev/token.
// RSA's s + n and Ed25519's S + L are refused as signatures; ES256K is not an accepted algorithm.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { p256 } from '@noble/curves/nist.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { type AuthServer, loadDevJwtKey, startAuthServer } from '@portico/auth-server';
import { tempDir } from '@portico/testkit';
import fc from 'fast-check';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import { SqliteStore } from '../src/store.ts';
import { JwtVerifier } from '../src/verifiers/jwt.ts';
import { canonicalJson } from '../src/verifiers/replay-mark.ts';
import { loginWithJwt, post } from './helpers.ts';

const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** The same signature with the unused low bits of its last base64url character set to `bits`. */
function lowBits(token: string, bits: number): string {
  const [h, p, s] = token.split('.');
  const unused = (6 - ((Buffer.from(s, 'base64url').length * 8) % 6)) % 6;
  assert.ok(unused > 0, 'this signature length has no unused bits');
  const last = B64URL.indexOf(s[s.length - 1]);
  const mask = (1 << unused) - 1;
  const wanted = (last & ~mask) | (bits & mask);
  return `${h}.${p}.${s.slice(0, -1)}${B64URL[wanted === last ? last ^ 1 : wanted]}`;
}

/** The same ES256 signature with s replaced by n − s (equally valid). */
function highS(token: string): string {
  const [h, p, s] = token.split('.');
  const sig = Buffer.from(s, 'base64url');
  const n = p256.Point.CURVE().n;
  const sValue = BigInt(`0x${sig.subarray(32).toString('hex')}`);
  const flipped = Buffer.from((n - sValue).toString(16).padStart(64, '0'), 'hex');
  return `${h}.${p}.${Buffer.concat([sig.subarray(0, 32), flipped]).toString('base64url')}`;
}

type Alg = 'ES256' | 'RS256' | 'EdDSA';

describe('replay mark: one token, many spellings, one login', { timeout: 120_000 }, () => {
  const dir = tempDir('portico-auth-replay-');
  let store: SqliteStore;
  const keys = new Map<Alg, { privateKey: CryptoKey; jwk: JWK }>();
  const verifiers = new Map<Alg, JwtVerifier>();

  before(async () => {
    store = new SqliteStore(join(dir.path, 'store'));
    for (const alg of ['ES256', 'RS256', 'EdDSA'] as const) {
      const pair = await generateKeyPair(alg, { extractable: true });
      const jwk = { ...(await exportJWK(pair.publicKey)), kid: `k-${alg}`, alg };
      keys.set(alg, { privateKey: pair.privateKey as CryptoKey, jwk });
      verifiers.set(alg, new JwtVerifier(`v-${alg}`, { type: 'jwt', keys: [jwk] }, store));
    }
  });
  after(async () => {
    await store?.close();
    dir.cleanup();
  });

  const sign = async (alg: Alg, claims: Record<string, unknown>) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg, kid: `k-${alg}` })
      .setIssuedAt()
      .setExpirationTime('1m')
      .sign(keys.get(alg)!.privateKey);

  it('refuses an ES256 token re-spelled with n − s (high s) after the original was used', async () => {
    const token = await sign('ES256', { sub: 'high-s', iss: 'https://idp.test' });
    const respelled = highS(token);
    assert.notEqual(respelled, token);
    await verifiers.get('ES256')!.verify(token);
    await assert.rejects(verifiers.get('ES256')!.verify(respelled), /Duplicate token found/);
  });

  for (const alg of ['ES256', 'RS256', 'EdDSA'] as const) {
    it(`refuses a ${alg} token whose signature's last character has other unused low bits`, async () => {
      const token = await sign(alg, { sub: `low-bits-${alg}` });
      const respelled = lowBits(token, 1);
      assert.notEqual(respelled, token);
      await verifiers.get(alg)!.verify(respelled);
      await assert.rejects(verifiers.get(alg)!.verify(token), /Duplicate token found/);
    });
  }

  it('property: for any claims and any re-spelling, the second use is refused', async () => {
    const claims = fc.record(
      {
        sub: fc.string({ minLength: 1, maxLength: 40 }),
        email: fc.emailAddress(),
        jti: fc.string({ minLength: 1, maxLength: 32 }),
        extra: fc.dictionary(fc.string({ maxLength: 8 }), fc.oneof(fc.integer(), fc.string(), fc.boolean())),
      },
      { requiredKeys: ['sub'] },
    );
    const respelling = fc.oneof(
      fc.constant<['highS']>(['highS']),
      fc.tuple(fc.constant('lowBits' as const), fc.integer({ min: 1, max: 15 })),
    );
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<Alg>('ES256', 'RS256', 'EdDSA'),
        claims,
        respelling,
        async (alg, c, how) => {
          run++;
          // Each run its own token: a jti another run already used is (rightly) a replay.
          const jti = c.jti === undefined ? {} : { jti: `${run}:${c.jti}` };
          const token = await sign(alg, { ...c, ...jti, sub: `${run}:${c.sub}` });
          const respelled =
            how[0] === 'highS' && alg === 'ES256' ? highS(token) : lowBits(token, how[1] ?? 1);
          await verifiers.get(alg)!.verify(respelled);
          await assert.rejects(verifiers.get(alg)!.verify(token), /Duplicate token found/);
          await assert.rejects(verifiers.get(alg)!.verify(respelled), /Duplicate token found/);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('canonical claims: key order and whitespace of the JSON do not matter', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (value) => {
        const reordered = Object.fromEntries(Object.entries(value).reverse());
        const respaced = JSON.parse(JSON.stringify(reordered, null, 2)) as unknown;
        assert.equal(canonicalJson(respaced), canonicalJson(value));
      }),
    );
  });

  // The other re-encodings of one signature: RSA's s + n and Ed25519's S + L name the same
  // signature value modulo the group order; the verifier refuses both outright (never a login),
  // before the original is used and after. ES256K (secp256k1) is not an accepted algorithm.
  it('refuses RS256 s + n and EdDSA S + L re-encodings outright, and ES256K tokens', async () => {
    const rsaN = BigInt(`0x${Buffer.from(keys.get('RS256')!.jwk.n!, 'base64url').toString('hex')}`);
    const rsaPlusN = (token: string) => {
      const [h, p, sig] = token.split('.');
      const s = BigInt(`0x${Buffer.from(sig, 'base64url').toString('hex')}`);
      const hex = (s + rsaN).toString(16);
      return `${h}.${p}.${Buffer.from(hex.padStart(hex.length + (hex.length % 2), '0'), 'hex').toString('base64url')}`;
    };
    const ED_L = 2n ** 252n + 27742317777372353535851937790883648493n;
    const edPlusL = (token: string) => {
      const [h, p, sig] = token.split('.');
      const bytes = Buffer.from(sig, 'base64url');
      const S = BigInt(`0x${Buffer.from(bytes.subarray(32)).reverse().toString('hex')}`);
      const sPlusL = Buffer.from((S + ED_L).toString(16).padStart(64, '0'), 'hex').reverse();
      return `${h}.${p}.${Buffer.concat([bytes.subarray(0, 32), sPlusL]).toString('base64url')}`;
    };
    for (const [alg, respell] of [
      ['RS256', rsaPlusN],
      ['EdDSA', edPlusL],
    ] as const) {
      const token = await sign(alg, { sub: `plus-order-${alg}`, jti: `plus-order-${alg}` });
      const respelled = respell(token);
      assert.notEqual(respelled, token);
      await assert.rejects(verifiers.get(alg)!.verify(respelled), /Invalid token signature/);
      await verifiers.get(alg)!.verify(token);
      await assert.rejects(verifiers.get(alg)!.verify(respelled), /Invalid token signature|Duplicate/);
    }
    const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    const input = `${b64({ alg: 'ES256K', kid: 'k-ES256K' })}.${b64({ sub: 'k1', iat: Math.floor(Date.now() / 1000) })}`;
    const es256k = `${input}.${Buffer.from(secp256k1.sign(sha256(Buffer.from(input)), secp256k1.utils.randomSecretKey(), { prehash: false })).toString('base64url')}`;
    await assert.rejects(verifiers.get('ES256')!.verify(es256k), /Token algorithm not allowed: ES256K/);
  });

  it('a token re-signed with JSON whitespace in its header and claims is the same token', async () => {
    // Only the issuer can re-sign; the issue allows treating such a token as a different one. The
    // mark names the claims, so it is refused as a replay: the stricter of the two.
    const now = Math.floor(Date.now() / 1000);
    const claims = { sub: 'respaced', jti: 'respaced-1', iat: now, exp: now + 60 };
    const token = await sign('ES256', claims);
    const b64 = (text: string) => Buffer.from(text).toString('base64url');
    const input = `${b64(JSON.stringify({ alg: 'ES256', kid: 'k-ES256' }, null, 2))}.${b64(JSON.stringify(claims, null, 1))}`;
    const signature = await crypto.subtle.sign(
      { name: 'ECDSA', hash: 'SHA-256' },
      keys.get('ES256')!.privateKey,
      Buffer.from(input),
    );
    const respaced = `${input}.${Buffer.from(signature).toString('base64url')}`;
    assert.notEqual(respaced.split('.')[0], token.split('.')[0]);
    await verifiers.get('ES256')!.verify(token);
    await assert.rejects(verifiers.get('ES256')!.verify(respaced), /Duplicate token found/);
  });

  it('two different tokens with different jti are both accepted', async () => {
    await verifiers.get('ES256')!.verify(await sign('ES256', { sub: 'twice', jti: 'a' }));
    await verifiers.get('ES256')!.verify(await sign('ES256', { sub: 'twice', jti: 'b' }));
  });
});

describe("replay mark end to end: portico dev's /dev/token", { timeout: 120_000 }, () => {
  const dir = tempDir('portico-auth-replay-dev-');
  let server: AuthServer;
  before(async () => {
    const key = await loadDevJwtKey(join(dir.path, 'dev-jwt-key.json'));
    server = await startAuthServer({
      dataDir: join(dir.path, 'dev'),
      masterKey: 'a'.repeat(64),
      devJwt: { key },
    });
  });
  after(async () => {
    await server?.close();
    dir.cleanup();
  });

  const login = (idToken: string) => loginWithJwt(server.sdkUrl, idToken);

  it('a development token logs in once; its high-s and low-bit spellings are refused', async () => {
    const res = await post(server.sdkUrl, '/dev/token', { sub: 'mallory' });
    const token = res.body.id_token;
    await login(token);
    await assert.rejects(login(highS(token)), /Duplicate token found/);
    await assert.rejects(login(lowBits(token, 3)), /Duplicate token found/);
  });
});
