// Issue 23's proof: two `portico start` instances from one config on PostgreSQL + Redis, an anvil
// upstream. A user logs in through instance A's auth service with a custom-JWT verifier (a token
// signed with jose), using the built @portico/auth (dist/); the session is restored on B; a
// transaction sent through B's gateway with auth.provider is mined and charged to the API key
// (seen in the dashboard's usage API on A); logout on B ends the session on A too.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type Anvil, startAnvil } from '@portico/devchain';
import { serviceUrl, tempDir, usageByMethod } from '@portico/testkit';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { createPublicClient, http, parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { dropPrefix, eventually, freshPrefix, freshSchema } from '../../gateway/test/shared-services.ts';
import { type RunningStart, startInBackground, writeConfig } from './start-process.ts';

// The built library, as an app installs it (not the sources the test runner resolves @portico/* to).
const { Auth, MemoryStorage } = (await import(
  new URL('../../auth/dist/index.js', import.meta.url).href
)) as typeof import('@portico/auth');

const database = serviceUrl('DATABASE_URL');
const redis = serviceUrl('REDIS_URL');
const ADMIN_TOKEN = 'two-instances-admin-token-0123456789';
const CLIENT_ID = 'BPi5PB_UiIZ-cPz1GtV5i1I2iOSOHuimiXBI0e-Oe_u6X3oVAbCiAZOTEBtTXw4tsluTITPqA8zMsfxIKMjiqNQ';
const ISSUER = 'https://login.app.example';

type Out = {
  gatewayUrl: string;
  networks: Record<string, { baseUrl: string }>;
  auth: { sdkUrl: string; jwksUrl: string };
  dashboard: { url: string };
};

describe('two portico start instances from one config share logins, sessions and credits', {
  skip: database.skip || redis.skip,
}, () => {
  let anvil: Anvil;
  let dir: ReturnType<typeof tempDir>;
  let schema: Awaited<ReturnType<typeof freshSchema>>;
  const prefix = freshPrefix();
  const instances: RunningStart[] = [];
  let a: Out;
  let b: Out;
  let signToken: (sub: string) => Promise<string>;

  before(async () => {
    anvil = await startAnvil();
    dir = tempDir();
    schema = await freshSchema(database.url!);
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'app-key-1', alg: 'ES256' };
    signToken = (sub) =>
      new SignJWT({ email: `${sub}@app.example` })
        .setProtectedHeader({ alg: 'ES256', kid: 'app-key-1' })
        .setIssuer(ISSUER)
        .setAudience('portico')
        .setSubject(sub)
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(privateKey);
    // One config for both: ports 0, so the two instances on this one machine pick their own.
    const config = writeConfig(dir.path, {
      port: 0,
      adminToken: `\${TEST_ADMIN_TOKEN}`,
      logLevel: 'warn',
      stores: {
        kind: 'shared',
        databaseUrl: `\${TEST_DATABASE_URL}`,
        redis: redis.url,
        redisKeyPrefix: prefix,
      },
      metrics: { requireAdminToken: true },
      networks: [{ name: 'local', chainId: 'eip155:31337', upstreams: [anvil.url], cache: false }],
      dashboard: { enabled: true },
      auth: {
        port: 0,
        masterKey: `\${TEST_MASTER_KEY}`,
        issuerUrl: 'https://auth.portico.example',
        verifiers: { jwt: { type: 'jwt', keys: [jwk], claims: { iss: ISSUER, aud: 'portico' } } },
        allowedRedirectOrigins: ['https://app.example'],
      },
    });
    const env = {
      TEST_ADMIN_TOKEN: ADMIN_TOKEN,
      TEST_DATABASE_URL: schema.url,
      TEST_MASTER_KEY: 'b'.repeat(64),
    };
    for (const name of ['a', 'b']) {
      const out = join(dir.path, `${name}.json`);
      const instance = startInBackground(['--config', config, '--config-out', out], env);
      instances.push(instance);
      await instance.waitFor(/Auth service\s+\S+/);
    }
    [a, b] = ['a', 'b'].map(
      (name) => JSON.parse(readFileSync(join(dir.path, `${name}.json`), 'utf8')) as Out,
    );
  });
  after(async () => {
    for (const instance of instances) await instance.stop();
    await anvil?.stop();
    await schema?.drop();
    if (redis.url) await dropPrefix(redis.url, prefix);
    dir?.cleanup();
  });

  test('both instances serve the same JWKS', async () => {
    assert.notEqual(a.auth.sdkUrl, b.auth.sdkUrl);
    const jwksA = await (await fetch(a.auth.jwksUrl)).json();
    const jwksB = await (await fetch(b.auth.jwksUrl)).json();
    assert.deepEqual(jwksA, jwksB);
  });

  test('login on A, session restored on B, a transaction through B charged to the key, logout on B ends it on A', async () => {
    const created = await fetch(`${a.gatewayUrl}/admin/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'app', dailyCredits: 1_000_000 }),
    });
    assert.equal(created.status, 201, await created.clone().text());
    const key = (await created.json()) as { key: string; id: string };
    const chainConfig = (out: Out) => ({
      chainNamespace: 'eip155' as const,
      chainId: '0x7a69',
      rpcTarget: `${out.networks.local.baseUrl}/v3/${key.key}`,
    });
    const storage = new MemoryStorage();
    const init = (out: Out) => ({
      clientId: CLIENT_ID,
      network: 'sapphire_devnet' as const,
      sdkUrl: out.auth.sdkUrl,
      chainConfig: chainConfig(out),
    });

    // Login on A with a token of the app's own issuer (the custom-JWT verifier "jwt").
    const onA = await Auth.create(init(a), { storage });
    await onA.login({
      loginProvider: 'jwt',
      extraLoginOptions: { id_token: await signToken('carol'), verifierIdField: 'sub' },
    });
    assert.equal(onA.getUserInfo().verifierId, 'carol');
    const keyOfCarol = onA.getPrivKey();
    assert.match(keyOfCarol, /^[0-9a-f]{64}$/);

    // B restores the session from the same stored sessionId (the session lives in PostgreSQL).
    const onB = await Auth.create(init(b), { storage });
    assert.equal(onB.getUserInfo().verifierId, 'carol', 'restored on B');
    assert.equal(onB.getPrivKey(), keyOfCarol);

    // A transaction through B's gateway with auth.provider: mined, and charged to the key.
    const provider = onB.provider as import('@portico/auth').Eip155Provider;
    const [from] = (await provider.request({ method: 'eth_accounts' })) as `0x${string}`[];
    const chain = createPublicClient({ chain: foundry, transport: http(anvil.url) });
    await chain.request({
      method: 'anvil_setBalance' as never,
      params: [from, '0x8ac7230489e80000'] as never,
    });
    const to = privateKeyToAddress(generatePrivateKey());
    const hash = (await provider.request({
      method: 'eth_sendTransaction',
      params: [{ from, to, value: `0x${parseEther('1').toString(16)}` }],
    })) as `0x${string}`;
    const receipt = await chain.waitForTransactionReceipt({ hash });
    assert.equal(receipt.status, 'success');
    assert.equal(await chain.getBalance({ address: to }), parseEther('1'));
    // The dashboard's usage API (on A: the usage is shared) shows the broadcast on the key.
    await eventually(
      async () =>
        ((await usageByMethod(a.gatewayUrl, ADMIN_TOKEN, key.id)).get('eth_sendRawTransaction')?.requests ??
          0) === 1,
    );
    const usage = await usageByMethod(a.gatewayUrl, ADMIN_TOKEN, key.id);
    assert.ok((usage.get('eth_sendRawTransaction')?.credits ?? 0) > 0, 'charged to the key');

    // The stored session as it was before logout, for A to be asked about afterwards.
    const snapshot = new MemoryStorage();
    for (const k of storageKeys(storage)) snapshot.set(k, storage.get(k) ?? '');
    assert.ok(storageKeys(snapshot).length > 0, 'the app kept its session');
    await onB.logout();
    const againOnA = await Auth.create(init(a), { storage: snapshot });
    assert.equal(againOnA.getPrivKey(), '', 'logged out on A too');
    assert.throws(() => againOnA.getUserInfo(), /No user found/);
  });
});

/** The keys a MemoryStorage holds. */
function storageKeys(storage: InstanceType<typeof import('@portico/auth').MemoryStorage>): string[] {
  return [...(storage as unknown as { values: Map<string, string> }).values.keys()];
}
