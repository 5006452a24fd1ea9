// `portico start --workers N`: N gateway processes on one port, sharing PostgreSQL and Redis, run
// as a user would run them (the real command, a real anvil, real services).
import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type Anvil, startAnvil } from '@portico/devchain';
import { serviceUrl, tempDir } from '@portico/testkit';
import { dropPrefix, freshPrefix, freshSchema } from '../../gateway/test/shared-services.ts';

const BIN = new URL('../bin/portico.mjs', import.meta.url).pathname;
const ADMIN_TOKEN = 'workers-admin-token-0123456789';
const database = serviceUrl('DATABASE_URL');
const redis = serviceUrl('REDIS_URL');
const skip = database.skip || redis.skip;

/** The worker processes of a supervisor (its direct children running node). */
function workersOf(pid: number): number[] {
  try {
    // By command line: Node 24 names its main thread MainThread, so `comm` no longer says node.
    return execFileSync('ps', ['--ppid', String(pid), '-o', 'pid=,args='])
      .toString()
      .split('\n')
      .filter((line) => line.includes(process.execPath))
      .map((line) => Number(line.trim().split(/\s+/)[0]));
  } catch {
    return []; // ps exits 1 when there is no such process
  }
}

/**
 * Waits for `probe` to give a value; `what` is said on a timeout (a function: read then, so it can
 * show the output so far). Generous: on a loaded 2-core machine two workers compiling the sources
 * through tsx took over 30 s to print the banner.
 */
async function until<T>(probe: () => T | undefined, what: string | (() => string), ms = 120_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${typeof what === 'function' ? what() : what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('portico start --workers', { skip }, () => {
  let anvil: Anvil;
  let dir: ReturnType<typeof tempDir>;
  let schema: Awaited<ReturnType<typeof freshSchema>>;
  const prefix = freshPrefix();
  let child: ChildProcess;
  let output = '';
  let baseUrl: string;
  let authUrl: string;
  let configPath: string;

  before(async () => {
    anvil = await startAnvil();
    dir = tempDir();
    schema = await freshSchema(database.url!);
    configPath = join(dir.path, 'portico.json');
    writeFileSync(
      configPath,
      JSON.stringify({
        port: 0,
        adminToken: ADMIN_TOKEN,
        // debug: each answered RPC request is one access-log line, with the pid of the worker
        logLevel: 'debug',
        stores: { kind: 'shared', databaseUrl: schema.url, redis: redis.url, redisKeyPrefix: prefix },
        networks: [{ name: 'local', chainId: 'eip155:31337', upstreams: [anvil.url], cache: false }],
        dashboard: { enabled: true },
        auth: {
          masterKey: 'e'.repeat(64),
          verifiers: { jwt: { type: 'jwt', jwksUrl: 'https://login.app.example/jwks.json' } },
          allowedRedirectOrigins: ['https://app.example'],
        },
      }),
    );
    child = spawn(process.execPath, [BIN, 'start', '--config', configPath, '--workers', '2'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (chunk) => (output += chunk));
    child.stderr?.on('data', (chunk) => (output += chunk));
    baseUrl = await until(
      () => /(http:\/\/\S+)\/v3\/<API_KEY>/.exec(output)?.[1],
      () => `the banner:\n${output}`,
    );
    authUrl = await until(
      () => /Auth service\s+(\S+)/.exec(output)?.[1],
      () => `the auth service:\n${output}`,
    );
    // The banner comes from the first worker; the second may still be starting (it then takes no
    // connection, and "each worker answered some" could not hold).
    await until(
      () => (output.includes('All 2 workers serve.') ? true : undefined),
      () => `every worker serving:\n${output}`,
    );
  });
  after(async () => {
    if (child?.exitCode === null) child.kill('SIGKILL');
    await anvil?.stop();
    await schema?.drop();
    await dropPrefix(redis.url!, prefix);
    dir?.cleanup();
  });

  test('two workers serve one port and never spend more than a key’s balance between them', async () => {
    assert.equal(workersOf(child.pid!).length, 2);
    const origin = new URL(baseUrl).origin;
    const created = await fetch(`${origin}/admin/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'workers', dailyCredits: 80 * 40 }),
    });
    assert.equal(created.status, 201, await created.clone().text());
    const { key } = (await created.json()) as { key: string };
    // New connections each time (no keep-alive), so the supervisor hands them to both workers.
    const statuses = await Promise.all(
      Array.from({ length: 120 }, async () => {
        const response = await fetch(`${baseUrl}/v3/${key}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', connection: 'close' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }),
        });
        await response.arrayBuffer();
        return response.status;
      }),
    );
    assert.equal(statuses.filter((s) => s === 200).length, 40, 'exactly balance / cost succeed');
    assert.equal(statuses.filter((s) => s !== 200 && s !== 402 && s !== 429).length, 0);
    // Both workers served: the access log names each worker's pid among the 120 answers (the
    // log lines arrive on the pipe a moment after the answers: wait for all 120).
    const served = () => {
      const byPid = new Map<number, number>();
      for (const line of output.split('\n')) {
        if (!line.startsWith('{')) continue;
        const entry = JSON.parse(line) as { msg?: string; pid?: number; method?: string };
        if (entry.msg === 'rpc request' && entry.method === 'eth_blockNumber' && entry.pid)
          byPid.set(entry.pid, (byPid.get(entry.pid) ?? 0) + 1);
      }
      return byPid;
    };
    const byPid = await until(
      () => {
        const now = served();
        return [...now.values()].reduce((a, b) => a + b, 0) >= 120 ? now : undefined;
      },
      () => `120 access-log lines:\n${output.slice(-2000)}`,
    );
    assert.deepEqual([...byPid.keys()].sort(), workersOf(child.pid!).sort(), 'each worker answered some');
    assert.equal(
      [...byPid.values()].reduce((a, b) => a + b, 0),
      120,
      'every answer logged once',
    );
  });

  test('the workers serve the dashboard and the auth service on the shared ports', async () => {
    const origin = new URL(baseUrl).origin;
    for (let i = 0; i < 4; i++) {
      const page = await fetch(`${origin}/dashboard/`, { headers: { connection: 'close' } });
      assert.equal(page.status, 200);
      const jwks = await fetch(`${authUrl}/.well-known/jwks.json`, { headers: { connection: 'close' } });
      assert.equal(jwks.status, 200);
      assert.equal(
        ((await jwks.json()) as { keys: unknown[] }).keys.length,
        1,
        'one signing key for all workers',
      );
    }
  });

  test('a worker that dies is replaced, and the rest keep serving', async () => {
    const [victim, survivor] = workersOf(child.pid!);
    process.kill(victim, 'SIGKILL');
    const replaced = await until(() => {
      const now = workersOf(child.pid!);
      return now.length === 2 && !now.includes(victim) ? now : undefined;
    }, 'a replacement worker');
    assert.ok(replaced.includes(survivor));
    const response = await fetch(`${new URL(baseUrl).origin}/healthz`);
    assert.equal(response.status, 200);
  });

  test('SIGTERM stops every worker and the supervisor exits 0', async () => {
    const workers = workersOf(child.pid!);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    assert.equal(await exited, 0, output);
    for (const pid of workers) {
      assert.throws(() => process.kill(pid, 0), 'no worker is left behind');
    }
  });
});

test('--workers without shared stores is refused with the reason', () => {
  const dir = tempDir();
  try {
    const configPath = join(dir.path, 'portico.json');
    writeFileSync(
      configPath,
      JSON.stringify({
        networks: [{ name: 'local', chainId: 'eip155:31337', upstreams: ['http://127.0.0.1:9'] }],
      }),
    );
    const result = (() => {
      try {
        execFileSync(process.execPath, [BIN, 'start', '--config', configPath, '--workers', '2'], {
          stdio: 'pipe',
        });
        return { status: 0, stderr: '' };
      } catch (error) {
        const failed = error as { status: number; stderr: Buffer };
        return { status: failed.status, stderr: failed.stderr.toString() };
      }
    })();
    assert.equal(result.status, 2);
    assert.match(result.stderr, /--workers needs stores\.kind: shared/);
  } finally {
    dir.cleanup();
  }
});
