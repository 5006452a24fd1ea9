// An auth service with one custom-JWT verifier (`jwt`, ES256, kid k1) in a temporary folder, and
// the tokens that log a user in through it: the set-up of the tests that need a real login
// without a browser's login page.
import { type AuthServer, startAuthServer } from '@portico/auth-server';
import { tempDir } from '@portico/testkit';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';

export const CLIENT_ID =
  'BPi5PB_UiIZ-cPz1GtV5i1I2iOSOHuimiXBI0e-Oe_u6X3oVAbCiAZOTEBtTXw4tsluTITPqA8zMsfxIKMjiqNQ';

export interface JwtLoginService {
  service: AuthServer;
  /** A fresh one-time token for `sub` (its own jti), as `extraLoginOptions.id_token`. */
  token(sub: string): Promise<string>;
  /** Signs any claims with the verifier's key (a forged idToken, say). */
  signingKey: CryptoKey;
  close(): Promise<void>;
}

export async function startJwtLoginService(masterKey: string): Promise<JwtLoginService> {
  const dir = tempDir('portico-auth-jwt-');
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const signingKey = privateKey as CryptoKey;
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256' };
  const service = await startAuthServer({
    dataDir: dir.path,
    masterKey,
    verifiers: { jwt: { type: 'jwt', keys: [jwk] } },
  });
  return {
    service,
    signingKey,
    token: (sub) =>
      new SignJWT({ sub, jti: crypto.randomUUID() })
        .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
        .setIssuedAt()
        .sign(signingKey),
    close: async () => {
      await service.close();
      dir.cleanup();
    },
  };
}

/**
 * `fetch` as a page of `appUrl` sends it: its Origin on every call to the app and one cookie jar
 * (what the app's Set-Cookie leaves). Calls elsewhere go out as they are.
 */
export function pageOf(appUrl: () => string) {
  let jar: string | undefined;
  const setCookies: string[] = [];
  const pageFetch: typeof fetch = async (input, init) => {
    const url = String(input);
    if (!url.startsWith(appUrl())) return fetch(input, init);
    const headers = new Headers(init?.headers);
    headers.set('origin', appUrl());
    if (jar) headers.set('cookie', jar);
    const res = await fetch(input, { ...init, headers });
    const set = res.headers.get('set-cookie');
    if (set) {
      setCookies.push(set);
      const pair = set.split(';')[0] ?? '';
      jar = pair.endsWith('=') ? undefined : pair;
    }
    return res;
  };
  return { pageFetch, setCookies, cookie: () => jar };
}
