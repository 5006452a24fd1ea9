// `portico start`'s auth section names the auth service's attempt limits, rate limits, audit
// webhooks and trustProxy (issue 24): behind a reverse proxy every client otherwise has the
// proxy's address, so one address's limits would be everyone's. The fields reach the service
// (its per-address limit counts by the X-Forwarded-For entry), and wrong values are refused
// naming the field.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startAuthServer } from '@portico/auth-server';
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
const SECRET = 'webhook-secret-0123456789abcdef-0123';

test('auth.trustProxy, attemptLimits, rateLimits and auditWebhooks reach the auth service', async () => {
  const dir = tempDir();
  const load = (auth: Record<string, unknown>) =>
    loadStartConfig(
      writeConfig(dir.path, { port: 0, dataDir: dir.path, networks: NETWORKS, auth: { ...AUTH, ...auth } }),
      { HOOK_SECRET: SECRET },
    );
  try {
    const config = load({
      trustProxy: true,
      attemptLimits: { failureFactor: 5, maxWaitSeconds: 3600 },
      rateLimits: { tokensPerMinute: 2 },
      auditWebhooks: [{ url: 'https://audit.example.com/hook', secret: `\${HOOK_SECRET}` }],
    });
    const options = productionAuthOptions(config, config.auth!, {});
    assert.equal(options.trustProxy, true);
    // Fields left out are left out (the service's defaults), not undefined over them.
    assert.deepEqual(options.attemptLimits, { failureFactor: 5, maxWaitSeconds: 3600 });
    assert.deepEqual(options.rateLimits, { tokensPerMinute: 2 });
    assert.deepEqual(options.auditWebhooks, [{ url: 'https://audit.example.com/hook', secret: SECRET }]);

    const server = await startAuthServer(options);
    try {
      const start = async (client: string) =>
        (
          await fetch(`${server.sdkUrl}/api/login/request`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-forwarded-for': `203.0.113.7, ${client}` },
            body: JSON.stringify({ loginId: 'unknown' }),
          })
        ).status;
      const first = [await start('198.51.100.1'), await start('198.51.100.1')];
      assert.ok(!first.includes(429), `the first two are not limited: ${first}`);
      assert.equal(await start('198.51.100.1'), 429);
      // Another client behind the same proxy has its own count.
      assert.notEqual(await start('198.51.100.2'), 429);
    } finally {
      await server.close();
    }

    assert.throws(() => load({ trustProxy: 'yes' }), /auth\.trustProxy must be/);
    assert.throws(() => load({ attemptLimits: { failureFactor: 0 } }), /auth\.attemptLimits\.failureFactor/);
    assert.throws(() => load({ attemptLimits: { failurefactor: 3 } }), /did you mean failureFactor/);
    assert.throws(
      () => load({ auditWebhooks: [{ url: 'https://audit.example.com/hook', secret: 'short' }] }),
      /auth\.auditWebhooks\[0\]\.secret must be a string of 32 or more characters/,
    );
  } finally {
    dir.cleanup();
  }
});
