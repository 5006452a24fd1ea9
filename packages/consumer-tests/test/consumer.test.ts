// The packages as an app gets them: built, packed, installed by name into a fresh project outside
// the repository (no workspace links, no parent node_modules), then used from plain Node, from a
// strict TypeScript check, from a browser bundle in Chromium, and through the installed CLI.
import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { launchChromium, tempDir } from '@portico/testkit';
import type { Browser } from 'playwright-core';
import { type LocalRegistry, type PackedPackage, startLocalRegistry } from './local-registry.ts';

const ROOT = new URL('../../../', import.meta.url).pathname;
const FIXTURE = new URL('../fixture/', import.meta.url).pathname;
const run = promisify(execFile);
const CLIENT_ID = 'BHr_dKcxC0ecKn_2dZQmQeNdjPgWykMkcodEHkVvPMo71qzOV6SgtoN8KCvFdLN7bf34JOm89vWQMLFmSfIo84A';

/** Every package that is not private: all are packed and served. */
const PUBLIC_PACKAGES = readdirSync(join(ROOT, 'packages'))
  .map((dir) => JSON.parse(readFileSync(join(ROOT, 'packages', dir, 'package.json'), 'utf8')))
  .filter((pkg) => !pkg.private)
  .map((pkg) => pkg.name as string);

const rootPackage = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const authPackage = JSON.parse(readFileSync(join(ROOT, 'packages/auth/package.json'), 'utf8'));
const reactPackage = JSON.parse(readFileSync(join(ROOT, 'packages/react/package.json'), 'utf8'));
/** What the app installs by name; each brings its own @portico dependencies from the registry. */
const APP_DEPENDENCIES = ['@portico/auth', '@portico/multichain', '@portico/cli', '@portico/react'];
/** The app's React, at the versions the repository locks (so npm's cache has them). */
const APP_THIRD_PARTY = {
  react: reactPackage.devDependencies.react,
  'react-dom': reactPackage.devDependencies['react-dom'],
};
/** Tools of the app, at the versions the repository locks. */
const APP_DEV_DEPENDENCIES = {
  typescript: rootPackage.devDependencies.typescript,
  '@types/node': rootPackage.devDependencies['@types/node'],
  '@types/react': reactPackage.devDependencies['@types/react'],
  esbuild: authPackage.devDependencies.esbuild,
};

/** The environment of `npm test` without npm's own variables, which would steer a nested npm. */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name) && name !== 'INIT_CWD'),
  );
}

async function packAll(destination: string): Promise<PackedPackage[]> {
  const workspaces = PUBLIC_PACKAGES.flatMap((name) => ['-w', name]);
  const { stdout } = await run(
    'npm',
    ['pack', ...workspaces, '--pack-destination', destination, '--ignore-scripts', '--json'],
    { cwd: ROOT, env: cleanEnv(), maxBuffer: 64 << 20 },
  );
  return JSON.parse(stdout) as PackedPackage[];
}

/** Starts `npx portico dev` in the app folder and waits for its --config-out file. */
async function startPorticoDev(
  app: string,
): Promise<{ child: ChildProcess; config: DevConfig; output: () => string }> {
  const configPath = join(app, 'portico.json');
  const child = spawn(
    'npx',
    [
      'portico',
      'dev',
      '--port',
      '0',
      '--data-dir',
      join(app, '.portico'),
      '--config-out',
      configPath,
      '--wallet-auto-approve',
    ],
    { cwd: app, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'], detached: true },
  );
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const deadline = Date.now() + 120_000;
  while (!existsSync(configPath) || !output.includes('Try:')) {
    if (child.exitCode !== null) throw new Error(`portico dev exited early:\n${output}`);
    if (Date.now() > deadline) throw new Error(`portico dev did not start within 120 s:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { child, config: JSON.parse(readFileSync(configPath, 'utf8')), output: () => output };
}

type DevConfig = {
  apiKey: string;
  networks: Record<string, { rpcUrl: string }>;
  wallet: { wsUrl: string };
  auth: { sdkUrl: string };
};

function filesUnder(dir: string, suffix: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(suffix))
    .map((entry) => join(entry.parentPath, entry.name));
}

describe('the packed packages installed into an app outside the repository', () => {
  const work = tempDir('portico-consumer-');
  const app = join(work.path, 'app');
  let registry: LocalRegistry;
  let installOutput = '';
  let dev: Awaited<ReturnType<typeof startPorticoDev>> | undefined;
  let browser: Browser | undefined;
  let pageServer: Server | undefined;

  before(async () => {
    await run(process.execPath, [join(ROOT, 'scripts/build.mjs')], { cwd: ROOT });
    const tarballs = join(work.path, 'tarballs');
    mkdirSync(tarballs);
    const packed = await packAll(tarballs);
    assert.deepEqual(packed.map((p) => p.name).sort(), [...PUBLIC_PACKAGES].sort());
    registry = await startLocalRegistry(tarballs, packed);
    const version = new Map(packed.map((p) => [p.name, p.version]));

    cpSync(FIXTURE, app, { recursive: true });
    writeFileSync(join(app, '.npmrc'), `@portico:registry=${registry.url}\n`);
    writeFileSync(
      join(app, 'package.json'),
      JSON.stringify({
        name: 'portico-consumer',
        private: true,
        type: 'module',
        dependencies: {
          ...Object.fromEntries(APP_DEPENDENCIES.map((name) => [name, version.get(name)])),
          ...APP_THIRD_PARTY,
        },
        devDependencies: APP_DEV_DEPENDENCIES,
        // What the README tells Node 20 users: @solana/errors pins commander 15 (Node ≥ 22) for its
        // own CLI, which Portico never runs; 14 declares Node 20.
        overrides: { '@solana/errors': { commander: '14.0.3' } },
      }),
    );
    const install = await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund'], {
      cwd: app,
      env: cleanEnv(),
      maxBuffer: 64 << 20,
    });
    installOutput = install.stdout + install.stderr;
    dev = await startPorticoDev(app);
  });

  after(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => (pageServer ? pageServer.close(() => resolve()) : resolve()));
    if (dev && dev.child.exitCode === null) {
      const exited = new Promise((resolve) => dev?.child.once('exit', resolve));
      process.kill(-(dev.child.pid as number), 'SIGTERM');
      await exited;
    }
    await registry?.close();
    // The app's node_modules is ~280 MB; removing it takes up to a minute on a busy disk, so a
    // detached rm does it after the test has finished.
    spawn('rm', ['-rf', work.path], { detached: true, stdio: 'ignore' }).unref();
  });

  test('npm installs them on Node 20 without an engine warning, and without tsx', () => {
    assert.doesNotMatch(installOutput, /EBADENGINE/, installOutput);
    assert.ok(existsSync(join(app, 'node_modules/@portico/cli/dist/bin.js')));
    assert.equal(existsSync(join(app, 'node_modules/tsx')), false, 'tsx must not be installed for the CLI');
  });

  test('the published declarations name no source file and no repository condition', () => {
    for (const name of PUBLIC_PACKAGES) {
      const dist = join(app, 'node_modules', name, 'dist');
      for (const file of filesUnder(dist, '.d.ts')) {
        const text = readFileSync(file, 'utf8');
        assert.doesNotMatch(text, /\/src\/|@portico\/source|\.ts['"]/, file);
      }
    }
  });

  test('npx portico dev answers eth_blockNumber through the gateway', async () => {
    assert.ok(dev);
    const response = await fetch(dev.config.networks.local.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }),
    });
    assert.equal(response.status, 200);
    const body = (await response.json()) as { result?: string };
    assert.match(body.result ?? '', /^0x[0-9a-f]+$/);
    assert.ok(Number(body.result) > 0, 'the seeded chain has blocks');
  });

  test('the installed CLI lists the dev key with portico keys', async () => {
    assert.ok(dev);
    const { stdout } = await run(
      'npx',
      ['portico', 'keys', 'list', '--json', '--data-dir', join(app, '.portico')],
      {
        cwd: app,
        env: cleanEnv(),
      },
    );
    const { keys } = JSON.parse(stdout) as { keys: { prefix: string; revokedAt: string | null }[] };
    assert.ok(
      keys.some((key) => dev?.config.apiKey.startsWith(key.prefix) && key.revokedAt === null),
      stdout,
    );
  });

  test('plain Node ESM imports @portico/auth and the multichain client and calls portico dev', async () => {
    const { stdout } = await run(process.execPath, ['node-app.mjs', 'portico.json'], {
      cwd: app,
      env: cleanEnv(),
    });
    const result = JSON.parse(stdout);
    assert.equal(result.loggedIn, false);
    assert.equal(result.staleSessionForgotten, true, 'the auth service was asked about the stored session');
    assert.ok(result.accounts.length > 0, 'the wallet granted accounts');
    assert.match(result.blockNumber, /^0x[0-9a-f]+$/);
    assert.equal(result.nodeEntries, true);
  });

  test('plain Node renders @portico/react on the server: the loading state, no instance made', async () => {
    assert.ok(dev);
    const { stdout } = await run(process.execPath, ['node-react.mjs', dev.config.auth.sdkUrl], {
      cwd: app,
      env: cleanEnv(),
    });
    assert.deepEqual(JSON.parse(stdout), { html: '<p>loading no provider</p>' });
  });

  test('a strict nodenext TypeScript check of the public types passes without skipLibCheck', async () => {
    const tsc = join(app, 'node_modules/typescript/bin/tsc');
    const result = await run(
      process.execPath,
      [tsc, '--noEmit', '--strict', '--module', 'nodenext', 'types-node.ts'],
      {
        cwd: app,
      },
    ).catch((error: { stdout: string }) => ({ stdout: error.stdout, failed: true }));
    assert.equal('failed' in result, false, result.stdout);
  });

  test('a browser bundle of @portico/auth and @portico/multichain reads wallet_getSession in Chromium', async () => {
    assert.ok(dev);
    // Type-checked as a Vite app would be: bundler resolution, the DOM, no Node types.
    writeFileSync(
      join(app, 'tsconfig.browser.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'ESNext',
          moduleResolution: 'bundler',
          lib: ['ES2023', 'DOM'],
          types: [],
          strict: true,
          noEmit: true,
          skipDefaultLibCheck: true,
        },
        files: ['page.ts'],
      }),
    );
    const tsc = join(app, 'node_modules/typescript/bin/tsc');
    const check = await run(process.execPath, [tsc, '-p', 'tsconfig.browser.json'], { cwd: app }).catch(
      (error: { stdout: string }) => ({ stdout: error.stdout, failed: true }),
    );
    assert.equal('failed' in check, false, check.stdout);

    const esbuild = join(app, 'node_modules/.bin/esbuild');
    await run(
      esbuild,
      [
        'page.ts',
        '--bundle',
        '--platform=browser',
        '--format=esm',
        '--outfile=public/page.js',
        '--metafile=meta.json',
      ],
      { cwd: app },
    );
    const inputs = Object.keys(JSON.parse(readFileSync(join(app, 'meta.json'), 'utf8')).inputs);
    const nodeOnly = inputs.filter((input) => /node_modules\/(ws|pg|libsql|pino|undici)\//.test(input));
    assert.deepEqual(nodeOnly, [], 'the browser bundle reaches Node-only packages');
    // The schema builders come from @portico/http's browser-safe subpath, never its Node entry.
    const fromHttp = inputs.filter((input) => input.includes('node_modules/@portico/http/'));
    assert.deepEqual(fromHttp, ['node_modules/@portico/http/dist/schema.js']);

    const config = { clientId: CLIENT_ID, sdkUrl: dev.config.auth.sdkUrl, wsUrl: dev.config.wallet.wsUrl };
    const bundle = readFileSync(join(app, 'public/page.js'));
    pageServer = createServer((req, res) => {
      if (req.url === '/page.js') {
        res.writeHead(200, { 'content-type': 'text/javascript' }).end(bundle);
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        `<!doctype html><title>dapp</title><script type="application/json" id="config">${JSON.stringify(config)}</script>` +
          '<script type="module" src="/page.js"></script>',
      );
    });
    await new Promise<void>((resolve) => pageServer?.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}`;

    browser = await launchChromium();
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(origin);
    await page.waitForFunction(() => 'porticoResult' in window);
    const result = await page.evaluate(() => window.porticoResult);
    assert.deepEqual(errors, []);
    assert.equal(result.authReady, true);
    const scope = result.read.sessionScopes['eip155:31337'];
    assert.ok(scope, JSON.stringify(result.read));
    assert.ok(scope.methods.includes('eth_blockNumber'));
    assert.deepEqual(scope.accounts, result.created.sessionScopes['eip155:31337']?.accounts);
    assert.ok(scope.accounts.length > 0);
  });
});

declare global {
  interface Window {
    porticoResult: Promise<{
      authReady: boolean;
      created: { sessionScopes: Record<string, { accounts: string[] }> };
      read: { sessionScopes: Record<string, { methods: string[]; accounts: string[] }> };
    }>;
  }
}
