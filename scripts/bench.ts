// npm run bench: throughput and latency of anvil direct, nginx (one worker, keep-alive upstream)
// in front of anvil, and the Portico gateway in front of anvil, measured with wrk in one run.
// Writes docs/benchmarks.md. Needs Debian's nginx and wrk (apt-get install -y nginx-light wrk).
import { execFile, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, freemem, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { benchSolanaLedger, freePort, seedEvmChain, startAnvil, startSolanaLedger } from '@portico/devchain';
import { type Gateway, parseConfig, startGateway } from '@portico/gateway';
import { createTestClient, http } from 'viem';
import { foundry } from 'viem/chains';

const execFileAsync = promisify(execFile);

type Row = { target: string; clients: number; rps: number; p50: number; p99: number };

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

/** `portico start --workers N` as a user runs it, with a key of its own; resolves once it serves. */
async function startWorkers(count: number, upstream: string, dir: string, stores: Record<string, unknown>) {
  const adminToken = `bench-admin-${Date.now()}-token`;
  const config = join(dir, 'workers.json');
  writeFileSync(
    config,
    JSON.stringify({
      port: 0,
      adminToken,
      logLevel: 'warn',
      stores,
      networks: [{ name: 'local', chainId: 'eip155:31337', upstreams: [upstream], cache: false }],
    }),
  );
  const bin = new URL('../packages/cli/bin/portico.mjs', import.meta.url).pathname;
  const child = spawn(process.execPath, [bin, 'start', '--config', config, '--workers', String(count)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  const deadline = Date.now() + 60_000;
  let base: string | undefined;
  for (;;) {
    base = /(http:\/\/\S+)\/v3\/<API_KEY>/.exec(output)?.[1];
    if (base) break;
    if (child.exitCode !== null || Date.now() > deadline)
      throw new Error(`--workers did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const created = await fetch(`${new URL(base).origin}/admin/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench-workers', dailyCredits: 1e15 }),
  });
  const { key } = (await created.json()) as { key: string };
  return {
    url: `${base}/v3/${key}`,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

async function wrk(
  url: string,
  clients: number,
  script: string,
): Promise<{ rps: number; p50: number; p99: number }> {
  // Asynchronous on purpose: the gateway under test runs in this process and must keep serving.
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
  if (process.env.BENCH_DEBUG) console.log(out);
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
  const ms = (label: string) => {
    const match = new RegExp(`${label}\\s+([\\d.]+)(us|ms|s)`).exec(out);
    if (!match) return Number.NaN;
    const value = Number(match[1]);
    return match[2] === 'us' ? value / 1000 : match[2] === 's' ? value * 1000 : value;
  };
  const errors = /Non-2xx or 3xx responses: (\d+)/.exec(out);
  if (errors) throw new Error(`${url}: ${errors[1]} non-2xx responses`);
  return { rps, p50: ms('50%'), p99: ms('99%') };
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
  const open = async (label: string, config: Record<string, unknown>) => {
    const gateway = await startGateway(parseConfig({ port: 0, logLevel: 'warn', ...config }));
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
    const workers = await startWorkers(2, anvil.url, dir, {
      ...stores,
      redisKeyPrefix: `bench-workers-${Date.now()}:`,
    });
    stopWorkers = workers.stop;
    extra.push({ target: 'Portico gateway, `--workers 2`, shared stores', url: workers.url, script });
  } else {
    console.log(
      'DATABASE_URL / REDIS_URL unset: skipping the shared-store metering and Redis-shared cache rows',
    );
  }
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
    await anvil.stop();
  }
  const solanaSections = await benchSolana(luaFor);
  writeFileSync(new URL('../docs/benchmarks.md', import.meta.url), report(rows, solanaSections));
  console.log('wrote docs/benchmarks.md');
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
    `Measured by \`npm run bench\` (scripts/bench.ts) on ${new Date().toISOString().slice(0, 10)}: ${cpus().length} × ${cpu}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB (${(freemem() / 2 ** 30).toFixed(0)} GiB free), Node ${process.version}, anvil 1.7.1, Debian nginx (1 worker, keep-alive upstream), wrk ${DURATION} s per row after a warm-up run. Load generator, proxy and anvil share the two cores; on a shared virtual machine runs vary by up to about 20 % from one to the next, so compare rows of one run.`,
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
      .filter((r) => !['anvil direct', 'nginx → anvil', 'Portico gateway → anvil'].includes(r.target))
      .map((r) => `| ${r.target} | ${r.rps.toFixed(0)} | ${r.p50.toFixed(3)} | ${r.p99.toFixed(3)} |`),
    '',
    ...extraSections,
  ];
  return lines.join('\n');
}

await main();
