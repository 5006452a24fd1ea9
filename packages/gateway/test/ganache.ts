// ganache 7.9.2 (a devDependency) as a second node implementation beside anvil: another EVM,
// another error dialect, methods it lacks (eth_getBlockReceipts). Started as a child process of
// this Node, stopped by its pid.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { DEV_MNEMONIC, freePort } from '@portico/devchain';

export type Ganache = { url: string; stop: () => Promise<void> };

export async function startGanache(chainId = 31337): Promise<Ganache> {
  const port = await freePort();
  const require = createRequire(import.meta.url);
  const cli = join(dirname(require.resolve('ganache/package.json')), 'dist', 'node', 'cli.js');
  const child = spawn(
    process.execPath,
    [
      cli,
      '--server.host',
      '127.0.0.1',
      '--server.port',
      String(port),
      '--chain.chainId',
      String(chainId),
      '--wallet.mnemonic',
      DEV_MNEMONIC,
      '--logging.quiet',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  // A test process that ends without stop() takes ganache with it.
  const onParentExit = () => child.kill('SIGKILL');
  process.once('exit', onParentExit);
  child.once('exit', () => process.removeListener('exit', onParentExit));
  let errors = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    errors = (errors + chunk.toString()).slice(-4000);
  });
  const url = `http://127.0.0.1:${port}`;
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 3000).unref();
    });
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`ganache exited with code ${child.exitCode}:\n${errors}`);
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}',
      });
      if (response.ok) return { url, stop };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await stop();
  throw new Error(`ganache did not start within 30 s:\n${errors}`);
}
