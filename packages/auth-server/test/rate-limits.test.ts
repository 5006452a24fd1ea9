// Per-address rate limits on the endpoints that mint tokens or write to the store, and on session
// reads: past the limit a 429 with when to try again; another address is not affected; the next
// minute (the service's clock, moved by the test) is open again.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { randomPrivKey, storeKeyOf } from '@portico/auth/protocol';
import { type AuthServer, loadDevJwtKey, startAuthServer } from '@portico/auth-server';
import { tempDir } from '@portico/testkit';

describe('per-address rate limits', { timeout: 60_000 }, () => {
  const dir = tempDir('portico-auth-rate-');
  let server: AuthServer;
  let clock = Date.now();
  before(async () => {
    const key = await loadDevJwtKey(join(dir.path, 'dev-jwt-key.json'));
    server = await startAuthServer({
      dataDir: join(dir.path, 'auth'),
      masterKey: 'a'.repeat(64),
      devJwt: { key },
      clock: () => clock,
      trustProxy: true,
      rateLimits: { tokensPerMinute: 3, readsPerMinute: 5 },
    });
  });
  after(async () => {
    await server?.close();
    dir.cleanup();
  });

  const post = async (path: string, body: unknown, address: string) => {
    const res = await fetch(`${server.sdkUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
      body: JSON.stringify(body),
    });
    return {
      status: res.status,
      retryAfter: res.headers.get('retry-after'),
      body: (await res.json()) as Record<string, unknown>,
    };
  };

  it('limits /dev/token per address, tells when to try again, and opens the next minute', async () => {
    for (let i = 0; i < 3; i++)
      assert.equal((await post('/dev/token', { sub: 'ann' }, '192.0.2.1')).status, 200);
    clock += 15_000;
    const refused = await post('/dev/token', { sub: 'ann' }, '192.0.2.1');
    assert.equal(refused.status, 429);
    assert.deepEqual(refused.body, {
      error: {
        code: 'RATE_LIMITED',
        message: 'Too many requests from this address: try again in 45 s',
        retryAfter: 45,
      },
    });
    assert.equal(refused.retryAfter, '45');
    assert.equal((await post('/dev/token', { sub: 'ann' }, '192.0.2.2')).status, 200, 'another address');
    clock += 45_000;
    assert.equal((await post('/dev/token', { sub: 'ann' }, '192.0.2.1')).status, 200);
  });

  it('limits session reads per address (unknown keys included) and login starts', async () => {
    const key = storeKeyOf(randomPrivKey());
    for (let i = 0; i < 5; i++)
      assert.equal((await post('/api/session/get', { key }, '192.0.2.3')).status, 404);
    assert.equal((await post('/api/session/get', { key }, '192.0.2.3')).status, 429);
    const park = { key, data: 'x', signature: '00', timeout: 60 };
    for (let i = 0; i < 3; i++) assert.equal((await post('/api/session', park, '192.0.2.4')).status, 401);
    assert.equal((await post('/api/session', park, '192.0.2.4')).status, 429);
  });
});
