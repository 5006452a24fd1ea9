// The real auth service for the React tests, with a custom-JWT verifier so a login needs no page:
// `auth.login({ loginProvider: 'jwt', extraLoginOptions: { id_token: await service.token('ann') } })`.
import { type AuthServer, startAuthServer } from '@portico/auth-server';
import { tempDir } from '@portico/testkit';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';

export const CLIENT_ID =
  'BPi5PB_UiIZ-cPz1GtV5i1I2iOSOHuimiXBI0e-Oe_u6X3oVAbCiAZOTEBtTXw4tsluTITPqA8zMsfxIKMjiqNQ';

export interface TestAuthService {
  server: AuthServer;
  /** A fresh id_token for the user `sub` (signed by the verifier's key). */
  token(sub: string): Promise<string>;
  close(): Promise<void>;
}

export async function startTestAuthService(): Promise<TestAuthService> {
  const dir = tempDir('portico-react-');
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256' };
  const server = await startAuthServer({
    dataDir: dir.path,
    masterKey: 'd'.repeat(64),
    verifiers: { jwt: { type: 'jwt', keys: [jwk] } },
  });
  return {
    server,
    token: (sub) =>
      new SignJWT({ sub, jti: crypto.randomUUID() })
        .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
        .setIssuedAt()
        .sign(privateKey),
    async close() {
      await server.close();
      dir.cleanup();
    },
  };
}
