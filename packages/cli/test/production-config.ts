// The config pieces the `portico start` production tests share.
export const ADMIN_TOKEN = 'production-admin-token-0123456789';
export const MASTER_KEY = 'a'.repeat(64);
export const NETWORKS = [{ name: 'local', chainId: 'eip155:31337', upstreams: ['http://127.0.0.1:9'] }];
export const JWT_VERIFIER = {
  type: 'jwt',
  keys: [
    {
      kty: 'EC',
      crv: 'P-256',
      x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU',
      y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0',
      kid: 'k1',
    },
  ],
};
export const AUTH = {
  masterKey: MASTER_KEY,
  verifiers: { app: JWT_VERIFIER },
  allowedRedirectOrigins: ['https://app.example.com'],
};
