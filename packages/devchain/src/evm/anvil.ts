import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, existsSync, openSync } from 'node:fs';
import { createRequire } from 'node:module';
import { type AddressInfo, createServer } from 'node:net';
import { dirname, join } from 'node:path';

/** The pinned anvil version; the platform package of the same version carries the binary. */
export const ANVIL_VERSION = '1.7.1';

/** anvil's default mnemonic: its first ten accounts are the well-known dev accounts. */
export const DEV_MNEMONIC = 'test test test test test test test test test test test junk';

export type StartAnvilParameters = {
  /** TCP port; 0 (default) picks a free one. */
  port?: number;
  /** Seconds between blocks; 0 mines one block per transaction. Default 0. */
  blockTime?: number;
  chainId?: number;
  mnemonic?: string;
  /** Extra command-line arguments passed to anvil as they are. */
  extraArgs?: string[];
  /** Called with every line anvil prints (for debugging; costs a pipe read per request). */
  onLog?: (line: string) => void;
  /** File that receives anvil's output; default: discarded. */
  logFile?: string;
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

/**
 * Path of the anvil binary shipped in the platform package of `@foundry-rs/anvil`. The platform
 * package is looked up from `@foundry-rs/anvil`'s own folder, so it is found whether npm hoisted it
 * beside Portico or nested it (a global install, npx, another app's node_modules). When the
 * optional platform package was not installed, `@foundry-rs/anvil`'s postinstall fetched the same
 * binary from the npm registry into its own folder; that copy is used then.
 */
export function anvilBinaryPath(): string {
  const pkg = PLATFORM_PACKAGES[`${process.platform}-${process.arch}`];
  if (!pkg) throw new Error(`anvil has no prebuilt binary for ${process.platform}-${process.arch}`);
  const require = createRequire(import.meta.url);
  const anvilDir = dirname(require.resolve('@foundry-rs/anvil/package.json'));
  const binary = process.platform === 'win32' ? 'anvil.exe' : 'anvil';
  try {
    return join(dirname(require.resolve(`${pkg}/package.json`, { paths: [anvilDir] })), 'bin', binary);
  } catch {
    const fallback = join(anvilDir, binary);
    if (existsSync(fallback)) return fallback;
    throw new Error(
      `the anvil binary is missing: neither ${pkg} nor @foundry-rs/anvil's postinstall copy is installed ` +
        '(reinstall without --omit=optional and without --ignore-scripts)',
    );
  }
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
  const port = parameters.port || (await freePort());
  const args = [
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
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
  // anvil prints a line per request: unless asked for, its output goes to a file or nowhere, so
  // this process never spends time reading it (and anvil never blocks on a full pipe).
  const logFd = parameters.logFile ? openSync(parameters.logFile, 'a') : 'ignore';
  const stdout = parameters.onLog ? 'pipe' : logFd;
  const child = spawn('sh', ['-c', watchdog], { detached: true, stdio: ['ignore', stdout, 'pipe'] });
  child.unref();
  if (typeof logFd === 'number') closeSync(logFd);
  const onLog = parameters.onLog;
  if (onLog) {
    child.stdout?.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n')) if (line.trim()) onLog(line);
    });
  }

  await waitForListening(child, port);
  let stopped: Promise<void> | undefined;
  const stop = () => {
    stopped ??= new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      // The child is unref'd so it never keeps the process alive; while stopping, it must.
      child.ref();
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

/** Polls anvil's port with eth_chainId until it answers (or anvil exits, or 20 s pass). */
async function waitForListening(child: ChildProcess, port: number): Promise<void> {
  let errorOutput = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    errorOutput = (errorOutput + chunk.toString()).slice(-4000);
  });
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`anvil exited with code ${child.exitCode} before listening:\n${errorOutput}`);
    try {
      const response = await fetch(`http://127.0.0.1:${port}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}',
      });
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  killGroup(child, 'SIGKILL');
  throw new Error(`anvil did not start within 20 s:\n${errorOutput}`);
}

/** A TCP port that is free right now on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
