// Runs `portico start` as an operator would: the real command on a config file written for the test.
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const BIN = new URL('../bin/portico.mjs', import.meta.url).pathname;

export function writeConfig(dir: string, config: unknown, name = 'portico.json'): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(config, null, 2));
  return path;
}

/** Runs `portico start` with `args` until it exits; its exit code and output. */
export function startToExit(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, 'start', ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, PORTICO_AUTH_MASTER_KEY: '', PORTICO_ADMIN_TOKEN: '', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('exit', (status) => resolve({ status, stdout, stderr }));
  });
}

export type RunningStart = {
  child: ChildProcess;
  output: () => string;
  /** Waits for `pattern` in the output (or the process to exit first: an error with the output). */
  waitFor: (pattern: RegExp) => Promise<RegExpExecArray>;
  stop: () => Promise<number | null>;
};

/** Starts `portico start` with `args` in the background. */
export function startInBackground(args: string[], env: NodeJS.ProcessEnv = {}): RunningStart {
  const child = spawn(process.execPath, [BIN, 'start', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let output = '';
  const listeners = new Set<() => void>();
  const changed = () => {
    for (const listener of listeners) listener();
  };
  child.stdout?.on('data', (chunk) => {
    output += chunk;
    changed();
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
    changed();
  });
  child.on('exit', changed);
  return {
    child,
    output: () => output,
    waitFor: (pattern) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const found = pattern.exec(output);
          if (found) {
            listeners.delete(check);
            resolve(found);
          } else if (child.exitCode !== null) {
            listeners.delete(check);
            reject(new Error(`portico start exited (${child.exitCode}) before ${pattern}:\n${output}`));
          }
        };
        listeners.add(check);
        check();
      }),
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve(child.exitCode);
        child.once('exit', (code) => resolve(code));
        child.kill('SIGTERM');
      }),
  };
}
