// npm run bench: throughput and latency of anvil direct, nginx (one worker, keep-alive upstream)
// in front of anvil, and the Portico gateway in front of anvil, measured with wrk in one run.
// Writes docs/benchmarks.md. Needs Debian's nginx and wrk (apt-get install -y nginx-light wrk).
import { execFile, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, freemem, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { benchSolanaLedger, freePort, seedEvmChain, startAnvil, startSolanaLedger } from '@portico/devchain';
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
import { benchRequestBodies } from './bench-request-bodies.ts';
import { startPorticoProcess } from './portico-process.ts';

const execFileAsync = promisify(execFile);

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

const DURATION = process.env.BENCH_SECONDS ?? '8';
const CLIENTS = [1, 8, 64];
const BODY = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'eth_getBlockByNumber',
  params: ['latest', false],
});

function need(tool: string) {
  try {
    execFileSync('sh', ['-c', `command -v ${tool}`]);
  } catch {
    console.error(
      `npm run bench needs ${tool}: apt-get install -y ${tool === 'nginx' ? 'nginx-light' : tool}`,
    );
    process.exit(1);
  }
}

async function startNginx(upstreamPort: number, dir: string) {
  const port = await freePort();
  const conf = join(dir, 'nginx.conf');
  writeFileSync(
    conf,
    `worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${dir};
  proxy_temp_path ${dir};
  upstream anvil { server 127.0.0.1:${upstreamPort}; keepalive 64; }
  server {
    listen 127.0.0.1:${port};
    location / { proxy_pass http://anvil; proxy_http_version 1.1; proxy_set_header Connection ""; }
  }
}
`,
  );
  const child = spawn('nginx', ['-c', conf, '-p', dir, '-g', 'daemon off;'], { stdio: 'ignore' });
  await new Promise((r) => setTimeout(r, 500));
  return { url: `http://127.0.0.1:${port}/`, stop: () => child.kill('SIGTERM') };
}

async function wrk(url: string, clients: number, script: string): Promise<Omit<Row, 'target' | 'clients'>> {
  // Asynchronous on purpose: the gateway under test runs in this process and must keep serving.
  const cpu = process.cpuUsage();
  const { stdout: out } = await execFileAsync('wrk', [
    '-t',
    clients > 1 ? '2' : '1',
    '-c',
    String(clients),
    '-d',
    `${DURATION}s`,
    '--latency',
    '-s',
    script,
    url,
  ]);
  const used = process.cpuUsage(cpu);
  if (process.env.BENCH_DEBUG) console.log(out);
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
  const requests = Number(/(\d+) requests in/.exec(out)?.[1]);
  const ms = (label: string) => {
    const match = new RegExp(`${label}\\s+([\\d.]+)(us|ms|s)`).exec(out);
    if (!match) return Number.NaN;
    const value = Number(match[1]);
    return match[2] === 'us' ? value / 1000 : match[2] === 's' ? value * 1000 : value;
  };
  const errors = /Non-2xx or 3xx responses: (\d+)/.exec(out);
  if (errors) throw new Error(`${url}: ${errors[1]} non-2xx responses`);
  return { rps, p50: ms('50%'), p99: ms('99%'), cpuUs: (used.user + used.system) / requests };
}

async function main() {
  need('wrk');
  need('nginx');
  const dir = mkdtempSync(join(tmpdir(), 'portico-bench-'));
  const luaFor = (body: string) => {
    const path = join(dir, `post-${Math.random().toString(36).slice(2)}.lua`);
    writeFileSync(
      path,
      `wrk.method = "POST"\nwrk.body = '${body}'\nwrk.headers["Content-Type"] = "application/json"\n`,
    );
    return path;
  };
  const script = luaFor(BODY);
  // A block at or below `finalized`: cacheable for good (anvil finalizes 2 epochs of 1 slot back).
  const finalBlock = luaFor(
    JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getBlockByNumber', params: ['0x1', false] }),
  );

  const anvil = await startAnvil({ extraArgs: ['--slots-in-an-epoch', '1'] });
  await seedEvmChain(anvil.url);
  await createTestClient({ chain: foundry, mode: 'anvil', transport: http(anvil.url) }).mine({ blocks: 10 });
  const nginx = await startNginx(anvil.port, dir);
  const network = (cache: boolean) => ({
    name: 'local',
    chainId: 'eip155:31337',
    upstreams: [anvil.url],
    cache,
  });
  const gateways: Gateway[] = [];
  const open = async (label: string, config: Record<string, unknown>, stores?: GatewayStores) => {
    const gateway = await startGateway(parseConfig({ port: 0, logLevel: 'warn', ...config }), { stores });
    gateways.push(gateway);
    const { key } = await gateway.keys.create({ name: `bench-${label}`, dailyCredits: 1e15 });
    return `${gateway.networks[0].baseUrl}/v3/${key}`;
  };
  const gatewayUrl = await open('plain', { networks: [network(false)] });
  const cachedUrl = await open('cache', { networks: [network(true)] });
  const targets = [
    { target: 'anvil direct', url: anvil.url, script },
    { target: 'nginx → anvil', url: nginx.url, script },
    { target: 'Portico gateway → anvil', url: gatewayUrl, script },
  ];
  const extra = [
    { target: 'anvil direct, block 0x1', url: anvil.url, script: finalBlock },
    { target: 'Portico gateway, cache hit (block 0x1)', url: cachedUrl, script: finalBlock },
  ];
  let stopWorkers = async () => {};
  if (process.env.DATABASE_URL && process.env.REDIS_URL) {
    const stores = {
      kind: 'shared',
      databaseUrl: process.env.DATABASE_URL,
      redisUrl: process.env.REDIS_URL,
      redisKeyPrefix: `bench-${Date.now()}:`,
    };
    const sharedUrl = await open('shared', { networks: [network(false)], stores });
    extra.push({ target: 'Portico gateway, Redis + PostgreSQL metering', url: sharedUrl, script });
    // With shared stores the cache is in Redis by default.
    const sharedCacheUrl = await open('shared-cache', { networks: [network(true)], stores });
    extra.push({
      target: 'Portico gateway, cache hit (Redis-shared)',
      url: sharedCacheUrl,
      script: finalBlock,
    });
    const workers = await startPorticoProcess({
      upstream: anvil.url,
      dir,
      workers: 2,
      stores: { ...stores, redisKeyPrefix: `bench-workers-${Date.now()}:` },
    });
    stopWorkers = workers.stop;
    extra.push({ target: 'Portico gateway, `--workers 2`, shared stores', url: workers.url, script });
  } else {
    console.log(
      'DATABASE_URL / REDIS_URL unset: skipping the shared-store metering and Redis-shared cache rows',
    );
  }
  // Balances before (in memory, rebuilt at start from usage flushed every 500 ms) and after (each
  // debit committed to SQLite before forwarding, one transaction per event-loop turn), both with
  // their SQLite file on disk and the cache off.
  const memoryStores = inMemoryBalances(join(dir, 'before.db'));
  const closeStores = [memoryStores.close];
  const beforeUrl = await open('before', { networks: [network(false)] }, memoryStores);
  const afterUrl = await open('after', { networks: [network(false)], dataDir: join(dir, 'after') });
  const rows: Row[] = [];
  const measure = async (target: string, url: string, luaScript: string, clients: number) => {
    await wrk(url, clients, luaScript); // warm-up run, not recorded
    const result = await wrk(url, clients, luaScript);
    rows.push({ target, clients, ...result });
    console.log(
      `${target.padEnd(46)} c=${String(clients).padEnd(3)} ${result.rps.toFixed(0).padStart(7)} req/s  p50 ${result.p50.toFixed(3)} ms  p99 ${result.p99.toFixed(3)} ms`,
    );
  };
  try {
    for (const clients of [1, 64]) {
      // Alternated over ROUNDS rounds, each row the median round, so that both see the same machine.
      await wrk(beforeUrl, clients, script); // warm-up runs, not recorded
      await wrk(afterUrl, clients, script);
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
        const row: Row = {
          target,
          clients,
          rps: of('rps'),
          p50: of('p50'),
          p99: of('p99'),
          cpuUs: of('cpuUs'),
          cpuRange: [Math.min(...cpu), Math.max(...cpu)],
        };
        rows.push(row);
        console.log(
          `${target.padEnd(46)} c=${String(clients).padEnd(3)} ${rounds[target].map((r) => r.rps.toFixed(0)).join(' / ')} req/s, CPU ${rounds[target].map((r) => r.cpuUs.toFixed(1)).join(' / ')} µs per request`,
        );
      }
    }
    for (const { target, url, script: luaScript } of extra) await measure(target, url, luaScript, 64);
    for (const clients of CLIENTS) {
      for (const { target, url } of targets) {
        await measure(target, url, script, clients);
      }
    }
  } finally {
    nginx.stop();
    await stopWorkers();
    for (const gateway of gateways) await gateway.close();
    for (const close of closeStores) await close();
    await anvil.stop();
  }
  const debits = await benchDebits(join(dir, 'debits.db'));
  const solanaSections = await benchSolana(luaFor);
  const bodySections = await benchRequestBodies();
  writeFileSync(
    new URL('../docs/benchmarks.md', import.meta.url),
    report(rows, [...durableSection(rows, debits), ...solanaSections, '', ...bodySections]),
  );
  console.log('wrote docs/benchmarks.md');
}

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

function report(rows: Row[], extraSections: string[] = []): string {
  const find = (target: string, clients: number) =>
    rows.find((r) => r.target === target && r.clients === clients)!;
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  const lines = [
    '# Benchmarks',
    '',
    `Measured by \`npm run bench\` (scripts/bench.ts) on ${new Date().toISOString().slice(0, 10)}: ${cpus().length} × ${cpu}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB (${(freemem() / 2 ** 30).toFixed(0)} GiB free, load average ${loadavg()[0].toFixed(1)} at the end), Node ${process.version}, anvil 1.7.1, Debian nginx (1 worker, keep-alive upstream), wrk ${DURATION} s per row after a warm-up run. Load generator, proxy and anvil share the two cores; on a shared virtual machine runs vary by up to about 20 % from one to the next, so compare rows of one run.`,
    '',
    `Request: \`${BODY}\`; the gateway's cache is off and every request is authenticated, validated, charged and forwarded.`,
    '',
    '| target | clients | req/s | p50 ms | p99 ms |',
    '|---|---|---|---|---|',
    ...rows
      .filter((r) => ['anvil direct', 'nginx → anvil', 'Portico gateway → anvil'].includes(r.target))
      .map(
        (r) =>
          `| ${r.target} | ${r.clients} | ${r.rps.toFixed(0)} | ${r.p50.toFixed(3)} | ${r.p99.toFixed(3)} |`,
      ),
    '',
    '## What each hop adds (p50, against anvil direct)',
    '',
    '| clients | nginx adds ms | gateway adds ms | gateway / nginx throughput |',
    '|---|---|---|---|',
    ...CLIENTS.map((c) => {
      const a = find('anvil direct', c);
      const n = find('nginx → anvil', c);
      const g = find('Portico gateway → anvil', c);
      return `| ${c} | ${(n.p50 - a.p50).toFixed(3)} | ${(g.p50 - a.p50).toFixed(3)} | ${(g.rps / n.rps).toFixed(2)} |`;
    }),
    '',
    '## What limits the gateway',
    '',
    'The gateway is one Node.js process (one event loop, so at most one core) doing real work per request: HTTP parsing,',
    'key lookup (SHA-256), parameter rules, the atomic debit, the usage record, metrics, JSON parse and re-serialisation',
    'of the answer (to echo the id and shape reverts). Profiled (`node --cpu-prof`, 64 clients, this request), its largest',
    'single cost is writing answers to the sockets (`writev`, about 18 % of samples), then JSON serialisation (about 5 %)',
    "and the key's SHA-256 (about 2.5 %); the rest is spread thin over HTTP parsing, the pipeline's async steps, metrics",
    "and garbage collection. nginx, written in C and doing no per-request work beyond proxying, keeps most of anvil's",
    'throughput. The targets of the gateway issue (0.6 × nginx at 64 clients, < 0.5 ms added at p50 with 8 clients) are',
    'not met in this table. `portico start --workers 2` (row below; workers need the shared stores, so it compares with the',
    'Redis + PostgreSQL metering row) adds a second event loop: on this 2-core machine, shared with wrk and anvil, that',
    "buys about a quarter more throughput. Passing the upstream's answer bytes through with only the id spliced in,",
    'instead of parsing and re-serialising them, is the next step.',
    '',
    '## Cache hits and shared-store metering (64 clients)',
    '',
    'A finalized block by number is served from the cache (still authenticated and charged); the metering row runs the',
    'same request as the main table with keys in PostgreSQL and balances debited in Redis by a Lua script. The',
    'Redis-shared cache row reads the block from Redis (as several instances would share it) and meters in Redis too.',
    '',
    '| target | req/s | p50 ms | p99 ms |',
    '|---|---|---|---|',
    ...rows
      .filter(
        (r) =>
          !['anvil direct', 'nginx → anvil', 'Portico gateway → anvil', BEFORE, AFTER].includes(r.target),
      )
      .map((r) => `| ${r.target} | ${r.rps.toFixed(0)} | ${r.p50.toFixed(3)} | ${r.p99.toFixed(3)} |`),
    '',
    ...extraSections,
  ];
  return lines.join('\n');
}

await main();
