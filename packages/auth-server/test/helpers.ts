import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Auth, MemoryStorage } from '@portico/auth';
import { encryptJsonTo, randomPrivKey, signStoreMessage, storeKeyOf } from '@portico/auth/protocol';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';

/** The clientId most tests use (a real-looking base64url project id). */
export const CLIENT_ID =
  'BPi5PB_UiIZ-cPz1GtV5i1I2iOSOHuimiXBI0e-Oe_u6X3oVAbCiAZOTEBtTXw4tsluTITPqA8zMsfxIKMjiqNQ';

type PrivateKey = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];

/** A local JWT issuer: an ES256 key published as JWKS over HTTP on port 0. */
export interface JwksIssuer {
  jwksUrl: string;
  publicJwk: JWK;
  kid: string;
  sign(
    claims: Record<string, unknown>,
    opts?: { kid?: string; iatOffset?: number; expIn?: number; key?: PrivateKey; noIat?: boolean },
  ): Promise<string>;
  otherKey: PrivateKey;
  close(): Promise<void>;
}

export async function startJwksIssuer(): Promise<JwksIssuer> {
  const kid = 'test-key-1';
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const other = await generateKeyPair('ES256');
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' };
  const server: Server = createServer((req, res) => {
    if (req.url === '/.well-known/jwks.json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ keys: [publicJwk] }));
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()));
  const { port } = server.address() as AddressInfo;
  return {
    jwksUrl: `http://127.0.0.1:${port}/.well-known/jwks.json`,
    publicJwk,
    kid,
    otherKey: other.privateKey,
    async sign(claims, opts = {}) {
      const now = Math.floor(Date.now() / 1000) + (opts.iatOffset ?? 0);
      // Each token its own jti, as issuers do: without one, two tokens with the same claims signed
      // in the same second are the same token (the replay mark names the claims).
      const jwt = new SignJWT({ jti: randomBytes(12).toString('hex'), ...claims })
        .setProtectedHeader({ alg: 'ES256', kid: opts.kid ?? kid })
        .setExpirationTime(now + (opts.expIn ?? 3600));
      if (!opts.noIat) jwt.setIssuedAt(now);
      return jwt.sign(opts.key ?? privateKey);
    },
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}

/** An unsigned token (`alg: none`), which every verifier must refuse. */
export function unsignedToken(claims: Record<string, unknown>, kid: string): string {
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  return `${b64({ alg: 'none', kid })}.${b64(claims)}.`;
}

/** The `error` of an error answer: `{ error: { code, message, ...details } }`. */
export interface ErrorAnswer {
  code: string;
  message: string;
  field?: string;
  retryAfter?: number;
}

/** POSTs JSON to the service; the answer's status, JSON body and its `error` (empty strings when none). */
export async function post(
  base: string,
  path: string,
  body: unknown,
): Promise<{ status: number; body: Record<string, string>; error: ErrorAnswer }> {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, unknown>;
  return { status: res.status, body: json as Record<string, string>, error: errorOf(json) };
}

/** The `error` of an answer's JSON body (empty strings when it is not an error answer). */
export function errorOf(body: Record<string, unknown>): ErrorAnswer {
  return (body.error ?? { code: '', message: '' }) as ErrorAnswer;
}

/** Parks a login request the way the library does; returns the loginId. */
export async function park(
  base: string,
  options: Record<string, unknown>,
  params: Record<string, unknown> = {},
  /** The page origin the library reports in browsers. */
  origin?: string,
  /** More fields of the request (`state`, `popup`). */
  extra: Record<string, unknown> = {},
) {
  const loginId = randomPrivKey();
  const key = storeKeyOf(loginId);
  const data = encryptJsonTo(key, {
    options: {
      clientId: CLIENT_ID,
      network: 'sapphire_devnet',
      sdkUrl: base,
      redirectUrl: `${base}/done`,
      ...options,
    },
    params,
    actionType: 'login',
    origin,
    ...extra,
  });
  const res = await post(base, '/api/session', {
    key,
    data,
    signature: signStoreMessage(loginId, data),
    timeout: 600,
  });
  assert.equal(res.status, 201);
  return loginId;
}

/** Logs in through the built client library with a JWT (the custom-JWT verifier, `sub` as the user id). */
export async function loginWithJwt(sdkUrl: string, idToken: string): Promise<Auth> {
  const auth = await Auth.create(
    { clientId: CLIENT_ID, network: 'sapphire_devnet', sdkUrl },
    { storage: new MemoryStorage() },
  );
  await auth.login({
    loginProvider: 'jwt',
    extraLoginOptions: { id_token: idToken, verifierIdField: 'sub' },
  });
  return auth;
}

/** RFC 4648 base32 (no padding) to bytes. */
export function base32(text: string): Buffer {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const c of text.replace(/=+$/, '').toUpperCase())
    bits += alphabet.indexOf(c).toString(2).padStart(5, '0');
  const bytes = bits.match(/.{8}/g) ?? [];
  return Buffer.from(bytes.map((b) => Number.parseInt(b, 2)));
}

/** RFC 6238 TOTP (HMAC-SHA1, RFC 4226 dynamic truncation), written here from the RFCs. */
export function totp(key: Buffer, atMs: number, digits = 6, period = 30): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(atMs / 1000 / period)));
  const mac = createHmac('sha1', key).update(counter).digest();
  const offset = mac[mac.length - 1]! & 0xf;
  const code = (mac.readUInt32BE(offset) & 0x7fffffff) % 10 ** digits;
  return code.toString().padStart(digits, '0');
}
