// `auth.exportPolicy` in `portico start`'s config reaches the auth service's options; a value other
// than app, user or off is refused naming the field.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tempDir } from '@portico/testkit';
import { productionAuthOptions } from '../src/start/auth-options.ts';
import { loadStartConfig } from '../src/start/config.ts';
import { writeConfig } from './start-process.ts';

const AUTH = {
  masterKey: 'a'.repeat(64),
  verifiers: { app: { type: 'jwt', jwksUrl: 'https://issuer.example.com/.well-known/jwks.json' } },
  allowedRedirectOrigins: ['https://app.example.com'],
};
const NETWORKS = [{ name: 'local', chainId: 'eip155:31337', upstreams: ['http://127.0.0.1:9'] }];

test('auth.exportPolicy per clientId reaches the auth service; an unknown policy is refused', () => {
  const dir = tempDir();
  try {
    const load = (exportPolicy: unknown) =>
      loadStartConfig(
        writeConfig(dir.path, {
          port: 0,
          dataDir: dir.path,
          networks: NETWORKS,
          auth: { ...AUTH, exportPolicy },
        }),
        {},
      );
    const config = load({ 'app-1': 'user', 'app-2': 'off', 'app-3': 'app' });
    assert.deepEqual(productionAuthOptions(config, config.auth!, {}).exportPolicy, {
      'app-1': 'user',
      'app-2': 'off',
      'app-3': 'app',
    });
    assert.throws(
      () => load({ 'app-1': 'everyone' }),
      /auth\.exportPolicy\.app-1 must be one of app, user, off/,
    );
  } finally {
    dir.cleanup();
  }
});
