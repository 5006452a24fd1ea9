// npm run bench: throughput and latency of anvil direct, nginx (one worker, keep-alive upstream)
// in front of anvil, and the Portico gateway in front of anvil, measured with wrk in one run.
// Writes docs/benchmarks.md. Needs Debian's nginx and wrk (apt-get install -y nginx-light wrk).
import { execFile, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, freemem, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort, seedEvmChain, startAnvil } from '@portico/devchain';
import { parseConfig, startGateway } from '@portico/gateway';

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
  const script = join(dir, 'post.lua');
  writeFileSync(
    script,
    `wrk.method = "POST"\nwrk.body = '${BODY}'\nwrk.headers["Content-Type"] = "application/json"\n`,
  );

  const anvil = await startAnvil();
  await seedEvmChain(anvil.url);
  const nginx = await startNginx(anvil.port, dir);
  const gateway = await startGateway(
    parseConfig({
      port: 0,
      logLevel: 'warn',
      networks: [{ name: 'local', chainId: 'eip155:31337', upstreams: [anvil.url] }],
    }),
  );
  const { key } = await gateway.keys.create({ name: 'bench', dailyCredits: 1e15 });
  const targets = [
    { target: 'anvil direct', url: anvil.url },
    { target: 'nginx → anvil', url: nginx.url },
    { target: 'Portico gateway → anvil', url: `${gateway.networks[0].baseUrl}/v3/${key}` },
  ];
  const rows: Row[] = [];
  try {
    for (const clients of CLIENTS) {
      for (const { target, url } of targets) {
        await wrk(url, clients, script); // warm-up run, not recorded
        const result = await wrk(url, clients, script);
        rows.push({ target, clients, ...result });
        console.log(
          `${target.padEnd(26)} c=${String(clients).padEnd(3)} ${result.rps.toFixed(0).padStart(7)} req/s  p50 ${result.p50.toFixed(3)} ms  p99 ${result.p99.toFixed(3)} ms`,
        );
      }
    }
  } finally {
    nginx.stop();
    await gateway.close();
    await anvil.stop();
  }
  writeFileSync(new URL('../docs/benchmarks.md', import.meta.url), report(rows));
  console.log('wrote docs/benchmarks.md');
}

function report(rows: Row[]): string {
  const find = (target: string, clients: number) =>
    rows.find((r) => r.target === target && r.clients === clients)!;
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  const lines = [
    '# Benchmarks',
    '',
    `Measured by \`npm run bench\` (scripts/bench.ts) on ${new Date().toISOString().slice(0, 10)}: ${cpus().length} × ${cpu}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB (${(freemem() / 2 ** 30).toFixed(0)} GiB free), Node ${process.version}, anvil 1.7.1, Debian nginx (1 worker, keep-alive upstream), wrk ${DURATION} s per row after a warm-up run. Load generator, proxy and anvil share the two cores.`,
    '',
    `Request: \`${BODY}\`; the gateway's cache is off (it has none yet) and every request is authenticated, validated, charged and forwarded.`,
    '',
    '| target | clients | req/s | p50 ms | p99 ms |',
    '|---|---|---|---|---|',
    ...rows.map(
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
  ];
  return lines.join('\n');
}

await main();
