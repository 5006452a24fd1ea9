import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GATEWAY_ERRORS } from '../rpc/errors.ts';
import { ConfigError, parseConfig } from './config.ts';

const base = { networks: [{ name: 'local', chainId: 'eip155:31337', upstreams: ['http://127.0.0.1:8545'] }] };

test('stores default to the embedded ones', () => {
  assert.deepEqual(parseConfig(base).stores, { kind: 'embedded' });
  assert.deepEqual(parseConfig({ ...base, stores: { kind: 'embedded' } }).stores, { kind: 'embedded' });
});

test('shared stores take their URLs from the environment and fail closed by default', () => {
  const env = { PG_URL: 'postgres://gw:secret@db:5432/portico', REDIS_PASS: 'pw' };
  const config = parseConfig(
    {
      ...base,
      stores: { kind: 'shared', databaseUrl: `\${PG_URL}`, redisUrl: `redis://:\${REDIS_PASS}@cache:6379/0` },
    },
    env,
  );
  assert.deepEqual(config.stores, {
    kind: 'shared',
    databaseUrl: 'postgres://gw:secret@db:5432/portico',
    redisUrl: 'redis://:pw@cache:6379/0',
    redisFailure: 'closed',
    redisKeyPrefix: 'portico:',
  });
  const open = parseConfig(
    {
      ...base,
      stores: {
        kind: 'shared',
        databaseUrl: 'postgresql://db/portico',
        redisUrl: 'rediss://cache',
        redisFailure: 'open',
        redisKeyPrefix: 'gw1:',
      },
    },
    {},
  );
  assert.equal(open.stores?.kind === 'shared' && open.stores.redisFailure, 'open');
});

test('a wrong stores section is refused with the field named', () => {
  const shared = { kind: 'shared', databaseUrl: 'postgres://db/p', redisUrl: 'redis://cache' };
  const cases: [unknown, RegExp][] = [
    [{ kind: 'cloud' }, /stores\.kind must be embedded or shared/],
    [{ kind: 'embedded', redisUrl: 'redis://x' }, /apply only to kind: shared/],
    [{ ...shared, redisUrl: undefined }, /stores\.redisUrl is required/],
    [{ ...shared, databaseUrl: 'mysql://db/p' }, /stores\.databaseUrl must start with postgres:/],
    [{ ...shared, redisUrl: 'http://cache' }, /stores\.redisUrl must start with redis:/],
    [{ ...shared, redisFailure: 'maybe' }, /stores\.redisFailure must be closed or open/],
    [{ ...shared, redisKeyPrefix: 'has space' }, /stores\.redisKeyPrefix/],
    [{ ...shared, poolSize: 3 }, /stores has unknown field\(s\): poolSize/],
    [{ ...shared, databaseUrl: `\${NOPE}` }, /stores\.databaseUrl uses \$\{NOPE\}/],
    ['shared', /stores must be an object/],
  ];
  for (const [stores, message] of cases) assert.throws(() => parseConfig({ ...base, stores }, {}), message);
  assert.throws(() => parseConfig({ ...base, stores: { kind: 'cloud' } }, {}), ConfigError);
});

test('an unreachable shared store has its own error code on EVM and Solana networks', () => {
  const codes: Record<string, { evm: number; solana: number; http: number }> = GATEWAY_ERRORS;
  const { evm, solana, http } = codes.storeUnavailable;
  assert.equal(http, 503);
  const others = Object.entries(codes).filter(([name]) => name !== 'storeUnavailable');
  assert.ok(others.every(([, codes]) => codes.evm !== evm && codes.solana !== solana));
  assert.ok(evm !== -32005 && evm !== -32016);
  assert.ok(solana < -32019 || solana > -32001);
});

test('notification prices default to newHeads 50 and logs 300 and are set per network', () => {
  assert.deepEqual(parseConfig(base).networks[0].subscriptionCosts, { newHeads: 50, logs: 300 });
  const network = { ...base.networks[0], subscriptionCosts: { logs: 120 } };
  assert.deepEqual(parseConfig({ networks: [network] }).networks[0].subscriptionCosts, {
    newHeads: 50,
    logs: 120,
  });
  const free = { ...base.networks[0], subscriptionCosts: { newHeads: 0, logs: 0 } };
  assert.deepEqual(parseConfig({ networks: [free] }).networks[0].subscriptionCosts, { newHeads: 0, logs: 0 });
});

test('a wrong subscriptionCosts is refused with the field named', () => {
  const cases: [unknown, RegExp][] = [
    [
      { newPendingTransactions: 10 },
      /networks\[0\]\.subscriptionCosts has unknown field\(s\): newPendingTransactions \(allowed: newHeads, logs\)/,
    ],
    [{ newHeads: -1 }, /networks\[0\]\.subscriptionCosts\.newHeads must be an integer from 0 to 1000000/],
    [{ logs: 2.5 }, /networks\[0\]\.subscriptionCosts\.logs must be an integer/],
    [{ logs: '300' }, /networks\[0\]\.subscriptionCosts\.logs must be an integer/],
    [50, /networks\[0\]\.subscriptionCosts must be an object/],
  ];
  for (const [subscriptionCosts, message] of cases)
    assert.throws(() => parseConfig({ networks: [{ ...base.networks[0], subscriptionCosts }] }), message);
});

test('the response cache is in memory with embedded stores and in Redis with shared stores', () => {
  const shared = { kind: 'shared', databaseUrl: 'postgres://db/p', redisUrl: 'redis://cache' };
  const defaults = { enabled: true, maxEntries: 10_000, unfinalizedTtlMs: 2000, finalTtlMs: 86_400_000 };
  assert.deepEqual(parseConfig(base, {}).networks[0].cache, { ...defaults, store: 'memory' });
  assert.deepEqual(parseConfig({ ...base, stores: shared }, {}).networks[0].cache, {
    ...defaults,
    store: 'redis',
  });
  const network = (cache: unknown) => ({ networks: [{ ...base.networks[0], cache }] });
  const chosen = parseConfig({ ...network({ store: 'memory', maxEntries: 50 }), stores: shared }, {});
  assert.deepEqual(chosen.networks[0].cache, { ...defaults, store: 'memory', maxEntries: 50 });
  const tuned = parseConfig(
    { ...network({ finalTtlMs: 3_600_000, unfinalizedTtlMs: 500 }), stores: shared },
    {},
  );
  assert.deepEqual(tuned.networks[0].cache, {
    ...defaults,
    store: 'redis',
    finalTtlMs: 3_600_000,
    unfinalizedTtlMs: 500,
  });
  assert.equal(parseConfig(network(false), {}).networks[0].cache.enabled, false);
  const ownRedis = parseConfig(
    { ...base, stores: { ...shared, cacheRedisUrl: `redis://\${CACHE_HOST}:6380` } },
    { CACHE_HOST: 'cache-2' },
  );
  assert.equal(ownRedis.stores?.kind === 'shared' && ownRedis.stores.cacheRedisUrl, 'redis://cache-2:6380');
});

test('a wrong cache section is refused with the field named', () => {
  const shared = { kind: 'shared', databaseUrl: 'postgres://db/p', redisUrl: 'redis://cache' };
  const network = (cache: unknown) => ({ networks: [{ ...base.networks[0], cache }] });
  const cases: [Record<string, unknown>, RegExp][] = [
    [network({ store: 'disk' }), /networks\[0\]\.cache\.store must be memory or redis/],
    [network({ store: 'redis' }), /networks\[0\]\.cache\.store: redis needs stores\.kind: shared/],
    [
      { ...network({ finalTtlMs: 0 }), stores: shared },
      /networks\[0\]\.cache\.finalTtlMs must be an integer/,
    ],
    [network({ ttlMs: 5 }), /networks\[0\]\.cache has unknown field\(s\): ttlMs/],
    [network('yes'), /networks\[0\]\.cache must be an object/],
    [
      { ...base, stores: { ...shared, cacheRedisUrl: 'http://x' } },
      /stores\.cacheRedisUrl must start with redis:/,
    ],
    [{ ...base, stores: { kind: 'embedded', cacheRedisUrl: 'redis://x' } }, /apply only to kind: shared/],
  ];
  for (const [config, message] of cases) assert.throws(() => parseConfig(config, {}), message);
});
