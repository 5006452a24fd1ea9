// Starts one of the small servers of scripts/bench/ in a process of its own and waits for the
// "listening PORT" line it prints.
import { spawn } from 'node:child_process';

export type ChildServer = { url: string; pid: number; stop: () => Promise<void> };

export async function startChildServer(
  script: string,
  args: string[],
  nodeArgs: string[] = [],
): Promise<ChildServer> {
  const path = new URL(script, import.meta.url).pathname;
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', path, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const match = /listening (\d+)/.exec(output);
      if (match) resolve(Number(match[1]));
    });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}: ${output}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/`,
    pid: child.pid!,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
