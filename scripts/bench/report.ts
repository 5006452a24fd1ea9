// The text of docs/benchmarks.md around the sections: the machine, the goals table and what limits
// each row.
import { cpus, freemem, loadavg, totalmem } from 'node:os';
import { ANVIL_VERSION } from '@portico/devchain';
import { DURATION, fmt, SECTIONS, WARMUP } from './common.ts';
import type { Results } from './results.ts';
import { profileLines } from './sections/profile.ts';

/** One-minute load average when the bench started (other work on the machine skews every row). */
const LOAD_AT_START = loadavg()[0];
const loadSamples: number[] = [LOAD_AT_START];
setInterval(() => loadSamples.push(loadavg()[0]), 10_000).unref();

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
    const { nginx, portico, porticoHead } = results.replay;
    for (const [config, run] of [
      ['defaults', portico],
      ['head tracked', porticoHead],
    ] as const) {
      const reduction = 1 - run.upstreamCalls / nginx.upstreamCalls;
      lines.push(
        `| real traffic (${config}): ≥ 60 % fewer upstream calls than nginx | ${(100 * reduction).toFixed(0)} % (${run.upstreamCalls} against ${nginx.upstreamCalls}) | ${yes(reduction >= 0.6)} |`,
        `| real traffic (${config}): lower p50 than nginx | ${fmt(run.p50)} ms against ${fmt(nginx.p50)} ms | ${yes(run.p50 < nginx.p50)} |`,
        `| real traffic (${config}): p99 no worse than nginx | ${fmt(run.p99)} ms against ${fmt(nginx.p99)} ms | ${yes(run.p99 <= nginx.p99)} |`,
      );
    }
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

export function report(results: Results, sections: string[]): string {
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
    '- **Shared stores**: every request pays a share of a Redis round trip for the debit (the debits of one',
    `  event-loop turn go in one Lua script call) on top of the work of the embedded row (${shared.rps.toFixed(0)} against ${embedded.rps.toFixed(0)} req/s); Redis and PostgreSQL run on the same two cores as everything else.`,
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
  "  `JSON.parse`, the parameter rules, the debit (in memory inside the key's reservation; a libsql commit,",
  '  synchronous on the event loop, only when the reservation grows), the metrics, the upstream call through',
  "  undici, and the node's answer parsed (`parseScanned`: rules read it) with its result text spliced after the",
  "  client's id (not serialised again), with the promise hops of the pipeline between them (`runMicrotasks`",
  '  in the profile). On two cores shared with wrk and anvil every one of these',
  '  microseconds is a microsecond the bare proxy spends forwarding instead, hence the ratio; the p50 added over',
  '  anvil is that work plus the wait for a core (the bare proxy alone adds a good part of it).',
  '- **Cache hits against the floor**: no upstream at all, so the ratio is the price of the per-request pipeline',
  '  (authentication, the debit, usage counts, metrics; the cached answer is written from its stored text',
  "  after the client's id) against a server that writes one precomputed buffer. Fewer promise hops per",
  '  request are what would close it.',
  '- **Real traffic**: the calls Portico saves come from merging identical requests in flight (head polls and',
  '  contract reads that arrive within the same 20 ms upstream round trip) and from cached receipts; requests',
  '  at `latest` and `eth_getLogs` are never cached, so each new head still costs',
  '  about one upstream call per distinct request and round trip. Latency is the 20 ms of the upstream plus each',
  '  hop: a request Portico merges or answers from its cache is faster than through nginx, every other one pays',
  "  the gateway's own work on top of nginx's, which decides the p50.",
  '',
];
