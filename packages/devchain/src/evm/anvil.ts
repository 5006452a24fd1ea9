import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** The pinned anvil version; the platform package of the same version carries the binary. */
export const ANVIL_VERSION = '1.7.1';

/** anvil's default mnemonic: its first ten accounts are the well-known dev accounts. */
export const DEV_MNEMONIC = 'test test test test test test test test test test test junk';

export type StartAnvilParameters = {
  /** TCP port; 0 (default) lets the OS pick a free one. */
  port?: number;
  /** Seconds between blocks; 0 mines one block per transaction. Default 0. */
  blockTime?: number;
  chainId?: number;
  mnemonic?: string;
  /** Extra command-line arguments passed to anvil as they are. */
  extraArgs?: string[];
  /** Called with every line anvil prints (for debugging). */
  onLog?: (line: string) => void;
};

export type Anvil = {
  url: string;
  wsUrl: string;
  port: number;
  chainId: number;
  pid: number;
  stop: () => Promise<void>;
};

const PLATFORM_PACKAGES: Record<string, string> = {
  'linux-x64': '@foundry-rs/anvil-linux-amd64',
  'linux-arm64': '@foundry-rs/anvil-linux-arm64',
  'darwin-x64': '@foundry-rs/anvil-darwin-amd64',
  'darwin-arm64': '@foundry-rs/anvil-darwin-arm64',
  'win32-x64': '@foundry-rs/anvil-win32-amd64',
};

/** Path of the anvil binary shipped in the platform package of `@foundry-rs/anvil`. */
export function anvilBinaryPath(): string {
  const pkg = PLATFORM_PACKAGES[`${process.platform}-${process.arch}`];
  if (!pkg) throw new Error(`anvil has no prebuilt binary for ${process.platform}-${process.arch}`);
  const require = createRequire(import.meta.url);
  const manifest = require.resolve(`${pkg}/package.json`, {
    paths: [dirname(require.resolve('@foundry-rs/anvil/package.json'))],
  });
  return join(dirname(manifest), 'bin', process.platform === 'win32' ? 'anvil.exe' : 'anvil');
}

/**
 * Starts anvil as a managed child process and resolves once it listens.
 *
 * A small shell watchdog runs beside it in the same process group: if this Node process dies
 * without calling `stop()` (SIGKILL, crash), the watchdog kills anvil within a second, so no
 * orphan is left behind.
 */
export async function startAnvil(parameters: StartAnvilParameters = {}): Promise<Anvil> {
  const chainId = parameters.chainId ?? 31337;
  const args = [
    '--host',
    '127.0.0.1',
    '--port',
    String(parameters.port ?? 0),
    '--chain-id',
    String(chainId),
    '--mnemonic',
    parameters.mnemonic ?? DEV_MNEMONIC,
    ...(parameters.blockTime ? ['--block-time', String(parameters.blockTime)] : []),
    ...(parameters.extraArgs ?? []),
  ];
  const quoted = [anvilBinaryPath(), ...args].map((a) => `'${a.replaceAll("'", `'\\''`)}'`).join(' ');
  const watchdog = `${quoted} & child=$!
trap 'kill $child 2>/dev/null; wait $child; exit 0' TERM INT
while kill -0 ${process.pid} 2>/dev/null && kill -0 $child 2>/dev/null; do sleep 1; done
kill $child 2>/dev/null; wait $child`;
  const child = spawn('sh', ['-c', watchdog], { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  child.unref();

  const port = await waitForListening(child, parameters.onLog);
  let stopped: Promise<void> | undefined;
  const stop = () => {
    stopped ??= new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      killGroup(child, 'SIGTERM');
      setTimeout(() => killGroup(child, 'SIGKILL'), 3000).unref();
    });
    return stopped;
  };
  const onParentExit = () => killGroup(child, 'SIGKILL');
  process.once('exit', onParentExit);
  child.once('exit', () => process.removeListener('exit', onParentExit));
  return {
    url: `http://127.0.0.1:${port}`,
    wsUrl: `ws://127.0.0.1:${port}`,
    port,
    chainId,
    pid: child.pid ?? 0,
    stop,
  };
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals) {
  try {
    if (child.pid) process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

function waitForListening(child: ChildProcess, onLog?: (line: string) => void): Promise<number> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => fail(new Error('anvil did not start within 20 s')), 20_000);
    const fail = (error: Error) => {
      clearTimeout(timer);
      killGroup(child, 'SIGKILL');
      reject(error);
    };
    const onData = (chunk: Buffer) => {
      const text = chunk.toString();
      output = (output + text).slice(-4000);
      if (onLog) for (const line of text.split('\n')) if (line.trim()) onLog(line);
      const match = /Listening on [\d.]+:(\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        child.stdout?.removeListener('data', onData);
        child.stdout?.resume();
        child.stderr?.resume();
        resolve(Number(match[1]));
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-4000);
    });
    child.once('exit', (code) =>
      fail(new Error(`anvil exited with code ${code} before listening:\n${output}`)),
    );
  });
}
