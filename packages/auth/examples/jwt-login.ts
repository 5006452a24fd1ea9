// Runnable: npx tsx packages/auth/examples/jwt-login.ts
import { Auth, MemoryStorage } from '@portico/auth';
import { startAuthServer } from '@portico/auth-server';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';

// Your backend's signing key, published to the auth service as a JWT verifier.
const { privateKey, publicKey } = await generateKeyPair('ES256');
const jwk = { ...(await exportJWK(publicKey)), kid: 'my-key', alg: 'ES256' };
const service = await startAuthServer({
  dataDir: '.portico/auth-example',
  verifiers: { 'my-backend': { type: 'jwt', keys: [jwk] } },
});

const auth = await Auth.create(
  {
    clientId: 'BPi5PB_UiIZ-cPz1GtV5i1I2iOSOHuimiXBI0e-Oe_u6X3oVAbCiAZOTEBtTXw4tsluTITPqA8zMsfxIKMjiqNQ',
    network: 'sapphire_devnet',
    sdkUrl: service.sdkUrl,
    loginConfig: { mine: { verifier: 'my-backend', typeOfLogin: 'jwt', clientId: 'my-backend' } },
  },
  { storage: new MemoryStorage() },
);
const idToken = await new SignJWT({ sub: 'user-42', email: 'user42@example.com' })
  .setProtectedHeader({ alg: 'ES256', kid: 'my-key' })
  .setIssuedAt()
  .sign(privateKey);
await auth.login({ loginProvider: 'mine', extraLoginOptions: { id_token: idToken } });

console.log('verifierId:', auth.getUserInfo().verifierId); // user-42
console.log('has app key:', auth.getPrivKey().length === 64); // true
console.log('ed25519 key hex length:', auth.getEd25519PrivKey().length); // 128
await auth.logout();
await service.close();
