// npm run bench: throughput and latency of anvil direct, nginx (one worker, keep-alive upstream),
// a bare Node proxy and the Portico gateway in front of anvil, the runtime's HTTP floor, distinct-
// request workloads, cache hits, a replayed dapp workload against a slow upstream, shared stores
// and a CPU profile of the gateway, measured with wrk in one run. Writes docs/benchmarks.md.
// `npm run bench -- --only distinct,replay` runs some sections and prints them without writing.
// Needs Debian's nginx and wrk (apt-get install -y nginx-light wrk); says what it skips without.
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { cpus, freemem, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  ANVIL_VERSION,
  type Anvil,
  benchSolanaLedger,
  type EvmSeed,
  seedEvmChain,
  startAnvil,
  startSolanaLedger,
} from '@portico/devchain';
import {
  type CreditLedger,
  type Gateway,
  type GatewayStores,
  GroupCommit,
  MemoryCreditLedger,
  MemoryRateLimiter,
  openSqlite,
  parseConfig,
  SqliteCreditLedger,
  SqliteKeyStore,
  SqliteUsageRecorder,
  startGateway,
} from '@portico/gateway';
import { createTestClient, http } from 'viem';
import { foundry } from 'viem/chains';
import { type ChildServer, startChildServer } from './bench/child-server.ts';
import { type SelfTime, topSelfTime } from './bench/cpu-profile.ts';
import {
  checkWorkload,
  type DistinctChain,
  distinctWorkloads,
  prepareDistinctChain,
} from './bench/distinct.ts';
import { startNginx } from './bench/nginx.ts';
import { type ReplayOptions, type ReplayResult, replayDapp, signBroadcasts } from './bench/replay.ts';
import { fixedBodyScript, hasTool, runWrk, type WrkResult } from './bench/wrk.ts';
import { benchRequestBodies } from './bench-request-bodies.ts';
import { startPorticoProcess } from './portico-process.ts';

type Row = {
  target: string;
  clients: number;
  rps: number;
  p50: number;
  p99: number;
  /** CPU time of this process (where the gateways run) per request answered, µs. */
  cpuUs: number;
  /** Lowest and highest cpuUs of the rounds a median row was taken from. */
  cpuRange?: [number, number];
};

const DURATION = Number(process.env.BENCH_SECONDS ?? '8');
const WARMUP = Number(process.env.BENCH_WARMUP_SECONDS ?? '3');
const CLIENTS = [1, 8, 64];
const BODY = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'eth_getBlockByNumber',
  params: ['latest', false],
});
const FINAL_BLOCK_BODY = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'eth_getBlockByNumber',
  params: ['0x1', false],
});

/** One-minute load average when the bench started (other work on the machine skews every row). */
const LOAD_AT_START = loadavg()[0];
const loadSamples: number[] = [LOAD_AT_START];
setInterval(() => loadSamples.push(loadavg()[0]), 10_000).unref();

const SECTIONS = [
  'latest',
  'debits',
  'stores',
  'distinct',
  'cache-hit',
  'replay',
  'profile',
  'solana',
  'bodies',
];

const ANVIL = 'anvil direct';
const NGINX = 'nginx → anvil';
const BARE = 'bare Node proxy → anvil';
const GATEWAY = 'Portico gateway → anvil';
const FLOOR = 'bare Node server, fixed body';
const EMBEDDED_64 = 'Portico gateway, embedded metering';
const SHARED_METERING = 'Portico gateway, Redis + PostgreSQL metering';
const WORKERS = 'Portico gateway, `--workers 2`, shared stores';

/** What the goals table reads, filled by the sections that ran. */
type Results = {
  distinct: { workload: string; clients: number; anvil: WrkResult; bare: WrkResult; gateway: WrkResult }[];
  cacheHit: { clients: number; floor: WrkResult; hit: WrkResult }[];
  replay?: { options: ReplayOptions; nginx: Replayed; portico: Replayed };
  stores?: { embedded: WrkResult; shared: WrkResult; workers: WrkResult };
  profile?: {
    workload: string;
    clients: number;
    busyPercent: number;
    functions: SelfTime[];
    files: { file: string; percent: number }[];
    bare: { busyPercent: number; functions: SelfTime[] };
  };
  skipped: string[];
};
type Replayed = ReplayResult & {
  upstreamRequests: number;
  upstreamCalls: number;
  upstreamMethods: Record<string, number>;
};

function log(target: string, clients: number, r: WrkResult) {
  console.log(
    `${target.padEnd(52)} c=${String(clients).padEnd(3)} ${r.rps.toFixed(0).padStart(7)} req/s  p50 ${r.p50.toFixed(3)} ms  p99 ${r.p99.toFixed(3)} ms`,
  );
}

function wrk(url: string, clients: number, script: string, seconds = DURATION) {
  return runWrk(url, clients, script, seconds);
}

/** A warm-up run (not recorded), then the measured one. */
async function measure(target: string, url: string, script: string, clients: number): Promise<WrkResult> {
  await wrk(url, clients, script, WARMUP);
  const result = await wrk(url, clients, script);
  log(target, clients, result);
  return result;
}

async function main() {
  const { values } = parseArgs({ options: { only: { type: 'string' } } });
  const only = values.only?.split(',').map((s) => s.trim());
  for (const name of only ?? [])
    if (!SECTIONS.includes(name))
      throw new Error(`--only: no section ${name}; sections: ${SECTIONS.join(', ')}`);
  const runs = (section: string) => !only || only.includes(section);
  const results: Results = { distinct: [], cacheHit: [], skipped: [] };
  const haveWrk = hasTool('wrk');
  const haveNginx = hasTool('nginx');
  if (!haveWrk) {
    const message =
      'wrk is missing (apt-get install -y wrk): skipping every wrk section (latest, debits, stores, distinct, cache-hit, profile, Solana rows)';
    console.error(message);
    results.skipped.push(message);
  }
  if (!haveNginx) {
    const message =
      'nginx is missing (apt-get install -y nginx-light): skipping the nginx rows and the nginx side of the traffic replay';
    console.error(message);
    results.skipped.push(message);
  }
  const dir = mkdtempSync(join(tmpdir(), 'portico-bench-'));
  const sections: string[] = [];
  const wrkSection = (name: string) => runs(name) && haveWrk;

  let rows: Row[] = [];
  if (['latest', 'debits', 'stores', 'distinct', 'cache-hit', 'profile'].some(wrkSection)) {
    const anvil = await startAnvil({ extraArgs: ['--slots-in-an-epoch', '1'] });
    try {
      const seed = await seedEvmChain(anvil.url);
      await createTestClient({ chain: foundry, mode: 'anvil', transport: http(anvil.url) }).mine({
        blocks: 10,
      });
      const finalBlock = await (
        await fetch(anvil.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: FINAL_BLOCK_BODY,
        })
      ).text();
      const floorFile = join(dir, 'fixed-body.json');
      writeFileSync(floorFile, finalBlock);
      const floor = await startChildServer('./fixed-body-server.ts', [floorFile]);
      const bare = await startChildServer('./bare-proxy.ts', [anvil.url]);
      try {
        rows = await inProcessSections(anvil, dir, { runs: wrkSection, haveNginx, floor, bare }, results);
        if (wrkSection('latest')) sections.push(...latestSection(rows));
        if (wrkSection('stores')) sections.push(...storesSection(rows));
        if (wrkSection('debits')) {
          const debits = await benchDebits(join(dir, 'debits.db'));
          sections.push(...durableSection(rows, debits));
        }
        if (wrkSection('distinct') || wrkSection('profile')) {
          const chain = await prepareDistinctChain(anvil.url, seed.demoContract);
          console.log(`chain: ${chain.blocks} blocks, ${chain.transactions.length} transactions`);
          if (wrkSection('distinct'))
            sections.push(...(await distinctSection(anvil, bare, chain, dir, results)));
          if (wrkSection('profile')) sections.push(...(await profileSection(anvil, chain, dir, results)));
        }
        if (wrkSection('cache-hit')) sections.push(...(await cacheHitSection(anvil, floor, dir, results)));
      } finally {
        await floor.stop();
        await bare.stop();
      }
    } finally {
      await anvil.stop();
    }
  }
  if (runs('replay')) sections.push(...(await replaySection(dir, haveNginx, results)));
  if (wrkSection('solana')) sections.push(...(await benchSolana((body) => fixedBodyScript(dir, body))));
  if (runs('bodies')) sections.push('', ...(await benchRequestBodies()));

  const document = report(results, sections);
  if (only) {
    console.log(`\n--only ${only.join(',')}: docs/benchmarks.md left as it is; the sections:\n`);
    console.log(document);
  } else {
    writeFileSync(new URL('../docs/benchmarks.md', import.meta.url), document);
    console.log('wrote docs/benchmarks.md');
  }
}

/**
 * The rows whose gateways run in this process (as the earlier benchmarks did): the main table
 * with `latest`, the crash-safe debits before and after, cache hits and the shared stores.
 */
async function inProcessSections(
  anvil: Anvil,
  dir: string,
  setup: { runs: (section: string) => boolean; haveNginx: boolean; floor: ChildServer; bare: ChildServer },
  results: Results,
): Promise<Row[]> {
  const { runs, haveNginx, floor, bare } = setup;
  const rows: Row[] = [];
  const script = fixedBodyScript(dir, BODY);
  const finalBlock = fixedBodyScript(dir, FINAL_BLOCK_BODY);
  const nginx = haveNginx && runs('latest') ? await startNginx(anvil.url, dir) : undefined;
  const network = (cache: boolean) => ({
    name: 'local',
    chainId: 'eip155:31337',
    upstreams: [anvil.url],
    cache,
  });
  const gateways: Gateway[] = [];
  const closeStores: (() => Promise<void>)[] = [];
  let stopWorkers = async () => {};
  const open = async (label: string, config: Record<string, unknown>, stores?: GatewayStores) => {
    const gateway = await startGateway(parseConfig({ port: 0, logLevel: 'warn', ...config }), { stores });
    gateways.push(gateway);
    const { key } = await gateway.keys.create({ name: `bench-${label}`, dailyCredits: 1e15 });
    return `${gateway.networks[0].baseUrl}/v3/${key}`;
  };
  const record = async (target: string, url: string, luaScript: string, clients: number) => {
    const result = await measure(target, url, luaScript, clients);
    rows.push({ target, clients, ...result });
    return result;
  };
  try {
    if (runs('debits')) {
      // Balances before (in memory, rebuilt at start from usage flushed every 500 ms) and after (each
      // debit committed to SQLite before forwarding, one transaction per event-loop turn), both with
      // their SQLite file on disk and the cache off.
      const memoryStores = inMemoryBalances(join(dir, 'before.db'));
      closeStores.push(memoryStores.close);
      const beforeUrl = await open('before', { networks: [network(false)] }, memoryStores);
      const afterUrl = await open('after', { networks: [network(false)], dataDir: join(dir, 'after') });
      for (const clients of [1, 64]) {
        // Alternated over ROUNDS rounds, each row the median round, so that both see the same machine.
        await wrk(beforeUrl, clients, script, WARMUP); // warm-up runs, not recorded
        await wrk(afterUrl, clients, script, WARMUP);
        const rounds: Record<string, Row[]> = { [BEFORE]: [], [AFTER]: [] };
        for (let round = 0; round < ROUNDS; round++) {
          for (const [target, url] of [
            [BEFORE, beforeUrl],
            [AFTER, afterUrl],
          ] as const)
            rounds[target].push({ target, clients, ...(await wrk(url, clients, script)) });
        }
        for (const target of [BEFORE, AFTER]) {
          const of = (field: 'rps' | 'p50' | 'p99' | 'cpuUs') => median(rounds[target].map((r) => r[field]));
          const cpu = rounds[target].map((r) => r.cpuUs);
          rows.push({
            target,
            clients,
            rps: of('rps'),
            p50: of('p50'),
            p99: of('p99'),
            cpuUs: of('cpuUs'),
            cpuRange: [Math.min(...cpu), Math.max(...cpu)],
          });
          console.log(
            `${target.padEnd(52)} c=${String(clients).padEnd(3)} ${rounds[target].map((r) => r.rps.toFixed(0)).join(' / ')} req/s, CPU ${rounds[target].map((r) => r.cpuUs.toFixed(1)).join(' / ')} µs per request`,
          );
        }
      }
    }
    if (runs('stores')) {
      await record('anvil direct, block 0x1', anvil.url, finalBlock, 64);
      const cachedUrl = await open('cache', { networks: [network(true)] });
      await record('Portico gateway, cache hit (block 0x1)', cachedUrl, finalBlock, 64);
      if (process.env.DATABASE_URL && process.env.REDIS_URL) {
        const stores = {
          kind: 'shared',
          databaseUrl: process.env.DATABASE_URL,
          redisUrl: process.env.REDIS_URL,
          redisKeyPrefix: `bench-${Date.now()}:`,
        };
        const embeddedUrl = await open('embedded', { networks: [network(false)] });
        const sharedUrl = await open('shared', { networks: [network(false)], stores });
        const workers = await startPorticoProcess({
          upstream: anvil.url,
          dir,
          workers: 2,
          stores: { ...stores, redisKeyPrefix: `bench-workers-${Date.now()}:` },
        });
        stopWorkers = workers.stop;
        // Embedded and shared metering back to back, so that the ratio compares the same minute.
        const embedded = await record(EMBEDDED_64, embeddedUrl, script, 64);
        const shared = await record(SHARED_METERING, sharedUrl, script, 64);
        // With shared stores the cache is in Redis by default.
        const sharedCacheUrl = await open('shared-cache', { networks: [network(true)], stores });
        await record('Portico gateway, cache hit (Redis-shared)', sharedCacheUrl, finalBlock, 64);
        const workersResult = await record(WORKERS, workers.url, script, 64);
        results.stores = { embedded, shared, workers: workersResult };
      } else {
        const message =
          'DATABASE_URL / REDIS_URL unset: skipping the shared-store metering, Redis-shared cache and `--workers 2` rows';
        console.log(message);
        results.skipped.push(message);
      }
    }
    if (runs('latest')) {
      const gatewayUrl = await open('plain', { networks: [network(false)] });
      const targets = [
        { target: ANVIL, url: anvil.url },
        ...(nginx ? [{ target: NGINX, url: nginx.url }] : []),
        { target: BARE, url: bare.url },
        { target: GATEWAY, url: gatewayUrl },
        { target: FLOOR, url: floor.url },
      ];
      for (const clients of CLIENTS)
        for (const { target, url } of targets) await record(target, url, script, clients);
    }
  } finally {
    nginx?.stop();
    await stopWorkers();
    for (const gateway of gateways) await gateway.close();
    for (const close of closeStores) await close();
  }
  return rows;
}

const ratio = (a: number, b: number) => (a / b).toFixed(2);
const fmt = (n: number) => n.toFixed(3);

function latestSection(rows: Row[]): string[] {
  const find = (target: string, clients: number) =>
    rows.find((r) => r.target === target && r.clients === clients);
  const hop = (target: string, clients: number) => {
    const a = find(ANVIL, clients);
    const r = find(target, clients);
    return a && r ? fmt(r.p50 - a.p50) : '—';
  };
  return [
    '## One identical request: `eth_getBlockByNumber("latest")`',
    '',
    `Request: \`${BODY}\`; the gateway (in the bench's own process, as in the earlier runs) has its cache off and every request is authenticated, validated, charged and forwarded. The bare Node proxy and the fixed-body server run in processes of their own (scripts/bench/). Identical requests in flight at once are merged by the gateway, which flatters it at 64 clients: the distinct-request section below is the fairer measure.`,
    '',
    '| target | clients | req/s | p50 ms | p99 ms |',
    '|---|---|---|---|---|',
    ...rows
      .filter((r) => [ANVIL, NGINX, BARE, GATEWAY, FLOOR].includes(r.target))
      .map((r) => `| ${r.target} | ${r.clients} | ${r.rps.toFixed(0)} | ${fmt(r.p50)} | ${fmt(r.p99)} |`),
    '',
    '### What each hop adds (p50, against anvil direct)',
    '',
    '| clients | nginx adds ms | bare proxy adds ms | gateway adds ms | gateway / bare proxy req/s | gateway / nginx req/s |',
    '|---|---|---|---|---|---|',
    ...CLIENTS.map((c) => {
      const g = find(GATEWAY, c);
      const b = find(BARE, c);
      const n = find(NGINX, c);
      return `| ${c} | ${hop(NGINX, c)} | ${hop(BARE, c)} | ${hop(GATEWAY, c)} | ${g && b ? ratio(g.rps, b.rps) : '—'} | ${g && n ? ratio(g.rps, n.rps) : '—'} |`;
    }),
    '',
  ];
}

function storesSection(rows: Row[]): string[] {
  const shown = [
    'anvil direct, block 0x1',
    'Portico gateway, cache hit (block 0x1)',
    EMBEDDED_64,
    SHARED_METERING,
    'Portico gateway, cache hit (Redis-shared)',
    WORKERS,
  ];
  return [
    '## Cache hits in process and shared-store metering (64 clients)',
    '',
    'A finalized block by number is served from the cache (still authenticated and charged). The embedded and the',
    'Redis + PostgreSQL metering rows run the `latest` request back to back (cache off): keys in SQLite and balances',
    'debited in SQLite, against keys in PostgreSQL and balances debited in Redis by a Lua script. The Redis-shared',
    'cache row reads the block from Redis (as several instances would share it) and meters in Redis too.',
    '`portico start --workers 2` needs the shared stores, so it compares with the shared metering row.',
    '',
    '| target | req/s | p50 ms | p99 ms |',
    '|---|---|---|---|',
    ...rows
      .filter((r) => shown.includes(r.target))
      .map((r) => `| ${r.target} | ${r.rps.toFixed(0)} | ${fmt(r.p50)} | ${fmt(r.p99)} |`),
    '',
  ];
}

async function distinctSection(
  anvil: Anvil,
  bare: ChildServer,
  chain: DistinctChain,
  dir: string,
  results: Results,
): Promise<string[]> {
  const gateway = await startPorticoProcess({ upstream: anvil.url, dir });
  const lines: string[] = [];
  try {
    for (const workload of distinctWorkloads(dir, chain)) {
      for (const url of [anvil.url, bare.url, gateway.url]) await checkWorkload(url, workload);
      for (const clients of [8, 64]) {
        console.log(`${workload.name}, ${clients} clients`);
        const anvilResult = await measure(ANVIL, anvil.url, workload.script, clients);
        const bareResult = await measure(BARE, bare.url, workload.script, clients);
        const gatewayResult = await measure(
          'Portico gateway (portico start, cache off)',
          gateway.url,
          workload.script,
          clients,
        );
        results.distinct.push({
          workload: workload.name,
          clients,
          anvil: anvilResult,
          bare: bareResult,
          gateway: gatewayResult,
        });
      }
    }
  } finally {
    await gateway.stop();
  }
  lines.push(
    '## Distinct requests: nothing to merge, nothing cached',
    '',
    `Every request is new: a new id each and a random block among the chain's ${chain.blocks}, a random receipt among ${chain.transactions.length} transactions, or an \`eth_call\` of the demo contract with a random 32-byte word after the selector (the bodies come from wrk Lua scripts). The gateway is \`portico start\` in a process of its own, cache off (every request authenticated, validated, charged, forwarded); the bare Node proxy (node:http in, undici out, bytes passed through) too. Rows of one workload and client count run one after another.`,
    '',
    '| workload | clients | anvil req/s | bare proxy req/s | gateway req/s | gateway / bare proxy | anvil p50 ms | bare proxy p50 ms | gateway p50 ms | gateway adds at p50 ms | anvil p99 ms | bare proxy p99 ms | gateway p99 ms |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...results.distinct.map(
      (d) =>
        `| ${d.workload} | ${d.clients} | ${d.anvil.rps.toFixed(0)} | ${d.bare.rps.toFixed(0)} | ${d.gateway.rps.toFixed(0)} | ${ratio(d.gateway.rps, d.bare.rps)} | ${fmt(d.anvil.p50)} | ${fmt(d.bare.p50)} | ${fmt(d.gateway.p50)} | ${fmt(d.gateway.p50 - d.anvil.p50)} | ${fmt(d.anvil.p99)} | ${fmt(d.bare.p99)} | ${fmt(d.gateway.p99)} |`,
    ),
    '',
  );
  return lines;
}

async function cacheHitSection(
  anvil: Anvil,
  floor: ChildServer,
  dir: string,
  results: Results,
): Promise<string[]> {
  const gateway = await startPorticoProcess({ upstream: anvil.url, dir, cache: true });
  const script = fixedBodyScript(dir, FINAL_BLOCK_BODY);
  try {
    // The first answer fills the cache; it must be the same bytes as the fixed body.
    const first = await (
      await fetch(gateway.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: FINAL_BLOCK_BODY,
      })
    ).text();
    const fixed = await (await fetch(floor.url, { method: 'POST', body: FINAL_BLOCK_BODY })).text();
    if (JSON.stringify(JSON.parse(first)) !== JSON.stringify(JSON.parse(fixed)))
      throw new Error(`the gateway's block 0x1 differs from anvil's: ${first.slice(0, 200)}`);
    for (const clients of [8, 64]) {
      const floorResult = await measure(FLOOR, floor.url, script, clients);
      const hit = await measure('Portico cache hit (portico start)', gateway.url, script, clients);
      results.cacheHit.push({ clients, floor: floorResult, hit });
    }
  } finally {
    await gateway.stop();
  }
  return [
    '## Cache hits against the runtime’s HTTP floor',
    '',
    `\`${FINAL_BLOCK_BODY}\` (a finalized block, ${Buffer.byteLength(await (await fetch(floor.url, { method: 'POST', body: FINAL_BLOCK_BODY })).text())} bytes answered) from \`portico start\` with its cache on (still authenticated and charged), against a bare node:http server in its own process that reads each body and answers the same bytes: what Node's HTTP layer can serve on this machine.`,
    '',
    '| clients | floor req/s | cache hit req/s | hit / floor | floor p50 ms | hit p50 ms | floor p99 ms | hit p99 ms |',
    '|---|---|---|---|---|---|---|---|',
    ...results.cacheHit.map(
      (c) =>
        `| ${c.clients} | ${c.floor.rps.toFixed(0)} | ${c.hit.rps.toFixed(0)} | ${ratio(c.hit.rps, c.floor.rps)} | ${fmt(c.floor.p50)} | ${fmt(c.hit.p50)} | ${fmt(c.floor.p99)} | ${fmt(c.hit.p99)} |`,
    ),
    '',
  ];
}

/** Runs one distinct-miss workload against a process started with --cpu-prof; its profile of the run. */
async function profiled(
  start: (nodeArgs: string[]) => Promise<{ url: string; stop: () => Promise<void> }>,
  label: string,
  script: string,
  clients: number,
  dir: string,
) {
  const profileDir = join(dir, `cpu-profile-${label.replace(/\W+/g, '-')}`);
  const server = await start(['--cpu-prof', '--cpu-prof-dir', profileDir]);
  const now = () => Number(process.hrtime.bigint() / 1000n);
  const window = { from: 0, to: 0 };
  try {
    await wrk(server.url, clients, script, WARMUP);
    window.from = now();
    const result = await wrk(server.url, clients, script);
    window.to = now();
    log(`${label} (--cpu-prof)`, clients, result);
  } finally {
    await server.stop();
  }
  const file = readdirSync(profileDir).find((name) => name.endsWith('.cpuprofile'));
  if (!file) throw new Error(`no CPU profile in ${profileDir}`);
  return topSelfTime(join(profileDir, file), window, 15);
}

async function profileSection(
  anvil: Anvil,
  chain: DistinctChain,
  dir: string,
  results: Results,
): Promise<string[]> {
  const workload = distinctWorkloads(dir, chain)[0];
  const clients = 64;
  const gateway = await profiled(
    (nodeArgs) => startPorticoProcess({ upstream: anvil.url, dir, nodeArgs }),
    'Portico gateway (portico start)',
    workload.script,
    clients,
    dir,
  );
  const bare = await profiled(
    (nodeArgs) => startChildServer('./bare-proxy.ts', [anvil.url], nodeArgs),
    BARE,
    workload.script,
    clients,
    dir,
  );
  results.profile = { workload: workload.name, clients, ...gateway, bare };
  return [];
}

const REPLAY: ReplayOptions = {
  clients: Number(process.env.BENCH_REPLAY_CLIENTS ?? '100'),
  seconds: Number(process.env.BENCH_REPLAY_SECONDS ?? '20'),
  pollMs: 1000,
  broadcastMs: 1000,
  seed: 17,
};
const DELAY_MS = 20;

/** The dapp replay against one proxy, on a fresh chain behind a fresh delay proxy. */
async function replayAgainst(kind: 'nginx' | 'portico', dir: string): Promise<Replayed> {
  const anvil = await startAnvil({});
  try {
    const seed: EvmSeed = await seedEvmChain(anvil.url);
    const test = createTestClient({ chain: foundry, mode: 'anvil', transport: http(anvil.url) });
    await test.mine({ blocks: 20 });
    await test.setIntervalMining({ interval: 1 });
    const broadcasts = await signBroadcasts(
      seed.demoContract,
      Math.ceil((REPLAY.seconds * 1000) / REPLAY.broadcastMs) + 1,
    );
    const delay = await startChildServer('./delay-proxy.ts', [anvil.url, String(DELAY_MS)]);
    try {
      const proxy =
        kind === 'nginx'
          ? await startNginx(delay.url, dir)
          : await (async () => {
              const p = await startPorticoProcess({ upstream: delay.url, dir, cache: true });
              return { url: p.url, stop: () => void p.stop() };
            })();
      try {
        // One request of each kind first (not counted), as a server that has been running would have
        // compiled its code paths; the dapp's own requests then start cold in the cache.
        await warmUp(proxy.url, seed);
        await fetch(`${delay.url}reset`, { method: 'POST' });
        const result = await replayDapp(proxy.url, seed.demoContract, broadcasts, REPLAY);
        const stats = (await (await fetch(`${delay.url}stats`)).json()) as {
          requests: number;
          calls: number;
          methods: Record<string, number>;
        };
        const replayed = {
          ...result,
          upstreamRequests: stats.requests,
          upstreamCalls: stats.calls,
          upstreamMethods: stats.methods,
        };
        console.log(
          `replay ${kind.padEnd(8)} ${result.requests} requests (${result.errors} errors), p50 ${fmt(result.p50)} ms, p99 ${fmt(result.p99)} ms, upstream ${stats.calls} calls in ${stats.requests} requests ${JSON.stringify(stats.methods)}`,
        );
        return replayed;
      } finally {
        proxy.stop();
      }
    } finally {
      await delay.stop();
    }
  } finally {
    await anvil.stop();
  }
}

async function warmUp(url: string, seed: EvmSeed) {
  const bodies: [string, unknown[]][] = [
    ['eth_blockNumber', []],
    ['eth_getBlockByNumber', ['latest', false]],
    ['eth_call', [{ to: seed.demoContract, data: '0x3fa4f245' }, '0x1']],
    ['eth_getTransactionReceipt', [seed.transactions.store]],
    ['eth_getLogs', [{ address: seed.demoContract, fromBlock: '0x0', toBlock: '0x2' }]],
  ];
  for (const [method, params] of bodies) {
    const answer = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    if (!answer.ok) throw new Error(`warm-up ${method}: HTTP ${answer.status}`);
  }
}

async function replaySection(dir: string, haveNginx: boolean, results: Results): Promise<string[]> {
  if (!haveNginx) {
    const portico = await replayAgainst('portico', dir);
    return [
      '## Real traffic: a replayed dapp workload',
      '',
      `nginx is missing: Portico alone made ${portico.upstreamCalls} upstream calls for ${portico.requests} requests (p50 ${fmt(portico.p50)} ms, p99 ${fmt(portico.p99)} ms).`,
      '',
    ];
  }
  const nginx = await replayAgainst('nginx', dir);
  const portico = await replayAgainst('portico', dir);
  results.replay = { options: REPLAY, nginx, portico };
  const methods = [
    ...new Set([
      ...Object.keys(nginx.byMethod),
      ...Object.keys(portico.upstreamMethods),
      ...Object.keys(nginx.upstreamMethods),
    ]),
  ].sort();
  return [
    '## Real traffic: a replayed dapp workload',
    '',
    `${REPLAY.clients} clients of a dapp for ${REPLAY.seconds} s, simulated from a fixed seed (scripts/bench/replay.ts): every client polls the head about once a second (half with \`eth_blockNumber\`, half with \`eth_getBlockByNumber("latest")\`), reads the demo contract with \`eth_call\` at \`latest\` when the head moved, asks for the receipt of one of the last 5 broadcasts on 30 % of its polls and for the contract's logs over the last 10 blocks on 15 %; one sender broadcasts a signed transaction (\`eth_sendRawTransaction\`) every ${REPLAY.broadcastMs / 1000} s. The upstream is anvil mining a block a second (finality as on Ethereum: 64 blocks behind) behind a delay proxy that adds ${DELAY_MS} ms to every call and counts them. nginx (1 worker, keep-alive) and \`portico start\` (default cache on) each get a fresh chain and a fresh delay proxy, and one request of each method before the count starts (to warm code paths; what it leaves in a cache is stale a second later or never asked for again); the schedule and the transactions are the same.`,
    '',
    '| proxy | requests | JSON-RPC errors | upstream HTTP requests | upstream calls | calls per request | p50 ms | p99 ms |',
    '|---|---|---|---|---|---|---|---|',
    ...(
      [
        ['nginx (1 worker)', nginx],
        ['Portico', portico],
      ] as const
    ).map(
      ([name, r]) =>
        `| ${name} | ${r.requests} | ${r.errors} | ${r.upstreamRequests} | ${r.upstreamCalls} | ${(r.upstreamCalls / r.requests).toFixed(2)} | ${fmt(r.p50)} | ${fmt(r.p99)} |`,
    ),
    '',
    `Portico made ${(100 * (1 - portico.upstreamCalls / nginx.upstreamCalls)).toFixed(0)} % fewer upstream calls than nginx. By method (requests the clients sent to nginx / to Portico → calls that reached the upstream through nginx / through Portico):`,
    '',
    '| method | sent (nginx run) | sent (Portico run) | upstream via nginx | upstream via Portico |',
    '|---|---|---|---|---|',
    ...methods.map(
      (m) =>
        `| ${m} | ${nginx.byMethod[m] ?? 0} | ${portico.byMethod[m] ?? 0} | ${nginx.upstreamMethods[m] ?? 0} | ${portico.upstreamMethods[m] ?? 0} |`,
    ),
    '',
  ];
}

function goalsSection(results: Results): string[] {
  const lines = ['## Goals', '', '| goal | measured | met |', '|---|---|---|'];
  const yes = (ok: boolean) => (ok ? 'met' : 'not met');
  if (results.distinct.length > 0) {
    for (const clients of [8, 64]) {
      const of = results.distinct.filter((d) => d.clients === clients);
      const ratios = of.map((d) => d.gateway.rps / d.bare.rps);
      lines.push(
        `| distinct misses, ${clients} clients: gateway ≥ 0.9 × bare Node proxy | ${of.map((d, i) => `${d.workload.split(',')[0]} ${ratios[i].toFixed(2)}`).join('; ')} | ${yes(Math.min(...ratios) >= 0.9)} |`,
      );
    }
    const of8 = results.distinct.filter((d) => d.clients === 8);
    const added = of8.map((d) => d.gateway.p50 - d.anvil.p50);
    lines.push(
      `| distinct misses, 8 clients: ≤ 0.25 ms added at p50 over anvil | ${of8.map((d, i) => `${d.workload.split(',')[0]} ${added[i].toFixed(3)} ms`).join('; ')} | ${yes(Math.max(...added) <= 0.25)} |`,
    );
  } else lines.push('| distinct misses | not run | — |');
  if (results.cacheHit.length > 0) {
    const ratios = results.cacheHit.map((c) => c.hit.rps / c.floor.rps);
    lines.push(
      `| cache hits ≥ 0.75 × the runtime's HTTP floor | ${results.cacheHit.map((c, i) => `${c.clients} clients ${ratios[i].toFixed(2)}`).join('; ')} | ${yes(Math.min(...ratios) >= 0.75)} |`,
    );
  } else lines.push('| cache hits | not run | — |');
  if (results.replay) {
    const { nginx, portico } = results.replay;
    const reduction = 1 - portico.upstreamCalls / nginx.upstreamCalls;
    lines.push(
      `| real traffic: ≥ 60 % fewer upstream calls than nginx | ${(100 * reduction).toFixed(0)} % (${portico.upstreamCalls} against ${nginx.upstreamCalls}) | ${yes(reduction >= 0.6)} |`,
      `| real traffic: lower p50 than nginx | ${fmt(portico.p50)} ms against ${fmt(nginx.p50)} ms | ${yes(portico.p50 < nginx.p50)} |`,
      `| real traffic: p99 no worse than nginx | ${fmt(portico.p99)} ms against ${fmt(nginx.p99)} ms | ${yes(portico.p99 <= nginx.p99)} |`,
    );
  } else lines.push('| real traffic | not run | — |');
  if (results.stores) {
    const { embedded, shared, workers } = results.stores;
    const cost = 1 - shared.rps / embedded.rps;
    lines.push(
      `| shared stores: Redis + PostgreSQL metering costs ≤ 10 % of embedded throughput (64 clients) | ${shared.rps.toFixed(0)} against ${embedded.rps.toFixed(0)} req/s: ${(100 * cost).toFixed(0)} % less | ${yes(cost <= 0.1)} |`,
      `| \`--workers 2\` row kept | ${workers.rps.toFixed(0)} req/s | met |`,
    );
  } else lines.push('| shared stores | not run | — |');
  lines.push('');
  for (const skipped of results.skipped) lines.push(`Skipped: ${skipped}.`, '');
  return lines;
}

function profileLines(results: Results): string[] {
  const profile = results.profile;
  if (!profile) return [];
  return [
    `Profile of \`portico start\` (\`node --cpu-prof\`) during one distinct-miss run (${profile.workload}, ${profile.clients} clients, the ${DURATION} s after a ${WARMUP} s warm-up; start-up left out): the process was busy in ${profile.busyPercent.toFixed(0)} % of the samples; the functions with the most self time, as a share of the busy samples:`,
    '',
    '| function | where | self % |',
    '|---|---|---|',
    ...profile.functions.map((f) => `| \`${f.name}\` | ${f.where || '(native)'} | ${f.percent.toFixed(1)} |`),
    '',
    `The bare Node proxy under the same run, for comparison (busy in ${profile.bare.busyPercent.toFixed(0)} % of the samples): ${profile.bare.functions
      .slice(0, 6)
      .map((f) => `\`${f.name}\` ${f.percent.toFixed(1)} %`)
      .join(', ')}.`,
    '',
    "The gateway's samples by file (self time of all its functions):",
    '',
    '| file | self % |',
    '|---|---|',
    ...profile.files.map((f) => `| ${f.file} | ${f.percent.toFixed(1)} |`),
    '',
  ];
}

function report(results: Results, sections: string[]): string {
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  return [
    '# Benchmarks',
    '',
    `Measured by \`npm run bench\` (scripts/bench.ts) on ${new Date().toISOString().slice(0, 10)}: ${cpus().length} × ${cpu}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB (${(freemem() / 2 ** 30).toFixed(0)} GiB free, one-minute load average ${LOAD_AT_START.toFixed(1)} at the start, ${Math.min(...loadSamples).toFixed(1)}–${Math.max(...loadSamples).toFixed(1)} during the run, ${loadavg()[0].toFixed(1)} at the end), Node ${process.version}, anvil ${ANVIL_VERSION}, Debian nginx (1 worker, keep-alive upstream), wrk ${DURATION} s per row after a ${WARMUP} s warm-up run. Load generator, proxies and anvil share the machine's cores; on a shared virtual machine runs vary by up to about 20 % from one to the next, so compare rows of one run. \`npm run bench -- --only ${SECTIONS.join(',')}\` runs some sections alone (printed, this file left as it is).`,
    '',
    ...goalsSection(results),
    ...LIMITS_PROSE.slice(0, -1),
    ...storesLimits(results),
    '',
    ...profileLines(results),
    ...sections,
  ].join('\n');
}

/** What limits the shared-store and `--workers 2` rows, with the figures of this run. */
function storesLimits(results: Results): string[] {
  const stores = results.stores;
  if (!stores) return [];
  const { embedded, shared, workers } = stores;
  return [
    '- **Shared stores**: every request pays a Redis round trip for the debit (a Lua script) on top of the work of',
    `  the embedded row (${shared.rps.toFixed(0)} against ${embedded.rps.toFixed(0)} req/s); Redis and PostgreSQL run on the same two cores as everything else.`,
    '- **`--workers 2`**: a second event loop on a machine whose two cores are already shared with wrk, anvil, Redis',
    `  and PostgreSQL: ${workers.rps.toFixed(0)} req/s against ${shared.rps.toFixed(0)} for one process on the same shared stores`,
    `  (× ${(workers.rps / shared.rps).toFixed(2)}); on a machine with cores to spare it is the way to use them.`,
  ];
}

/** What limits each row, written from the profile and the runs of the date above. */
const LIMITS_PROSE: string[] = [
  '### What limits each row',
  '',
  '- **anvil direct, nginx, the fixed-body floor**: wrk, the loopback sockets and anvil share the two cores with',
  '  every other process on the machine; these rows move with the load average more than any other.',
  '- **Distinct misses, gateway against the bare proxy**: both processes spend their largest single share of CPU in',
  "  `writev` (the kernel's socket writes, to the client and to anvil), which no proxy in Node avoids. What the gateway",
  '  adds on its one event loop, per request: the key lookup (SHA-256, then a map in memory), the body scan and',
  '  `JSON.parse`, the parameter rules, the debit committed to SQLite (the debits of one event-loop turn in one',
  '  transaction: `run` of libsql, synchronous on the event loop, the largest entry of the profile after',
  '  `writev`; usage counts are written every 500 ms), the metrics, and the answer parsed and',
  "  re-serialised to put the client's id back (`stringifyJsonExact` and `parseScanned` of exact-json.ts), with",
  '  the promise hops of the pipeline between them. On two cores shared with wrk and anvil every one of these',
  '  microseconds is a microsecond the bare proxy spends forwarding instead, hence the ratio; the p50 added over',
  '  anvil is that work plus the wait for a core (the bare proxy alone adds a good part of it).',
  '- **Cache hits against the floor**: no upstream at all, so the ratio is the price of the per-request pipeline',
  '  (authentication, the SQLite debit, usage counts, metrics, the cached answer serialised again with the',
  "  client's id) against a server that writes one precomputed buffer. Answering from stored bytes with the id",
  '  spliced in and fewer synchronous SQLite commits per request are what would close it.',
  '- **Real traffic**: the calls Portico saves come from merging identical requests in flight (head polls and',
  '  contract reads that arrive within the same 20 ms upstream round trip) and from cached receipts; requests',
  '  at `latest` and `eth_getLogs` are never cached, so each new head still costs',
  '  about one upstream call per distinct request and round trip. Latency is the 20 ms of the upstream plus each',
  '  hop: a request Portico merges or answers from its cache is faster than through nginx, every other one pays',
  "  the gateway's own work on top of nginx's, which decides the p50.",
  '',
];

const ROUNDS = 3;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const BEFORE = 'balances in memory (before)';
const AFTER = 'debits committed to SQLite (after)';

/** The embedded stores as they were before debits were written: balances in memory only. */
function inMemoryBalances(path: string): GatewayStores {
  const db = openSqlite(path);
  const usage = new SqliteUsageRecorder(db);
  const usageDb = db.prepare('SELECT COALESCE(SUM(credits), 0) AS c FROM usage WHERE key_id = ? AND day = ?');
  const ledger = new MemoryCreditLedger((keyId, day) => (usageDb.get(keyId, day) as { c: number }).c);
  const rateLimiter = new MemoryRateLimiter();
  const keys = new SqliteKeyStore(db);
  return {
    keys,
    usage,
    ledger,
    rateLimiter,
    async close() {
      await usage.close();
      db.close();
    },
  };
}

type DebitCost = { ledger: string; perTurn: number; microseconds: number };

/** The debit alone, without HTTP: µs per debit, one per turn and 64 issued in the same turn. */
async function benchDebits(path: string): Promise<DebitCost[]> {
  const db = openSqlite(path);
  const ledgers: [string, CreditLedger][] = [
    [BEFORE, new MemoryCreditLedger()],
    [AFTER, new SqliteCreditLedger(db, new GroupCommit(db))],
  ];
  const results: DebitCost[] = [];
  for (const perTurn of [1, 64]) {
    const runs = Math.ceil(20_000 / perTurn);
    // CPU time of the process (µs per debit): less disturbed by other work on a shared machine.
    const time = async (ledger: CreditLedger, keyId: string) => {
      const started = process.cpuUsage();
      for (let i = 0; i < runs; i++)
        await Promise.all(Array.from({ length: perTurn }, () => ledger.debit(keyId, 1e15, 10)));
      const used = process.cpuUsage(started);
      return (used.user + used.system) / (runs * perTurn);
    };
    const samples = new Map<string, number[]>(ledgers.map(([name]) => [name, []]));
    for (const [, ledger] of ledgers) await time(ledger, 'warm-up');
    // Alternated rounds, the median of each: the machine is shared.
    for (let round = 0; round < ROUNDS; round++)
      for (const [name, ledger] of ledgers) samples.get(name)!.push(await time(ledger, `bench-${perTurn}`));
    for (const [name] of ledgers) {
      const microseconds = median(samples.get(name)!);
      results.push({ ledger: name, perTurn, microseconds });
      console.log(
        `debit, ${name.padEnd(36)} ${String(perTurn).padStart(2)} per turn ${microseconds.toFixed(2)} µs`,
      );
    }
  }
  db.close();
  return results;
}

function durableSection(rows: Row[], debits: DebitCost[]): string[] {
  const find = (target: string, clients: number) =>
    rows.find((r) => r.target === target && r.clients === clients)!;
  const added = (clients: number) => find(AFTER, clients).cpuUs - find(BEFORE, clients).cpuUs;
  const debit = (ledger: string, perTurn: number) =>
    debits.find((d) => d.ledger === ledger && d.perTurn === perTurn)!.microseconds;
  return [
    '## Crash-safe debits: cost per request before and after',
    '',
    'Before: balances in memory, rebuilt at start from a usage record flushed every 500 ms (a SIGKILL gave',
    'back the credits of calls answered since the last flush). After: each debit is committed to SQLite',
    '(WAL, `synchronous = NORMAL`) before the request is forwarded, the debits of one event-loop turn in',
    'one transaction. Both gateways keep their SQLite file on disk, cache off, the request of the main',
    `table; before and after alternate over ${ROUNDS} rounds in the same run, each figure the median of`,
    'its rounds. CPU µs per request is the CPU time (user + system) of the process the gateways run in',
    'divided by the requests answered: the cost of one request, and much less disturbed than req/s by',
    'other work on a shared machine.',
    '',
    '| balances | clients | req/s | p50 ms | p99 ms | CPU µs per request (rounds) |',
    '|---|---|---|---|---|---|',
    ...[1, 64].flatMap((clients) =>
      [BEFORE, AFTER].map((target) => {
        const r = find(target, clients);
        const range = r.cpuRange ? ` (${r.cpuRange[0].toFixed(0)}–${r.cpuRange[1].toFixed(0)})` : '';
        return `| ${target} | ${clients} | ${r.rps.toFixed(0)} | ${r.p50.toFixed(3)} | ${r.p99.toFixed(3)} | ${r.cpuUs.toFixed(1)}${range} |`;
      }),
    ),
    '',
    `Added per request (medians): ${added(1).toFixed(1)} µs of CPU with 1 client, where every request pays a commit of its own; ${added(64).toFixed(1)} µs with 64 clients, where the debits of many requests share one commit (compare with the spread of the rounds).`,
    '',
    'The debit alone (no HTTP, same process), CPU µs per debit:',
    '',
    '| ledger | 1 debit per turn | 64 debits per turn |',
    '|---|---|---|',
    ...[BEFORE, AFTER].map(
      (name) => `| ${name} | ${debit(name, 1).toFixed(2)} | ${debit(name, 64).toFixed(2)} |`,
    ),
    '',
  ];
}

/** getSignaturesForAddress through the gateway against the ledger direct, and the ledger's tx/s. */
async function benchSolana(luaFor: (body: string) => string): Promise<string[]> {
  const ledger = await startSolanaLedger({ seed: true });
  const gateway = await startGateway(
    parseConfig({
      port: 0,
      logLevel: 'warn',
      networks: [{ name: 'solana-local', kind: 'solana', chainId: ledger.chainId, upstreams: [ledger.url] }],
    }),
  );
  const rows: string[] = [];
  try {
    const { key } = await gateway.keys.create({ name: 'bench-solana', dailyCredits: 1e15 });
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'getSignaturesForAddress',
      params: [ledger.devAccounts[0].address, { limit: 10 }],
    });
    const script = luaFor(body);
    for (const [target, url] of [
      ['Solana ledger direct', ledger.url],
      ['Portico gateway → Solana ledger', `${gateway.networks[0].baseUrl}/v3/${key}`],
    ] as const) {
      await wrk(url, 8, script);
      const r = await wrk(url, 8, script);
      rows.push(`| ${target} | 8 | ${r.rps.toFixed(0)} | ${r.p50.toFixed(3)} | ${r.p99.toFixed(3)} |`);
      console.log(
        `${target.padEnd(46)} c=8   ${r.rps.toFixed(0).padStart(7)} req/s  p50 ${r.p50.toFixed(3)} ms`,
      );
    }
  } finally {
    await gateway.close();
    await ledger.stop();
  }
  const tx = await benchSolanaLedger({ transactions: 1000, concurrency: 4 });
  console.log(
    `Solana ledger: ${tx.transactionsPerSecond.toFixed(0)} tx/s over HTTP, ${tx.inProcessTransactionsPerSecond.toFixed(0)} in process`,
  );
  return [
    '## Solana: getSignaturesForAddress (limit 10) and the ledger',
    '',
    '| target | clients | req/s | p50 ms | p99 ms |',
    '|---|---|---|---|---|',
    ...rows,
    '',
    `Ledger throughput: ${tx.transactionsPerSecond.toFixed(0)} transfers/s over HTTP (sendTransaction with preflight, ${tx.concurrency} concurrent senders, ${tx.transactions} transactions, all ${tx.processed} processed); ${tx.inProcessTransactionsPerSecond.toFixed(0)}/s submitted in process (LiteSVM plus the ledger's indexing, no HTTP).`,
    '',
  ];
}

await main();
