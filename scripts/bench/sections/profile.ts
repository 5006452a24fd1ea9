// The `profile` section: CPU profiles of `portico start` and the bare proxy under a distinct-miss run,
// and of a cache hit and the fixed-body floor, with the CPU time of each stage of a request.
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Anvil } from '@portico/devchain';
import { startPorticoProcess } from '../../portico-process.ts';
import { startChildServer } from '../child-server.ts';
import { BARE, DURATION, FINAL_BLOCK_BODY, FLOOR, log, WARMUP, wrk } from '../common.ts';
import { readProfile, type Stage, stageTimes, topSelfTime } from '../cpu-profile.ts';
import { type DistinctChain, distinctWorkloads } from '../distinct.ts';
import type { Results } from '../results.ts';
import { fixedBodyScript } from '../wrk.ts';

const dist = (part: string) => (frame: { url: string }) => frame.url.includes(`/dist/${part}`);
const nodeInternal = (prefixes: string[]) => (frame: { url: string }) =>
  prefixes.some((prefix) => frame.url.startsWith(prefix));

/**
 * The stages of a request as the profiles count them, innermost first where one calls another
 * (the socket writes inside an answer are socket writes). Anything else is event-loop and
 * Promise machinery, timers and V8's own work: `other`.
 */
export const STAGES: readonly Stage[] = [
  {
    name: 'socket writes and reads (kernel)',
    matches: (f) =>
      f.url === '' &&
      /^(writev|writeBuffer|writeUtf8String|writeLatin1String|readStop|readStart)$/.test(f.functionName),
  },
  { name: 'garbage collection', matches: (f) => f.functionName === '(garbage collector)' },
  {
    name: 'request body and JSON parsing',
    own: true,
    matches: (f) =>
      ['http/dist/body.js', 'rpc/exact-json.js', 'rpc/jsonrpc.js'].some((part) => f.url.includes(part)),
  },
  {
    name: 'API key check',
    own: true,
    matches: (f) => ['pipeline/admit.js', 'pipeline/authenticate.js', 'keys/'].some((part) => dist(part)(f)),
  },
  {
    name: 'method rules and credits',
    own: true,
    matches: (f) =>
      [
        'pipeline/handle-rpc.js',
        'pipeline/charge.js',
        'pipeline/enforce-settings.js',
        'pipeline/resolve-method.js',
        'methods/',
        'credits/',
      ].some((part) => dist(part)(f)),
  },
  {
    name: 'cache and merging',
    own: true,
    matches: (f) => ['pipeline/forward.js', 'cache/'].some((part) => dist(part)(f)),
  },
  {
    name: 'upstream HTTP client (undici)',
    matches: (f) => f.url.includes('/node_modules/undici/') || dist('upstream/')(f),
  },
  {
    name: 'the answer: result checked and spliced, headers',
    own: true,
    matches: (f) =>
      ['rpc/json-result.js', 'rpc/json-scan.js', 'http/respond.js'].some((part) => dist(part)(f)),
  },
  {
    name: 'usage and metrics',
    own: true,
    matches: (f) => ['usage/', 'observability/'].some((part) => dist(part)(f)),
  },
  {
    name: 'HTTP server (node:http, streams, sockets)',
    matches: (f) =>
      dist('http/server.js')(f) ||
      nodeInternal([
        'node:_http',
        'node:http',
        'node:internal/streams',
        'node:net',
        'node:internal/stream_base_commons',
      ])(f),
  },
];

/** Runs one workload against a process started with --cpu-prof; its profile of the run. */
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
  let requests = 0;
  try {
    await wrk(server.url, clients, script, WARMUP);
    window.from = now();
    const result = await wrk(server.url, clients, script);
    window.to = now();
    requests = result.requests;
    log(`${label} (--cpu-prof)`, clients, result);
  } finally {
    await server.stop();
  }
  const file = readdirSync(profileDir).find((name) => name.endsWith('.cpuprofile'));
  if (!file) throw new Error(`no CPU profile in ${profileDir}`);
  const profile = readProfile(join(profileDir, file));
  const stages: Record<string, number> = {};
  for (const [stage, us] of stageTimes(profile, window, STAGES)) stages[stage] = us / requests;
  return { ...topSelfTime(profile, window, 15), stages };
}

export async function profileSection(
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
  // A cache hit against the fixed-body floor answering the same bytes.
  const hitGateway = await startPorticoProcess({ upstream: anvil.url, dir, cache: true });
  let answer: string;
  try {
    answer = await (
      await fetch(hitGateway.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: FINAL_BLOCK_BODY,
      })
    ).text();
  } finally {
    await hitGateway.stop();
  }
  const answerFile = join(dir, 'profile-floor-body.json');
  writeFileSync(answerFile, answer);
  const hitScript = fixedBodyScript(dir, FINAL_BLOCK_BODY);
  const hit = await profiled(
    async (nodeArgs) => {
      const gateway = await startPorticoProcess({ upstream: anvil.url, dir, cache: true, nodeArgs });
      // The first answer fills the cache, before the warm-up.
      await fetch(gateway.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: FINAL_BLOCK_BODY,
      });
      return gateway;
    },
    'Portico cache hit (portico start)',
    hitScript,
    clients,
    dir,
  );
  const floor = await profiled(
    (nodeArgs) => startChildServer('./fixed-body-server.ts', [answerFile], nodeArgs),
    FLOOR,
    hitScript,
    clients,
    dir,
  );
  results.profile = {
    workload: workload.name,
    clients,
    ...gateway,
    bare,
    stages: { miss: gateway.stages, bare: bare.stages, hit: hit.stages, floor: floor.stages },
  };
  return [];
}

/** The stage table: CPU µs per request of each stage, miss and hit, against the bare proxy and the floor. */
function stageLines(stages: NonNullable<Results['profile']>['stages']): string[] {
  const columns = [stages.miss, stages.bare, stages.hit, stages.floor];
  const names = [...STAGES.map((stage) => stage.name), 'other'];
  const cell = (column: Record<string, number>, name: string) => (column[name] ?? 0).toFixed(1);
  const total = (column: Record<string, number>) =>
    Object.values(column)
      .reduce((a, b) => a + b, 0)
      .toFixed(1);
  return [
    `Where the CPU of one request goes, from the same kind of profiles: the distinct-miss run above and a cache-hit run (the finalized block of the cache-hit section, ${DURATION} s at the same client count), each against its reference in the same conditions, µs of CPU per request answered. A sample counts for the innermost stage on its stack (the socket writes inside an answer are socket writes); \`other\` is the event loop, Promise and timer machinery and V8's own work. The profiler itself slows every process by about a tenth: compare the columns, not the totals with the CPU columns of the tables below.`,
    '',
    '| stage | distinct miss: gateway | distinct miss: bare proxy | cache hit: gateway | fixed-body floor |',
    '|---|---|---|---|---|',
    ...names.map((name) => `| ${name} | ${columns.map((column) => cell(column, name)).join(' | ')} |`),
    `| **total** | ${columns.map(total).join(' | ')} |`,
    '',
  ];
}

export function profileLines(results: Results): string[] {
  const profile = results.profile;
  if (!profile) return [];
  return [
    ...stageLines(profile.stages),
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
