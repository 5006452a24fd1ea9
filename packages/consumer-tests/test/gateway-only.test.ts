// The README's install path before the packages are on the registry: `npm run pack` writes the
// tarballs and the `npm install` lines; an operator who runs only the gateway installs its line
// into an empty folder and runs `portico-gateway` against a node (anvil here).
import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { type Anvil, startAnvil } from '@portico/devchain';
import { tempDir } from '@portico/testkit';

const ROOT = new URL('../../../', import.meta.url).pathname;
const run = promisify(execFile);
const ADMIN_TOKEN = 'gateway-only-admin-token';
/** What the gateway-only install must not bring: dev chains, the browser and the other services. */
const NOT_FOR_THE_GATEWAY = [
  '@foundry-rs/anvil',
  'litesvm',
  'playwright-core',
  'uplot',
  '@portico/cli',
  '@portico/devchain',
  '@portico/dashboard',
  '@portico/wallet',
  '@portico/auth-server',
  '@portico/auth',
];

/** The environment of `npm test` without npm's own variables, which would steer a nested npm. */
const cleanEnv = (): NodeJS.ProcessEnv =>
  Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name) && name !== 'INIT_CWD'),
  );

/** The README's package.json for Node 20 (@solana/errors pins commander 15, Node ≥ 22, for a CLI Portico never runs). */
const appPackage = (name: string) =>
  JSON.stringify({ name, private: true, overrides: { '@solana/errors': { commander: '14.0.3' } } });

const npmInstall = (line: string, cwd: string, extra: string[] = []) => {
  const [npm, install, ...tarballs] = line.split(' ');
  assert.deepEqual([npm, install], ['npm', 'install']);
  return run('npm', ['install', ...tarballs, '--prefer-offline', '--no-audit', '--no-fund', ...extra], {
    cwd,
    env: cleanEnv(),
    maxBuffer: 64 << 20,
  });
};

describe('npm run pack, then the gateway alone installed from its line', { timeout: 600_000 }, () => {
  const work = tempDir('portico-gateway-only-');
  const app = join(work.path, 'ops');
  let lines: { tarballs: string[]; full: string; gateway: string };
  let installOutput = '';
  let anvil: Anvil;
  let gateway: ChildProcess | undefined;

  before(async () => {
    const { stdout } = await run(
      process.execPath,
      [join(ROOT, 'scripts/pack.mjs'), '--out', join(work.path, 'packed'), '--json'],
      { cwd: ROOT, env: cleanEnv(), maxBuffer: 64 << 20 },
    );
    lines = JSON.parse(stdout);
    await run('mkdir', ['-p', app]);
    writeFileSync(join(app, 'package.json'), appPackage('ops'));
    const install = await npmInstall(lines.gateway, app);
    installOutput = install.stdout + install.stderr;
    anvil = await startAnvil();
  });

  after(async () => {
    if (gateway && gateway.exitCode === null) gateway.kill('SIGKILL');
    const keepAlive = setInterval(() => {}, 1000);
    await anvil?.stop();
    clearInterval(keepAlive);
    // node_modules is ~150 MB: removed in the background after the test.
    spawn('rm', ['-rf', work.path], { detached: true, stdio: 'ignore' }).unref();
  });

  test('pack writes every tarball and INSTALL.txt with both lines', () => {
    const installTxt = readFileSync(join(work.path, 'packed/INSTALL.txt'), 'utf8');
    assert.ok(installTxt.includes(lines.full) && installTxt.includes(lines.gateway));
    for (const tarball of lines.tarballs) {
      assert.ok(existsSync(tarball), tarball);
      assert.ok(lines.full.includes(tarball), `the full line installs ${tarball}`);
    }
    assert.deepEqual(
      lines.gateway
        .split(' ')
        .slice(2)
        .map((path) => path.replace(/^.*\/portico-(.*)-\d+\.\d+\.\d+\.tgz$/, '$1')),
      ['gateway', 'http', 'store-schema'],
    );
  });

  test('the gateway line installs portico-gateway without dev chains or browser code, on Node 20 without engine warnings', async () => {
    assert.doesNotMatch(installOutput, /EBADENGINE|E404/, installOutput);
    assert.ok(existsSync(join(app, 'node_modules/.bin/portico-gateway')));
    for (const name of NOT_FOR_THE_GATEWAY)
      assert.equal(existsSync(join(app, 'node_modules', name)), false, `${name} is installed`);
    const { stdout } = await run('du', ['-sm', join(app, 'node_modules')]);
    console.log(`gateway-only install: ${stdout.split('\t')[0]} MB on disk`);
  });

  test('the full line resolves every @portico package from its tarball, none from the registry', async () => {
    const dir = join(work.path, 'app');
    await run('mkdir', ['-p', dir]);
    writeFileSync(join(dir, 'package.json'), appPackage('app'));
    // The resolution alone (a lockfile): installing it all is what consumer.test.ts does.
    await npmInstall(lines.full, dir, ['--package-lock-only']);
    const lock = JSON.parse(readFileSync(join(dir, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { resolved?: string }>;
    };
    const portico = Object.entries(lock.packages).filter(([path]) =>
      /node_modules\/@portico\/[^/]+$/.test(path),
    );
    assert.equal(portico.length, lines.tarballs.length);
    for (const [path, entry] of portico) assert.match(entry.resolved ?? '', /^file:.*\.tgz$/, path);
  });

  test('portico-gateway serves a network from a config, with keys made through the admin API', async () => {
    const version = (await run(join(app, 'node_modules/.bin/portico-gateway'), ['--version'])).stdout.trim();
    assert.equal(
      version,
      JSON.parse(readFileSync(join(ROOT, 'packages/gateway/package.json'), 'utf8')).version,
    );

    writeFileSync(
      join(app, 'portico.yaml'),
      [
        'port: 0',
        'dataDir: ./data',
        `adminToken: \${PORTICO_ADMIN_TOKEN}`,
        'networks:',
        '  - name: local',
        '    chainId: eip155:31337',
        `    upstreams: [${anvil.url}]`,
        '',
      ].join('\n'),
    );
    gateway = spawn(join(app, 'node_modules/.bin/portico-gateway'), ['--config', 'portico.yaml'], {
      cwd: app,
      env: { ...cleanEnv(), PORTICO_ADMIN_TOKEN: ADMIN_TOKEN },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    gateway.stdout?.on('data', (chunk) => (output += chunk));
    gateway.stderr?.on('data', (chunk) => (output += chunk));
    const banner = /^local\s+eip155:31337\s+(http:\/\/127\.0\.0\.1:\d+\/local)\/v3\/<API_KEY>$/m;
    const deadline = Date.now() + 60_000;
    while (!banner.test(output)) {
      assert.equal(gateway.exitCode, null, `portico-gateway exited:\n${output}`);
      assert.ok(Date.now() < deadline, `no banner within 60 s:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const baseUrl = (banner.exec(output) as RegExpExecArray)[1];
    const origin = new URL(baseUrl).origin;

    const created = await fetch(`${origin}/admin/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'ops' }),
    });
    assert.equal(created.status, 201);
    const { key } = (await created.json()) as { key: string };
    const answer = await fetch(`${baseUrl}/v3/${key}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
    });
    assert.deepEqual(await answer.json(), { jsonrpc: '2.0', id: 1, result: '0x7a69' });

    const exited = new Promise<number | null>((resolve) => gateway?.once('exit', resolve));
    gateway.kill('SIGTERM');
    assert.equal(await exited, 0, output);
  });

  test('a bad config stops portico-gateway with one line and exit code 2', async () => {
    writeFileSync(join(app, 'bad.yaml'), 'networks: []\n');
    const failed = await run(join(app, 'node_modules/.bin/portico-gateway'), ['--config', 'bad.yaml'], {
      cwd: app,
    }).catch((error: { code: number; stderr: string }) => error);
    assert.ok('code' in failed);
    assert.equal(failed.code, 2);
    assert.equal(failed.stderr, 'portico-gateway: config.networks must be a non-empty list\n');
  });
});
