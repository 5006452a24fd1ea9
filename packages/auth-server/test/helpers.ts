import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';

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
      const jwt = new SignJWT(claims)
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
