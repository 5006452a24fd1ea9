// What the sections of `npm run bench` share: run lengths, the requests, row labels, wrk with a
// warm-up, and number formatting.
import { runWrk, type WrkResult } from './wrk.ts';

export type Row = {
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

export const DURATION = Number(process.env.BENCH_SECONDS ?? '8');
export const WARMUP = Number(process.env.BENCH_WARMUP_SECONDS ?? '3');
export const CLIENTS = [1, 8, 64];
export const BODY = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'eth_getBlockByNumber',
  params: ['latest', false],
});
export const FINAL_BLOCK_BODY = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'eth_getBlockByNumber',
  params: ['0x1', false],
});

export const SECTIONS = [
  'latest',
  'debits',
  'ledgers',
  'stores',
  'distinct',
  'cache-hit',
  'replay',
  'traffic',
  'profile',
  'solana',
  'bodies',
];

export const ANVIL = 'anvil direct';
export const NGINX = 'nginx → anvil';
export const BARE = 'bare Node proxy → anvil';
export const GATEWAY = 'Portico gateway → anvil';
export const FLOOR = 'bare Node server, fixed body';
export const EMBEDDED_64 = 'Portico gateway, cache hit, embedded metering';
export const SHARED_METERING = 'Portico gateway, cache hit, Redis + PostgreSQL metering';
export const WORKERS = 'Portico gateway, cache hit, `--workers 2`, shared stores';

export function log(target: string, clients: number, r: WrkResult) {
  const cpu = r.targetCpuUs === undefined ? '' : `  ${r.targetCpuUs.toFixed(1)} µs CPU/request`;
  console.log(
    `${target.padEnd(52)} c=${String(clients).padEnd(3)} ${r.rps.toFixed(0).padStart(7)} req/s  p50 ${r.p50.toFixed(3)} ms  p99 ${r.p99.toFixed(3)} ms${cpu}`,
  );
}

/** A CPU-per-request figure for a table: µs, or — when the platform has no /proc. */
export const cpuOf = (r: WrkResult) => (r.targetCpuUs === undefined ? '—' : r.targetCpuUs.toFixed(1));

export function wrk(url: string, clients: number, script: string, seconds = DURATION, pid?: number) {
  return runWrk(url, clients, script, seconds, pid);
}

/** A warm-up run (not recorded), then the measured one; with `pid`, that process's CPU per request too. */
export async function measure(
  target: string,
  url: string,
  script: string,
  clients: number,
  pid?: number,
): Promise<WrkResult> {
  await wrk(url, clients, script, WARMUP);
  const result = await wrk(url, clients, script, DURATION, pid);
  log(target, clients, result);
  return result;
}

export const ratio = (a: number, b: number) => (a / b).toFixed(2);
export const fmt = (n: number) => n.toFixed(3);

export const ROUNDS = 3;
export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** A target of `alternate`: its address and, for a CPU column, its process. */
export type Alternated = { target: string; url: string; pid?: number };

/**
 * The targets in turn over `roundCount` rounds (after a warm-up run of each), so that every one sees the
 * same minutes of a shared machine; per target, each figure is the median of its rounds, and the
 * rounds themselves.
 */
export async function alternate(
  targets: Alternated[],
  clients: number,
  script: string,
  roundCount = ROUNDS,
): Promise<{ median: WrkResult; rounds: WrkResult[] }[]> {
  for (const { url } of targets) await wrk(url, clients, script, WARMUP);
  const rounds: WrkResult[][] = targets.map(() => []);
  for (let round = 0; round < roundCount; round++)
    for (const [i, { url, pid }] of targets.entries())
      rounds[i].push(await wrk(url, clients, script, DURATION, pid));
  return targets.map(({ target }, i) => {
    const of = (field: 'rps' | 'p50' | 'p99' | 'cpuUs' | 'requests') =>
      median(rounds[i].map((r) => r[field]));
    const targetCpu = rounds[i].flatMap((r) => (r.targetCpuUs === undefined ? [] : [r.targetCpuUs]));
    const result: WrkResult = {
      rps: of('rps'),
      p50: of('p50'),
      p99: of('p99'),
      cpuUs: of('cpuUs'),
      requests: of('requests'),
      ...(targetCpu.length ? { targetCpuUs: median(targetCpu) } : {}),
    };
    const cpus = rounds[i].map((r) => (r.targetCpuUs ?? r.cpuUs).toFixed(1));
    console.log(
      `${target.padEnd(52)} c=${String(clients).padEnd(3)} ${rounds[i].map((r) => r.rps.toFixed(0)).join(' / ')} req/s, CPU ${cpus.join(' / ')} µs per request`,
    );
    return { median: result, rounds: rounds[i] };
  });
}
