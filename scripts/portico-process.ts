// `portico start` as a user runs it, in a process of its own, for the benchmarks: the built package
// (packages/cli/dist, compiled JavaScript), not the TypeScript sources; `npm run bench` builds first.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export type PorticoProcess = {
  /** RPC address of the `local` network with a key of its own. */
  url: string;
  pid: number;
  stop: () => Promise<void>;
};

/**
 * Starts `portico start` (with `--workers N` when `workers` is given) in front of `upstream`, with
 * the config written to `dir`, creates a key through the admin API and resolves once it serves.
 */
export async function startPorticoProcess(options: {
  upstream: string;
  dir: string;
  workers?: number;
  stores?: Record<string, unknown>;
  /** The response cache of the `local` network; default off. */
  cache?: boolean;
  /** More settings of the `local` network (e.g. `blockTags`, `headPollMs`). */
  network?: Record<string, unknown>;
  /** Arguments for node itself, before the script (for example `--cpu-prof`). */
  nodeArgs?: string[];
}): Promise<PorticoProcess> {
  const adminToken = `bench-admin-${Date.now()}-token`;
  const config = join(options.dir, `portico-${Date.now()}.json`);
  writeFileSync(
    config,
    JSON.stringify({
      port: 0,
      adminToken,
      logLevel: 'warn',
      ...(options.stores ? { stores: options.stores } : {}),
      networks: [
        {
          name: 'local',
          chainId: 'eip155:31337',
          upstreams: [options.upstream],
          cache: options.cache ?? false,
          ...options.network,
        },
      ],
    }),
  );
  const bin = new URL('../packages/cli/dist/bin.js', import.meta.url).pathname;
  const workers = options.workers === undefined ? [] : ['--workers', String(options.workers)];
  const child = spawn(
    process.execPath,
    [...(options.nodeArgs ?? []), bin, 'start', '--config', config, ...workers],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  const deadline = Date.now() + 60_000;
  let base: string | undefined;
  for (;;) {
    base = /(http:\/\/\S+)\/v3\/<API_KEY>/.exec(output)?.[1];
    if (base) break;
    if (child.exitCode !== null || Date.now() > deadline)
      throw new Error(`portico start did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const created = await fetch(`${new URL(base).origin}/admin/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench', dailyCredits: 1e15 }),
  });
  const { key } = (await created.json()) as { key: string };
  return {
    url: `${base}/v3/${key}`,
    pid: child.pid!,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
