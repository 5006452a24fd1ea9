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
      stores: { kind: 'shared', databaseUrl: `\${PG_URL}`, redis: `redis://:\${REDIS_PASS}@cache:6379/0` },
    },
    env,
  );
  assert.deepEqual(config.stores, {
    kind: 'shared',
    databaseUrl: 'postgres://gw:secret@db:5432/portico',
    redis: 'redis://:pw@cache:6379/0',
    redisFailure: 'closed',
    redisKeyPrefix: 'portico:',
  });
  const open = parseConfig(
    {
      ...base,
      stores: {
        kind: 'shared',
        databaseUrl: 'postgresql://db/portico',
        redis: 'rediss://cache',
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
    [{ ...shared, redisUrl: undefined }, /stores\.redis is required/],
    [{ ...shared, databaseUrl: 'mysql://db/p' }, /stores\.databaseUrl must start with postgres:/],
    [{ ...shared, redisUrl: 'http://cache' }, /stores\.redis must start with redis:/],
    [{ ...shared, redis: 'redis://cache' }, /stores\.redisUrl is the older name of stores\.redis/],
    [{ ...shared, databaseDirectUrl: 'http://db' }, /stores\.databaseDirectUrl must start with postgres:/],
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
  assert.equal(ownRedis.stores?.kind === 'shared' && ownRedis.stores.cacheRedis, 'redis://cache-2:6380');
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
      /stores\.cacheRedis must start with redis:/,
    ],
    [{ ...base, stores: { kind: 'embedded', cacheRedisUrl: 'redis://x' } }, /apply only to kind: shared/],
  ];
  for (const [config, message] of cases) assert.throws(() => parseConfig(config, {}), message);
});

test('stores.redis takes a Sentinel or a Cluster the way ioredis does, secrets from the environment', () => {
  const stores = (redis: unknown) => ({ kind: 'shared', databaseUrl: 'postgres://db/p', redis });
  const env = { REDIS_PASSWORD: 'hunter22', SENTINEL_PASSWORD: 'watch-it' };
  const sentinel = parseConfig(
    {
      ...base,
      stores: stores({
        sentinels: ['sentinel-1:26379', { host: 'sentinel-2' }, '[::1]:26380'],
        name: 'mymaster',
        password: `\${REDIS_PASSWORD}`,
        sentinelPassword: `\${SENTINEL_PASSWORD}`,
        db: 2,
      }),
    },
    env,
  ).stores;
  assert.deepEqual(sentinel?.kind === 'shared' && sentinel.redis, {
    sentinels: [
      { host: 'sentinel-1', port: 26379 },
      { host: 'sentinel-2', port: 26379 },
      { host: '::1', port: 26380 },
    ],
    name: 'mymaster',
    password: 'hunter22',
    sentinelPassword: 'watch-it',
    db: 2,
  });
  const cluster = parseConfig(
    {
      ...base,
      stores: stores({ cluster: ['redis-1:7000', { host: 'redis-2', port: 7001 }, 'redis-3'], tls: true }),
    },
    env,
  ).stores;
  assert.deepEqual(cluster?.kind === 'shared' && cluster.redis, {
    cluster: [
      { host: 'redis-1', port: 7000 },
      { host: 'redis-2', port: 7001 },
      { host: 'redis-3', port: 6379 },
    ],
    tls: true,
  });
  const ownCache = parseConfig(
    { ...base, stores: { ...stores('redis://a'), cacheRedis: { cluster: ['cache-1:7000'] } } },
    env,
  ).stores;
  assert.deepEqual(ownCache?.kind === 'shared' && ownCache.cacheRedis, {
    cluster: [{ host: 'cache-1', port: 7000 }],
  });
});

test('a wrong Sentinel or Cluster setting is refused with the field named', () => {
  const stores = (redis: unknown) => ({
    ...base,
    stores: { kind: 'shared', databaseUrl: 'postgres://db/p', redis },
  });
  const cases: [unknown, RegExp][] = [
    [{ sentinels: ['s:26379'] }, /stores\.redis\.name must be the master's name/],
    [{ sentinels: [], name: 'm' }, /stores\.redis\.sentinels must be a non-empty list of nodes/],
    [{ sentinels: ['s:99999'], name: 'm' }, /stores\.redis\.sentinels\[0\] must be host:port/],
    [{ cluster: [{ host: 'a', port: 'x' }] }, /stores\.redis\.cluster\[0\] must be host:port/],
    [{ cluster: ['a:1'], sentinels: ['b:2'] }, /either sentinels .* or cluster .*, not both/],
    [{ url: 'redis://a' }, /either sentinels .* or cluster .*, not neither/],
    [{ cluster: ['a:1'], name: 'm' }, /stores\.redis has unknown field\(s\): name \(allowed with cluster: /],
    [{ sentinels: ['s'], name: 'm', db: 99 }, /stores\.redis\.db must be an integer from 0 to 15/],
    [{ cluster: ['a'], password: `\${NOPE}` }, /stores\.redis\.password uses \$\{NOPE\}/],
    [42, /stores\.redis must be a redis:\/\/ URL or an object/],
  ];
  for (const [redis, message] of cases) assert.throws(() => parseConfig(stores(redis), {}), message);
});

test('methodCosts overrides named methods per network and refuses a name the network does not serve', () => {
  const net = (kind: string, methodCosts: unknown) => ({
    name: 'n',
    kind,
    chainId: kind === 'solana' ? 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1' : 'eip155:1',
    upstreams: ['http://a.example'],
    methodCosts,
  });
  assert.deepEqual(parseConfig({ networks: [net('evm', { eth_call: 120 })] }).networks[0].methodCosts, {
    eth_call: 120,
  });
  assert.deepEqual(parseConfig({ networks: [net('evm', undefined)] }).networks[0].methodCosts, {});
  assert.throws(
    () => parseConfig({ networks: [net('evm', { eth_cal: 120 })] }),
    /networks\[0\]\.methodCosts\.eth_cal is not a method this network serves; did you mean eth_call/,
  );
  assert.throws(
    () => parseConfig({ networks: [net('solana', { eth_call: 1 })] }),
    /methodCosts\.eth_call is not a method this network serves/,
  );
  assert.throws(() => parseConfig({ networks: [net('evm', { eth_call: -1 })] }), /must be an integer from 0/);
});

test('an unknown field is named with the closest known name when it looks like a typo', () => {
  assert.throws(
    () => parseConfig({ ...base, adminTokne: 'x' }),
    /config has unknown field\(s\): adminTokne \(allowed: .*\); did you mean adminToken \(for adminTokne\)\?$/,
  );
  assert.throws(
    () => parseConfig({ ...base, networks: [{ ...base.networks[0], upstream: ['http://a'] }] }),
    /networks\[0\] has unknown field\(s\): upstream .*did you mean upstreams \(for upstream\)\?$/,
  );
  // Nothing close: no guess.
  assert.throws(
    () => parseConfig({ ...base, frobnicate: 1 }),
    (error: Error) => !/did you mean/.test(error.message),
  );
});

test('an upstream is a URL or { url, name, maxConcurrency }; the fleet settings have defaults', () => {
  const env = { NODE_KEY: 'k3y' };
  const config = parseConfig(
    {
      networks: [
        {
          name: 'fleet',
          chainId: 'eip155:1',
          upstreams: [
            'http://a.example',
            { url: `http://b.example/\${NODE_KEY}`, name: 'b', maxConcurrency: 8 },
          ],
        },
      ],
    },
    env,
  );
  const [network] = config.networks;
  assert.deepEqual(network.upstreams, [
    'http://a.example',
    { url: 'http://b.example/k3y', name: 'b', maxConcurrency: 8 },
  ]);
  assert.equal(network.maxLagBlocks, 5);
  assert.equal(network.refusedMethodTtlMs, 600_000);
  const wrong = (upstream: unknown) => () =>
    parseConfig({ networks: [{ name: 'n', chainId: 'eip155:1', upstreams: [upstream] }] }, env);
  assert.throws(
    wrong({ url: 'http://b.example', maxConcurrency: 0 }),
    /upstreams\[0\]\.maxConcurrency must be an integer from 1/,
  );
  assert.throws(wrong({ url: 'ftp://b.example' }), /upstreams\[0\]\.url must be an http\(s\) URL/);
  assert.throws(
    wrong({ url: 'http://b.example', weight: 2 }),
    /upstreams\[0\] has unknown field\(s\): weight/,
  );
  assert.throws(wrong('ftp://b.example'), /upstreams\[0\] must be an http\(s\) URL/);
  assert.throws(wrong(`http://\${MISSING}`), /uses \$\{MISSING\} but that environment variable is not set/);
});

test('heads are pushed by default (from wsUpstreams or each upstream’s own address), polled only with headPush false', () => {
  const network = (extra: Record<string, unknown>) =>
    parseConfig({
      networks: [{ name: 'a', chainId: 'eip155:1', upstreams: ['http://127.0.0.1:8545'], ...extra }],
    }).networks[0];
  assert.equal(network({}).headPush, true);
  assert.equal(network({ headPush: false }).headPush, false);
  assert.equal(network({ wsUpstreams: ['ws://127.0.0.1:8546'] }).headPush, true);
  assert.equal(network({ wsUpstreams: ['ws://127.0.0.1:8546'], headPush: false }).headPush, false);
  assert.equal(network({ headPush: true }).headPush, true);
});
