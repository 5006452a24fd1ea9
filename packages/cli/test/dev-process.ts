// `portico dev` started as a user starts it (the CLI in a process of its own), for the CLI tests.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DevConfigOut } from '../src/dev-config-out.ts';

export const BIN = new URL('../bin/portico.mjs', import.meta.url).pathname;

export type Running = { child: ChildProcess; config: DevConfigOut; output: () => string };

/** Starts `portico dev` as a user would and waits for its --config-out file. */
export async function startDev(dataDir: string, extra: string[] = []): Promise<Running> {
  const configPath = join(dataDir, `config-${Date.now()}.json`);
  const child = spawn(
    process.execPath,
    [BIN, 'dev', '--port', '0', '--data-dir', dataDir, '--config-out', configPath, ...extra],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout?.on('data', (c) => (output += c));
  child.stderr?.on('data', (c) => (output += c));
  // Generous: a loaded 2-core machine has taken over a minute to start everything.
  const deadline = Date.now() + 180_000;
  while (!existsSync(configPath) || !output.includes('Try:')) {
    if (child.exitCode !== null) throw new Error(`portico dev exited early:\n${output}`);
    if (Date.now() > deadline) {
      // The caller never gets the child to stop: stop it here, or it keeps the test file alive.
      child.kill('SIGKILL');
      throw new Error(`portico dev did not start:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { child, config: JSON.parse(readFileSync(configPath, 'utf8')), output: () => output };
}
