// The `profile` section: CPU profiles of `portico start` and the bare proxy under a distinct-miss run.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Anvil } from '@portico/devchain';
import { startPorticoProcess } from '../../portico-process.ts';
import { startChildServer } from '../child-server.ts';
import { BARE, DURATION, log, WARMUP, wrk } from '../common.ts';
import { topSelfTime } from '../cpu-profile.ts';
import { type DistinctChain, distinctWorkloads } from '../distinct.ts';
import type { Results } from '../results.ts';

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
  results.profile = { workload: workload.name, clients, ...gateway, bare };
  return [];
}

export function profileLines(results: Results): string[] {
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
