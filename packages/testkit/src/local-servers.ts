// Servers a test starts for itself from the machine's binaries (redis-server, pgbouncer): each on
// free ports, in a temporary directory of its own, stopped by the returned close().
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

/**
 * Where a binary is (PATH, then the sbin folders Debian installs daemons in). Missing: the test
 * is skipped with the reason, except under CI=true, where CI must have installed it: the returned
 * reason is then undefined and `path` is the bare name, so the test runs and fails loudly.
 */
export function localBinary(name: string): { path: string; skip: string | false } {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/local/sbin', '/sbin'];
  for (const dir of dirs) {
    if (!dir) continue;
    try {
      accessSync(join(dir, name), constants.X_OK);
      return { path: join(dir, name), skip: false };
    } catch {}
  }
  if (process.env.CI === 'true') return { path: name, skip: false };
  return {
    path: name,
    skip: `${name} is not installed (apt-get install -y ${packageOf(name)}); CI installs it`,
  };
}

const packageOf = (binary: string) => (binary.startsWith('redis') ? 'redis-server' : binary);

/** A TCP port free now on 127.0.0.1 (and, with `alsoFree`, that port plus `alsoFree` too). */
export async function freePort(alsoFree?: number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = await listenAndClose(0);
    if (alsoFree === undefined) return port;
    if (port + alsoFree < 65536 && (await listenAndClose(port + alsoFree).catch(() => 0))) return port;
  }
  throw new Error('no free port pair found');
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function listenAndClose(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const bound = (server.address() as { port: number }).port;
      server.close(() => resolve(bound));
    });
  });
}

/** Polls `check` every 100 ms until it is true; throws `what` after `timeoutMs`. */
export async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

type Started = { child: ChildProcess; output: () => string };

function startProcess(command: string, args: string[], cwd: string): Started {
  const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  return { child, output: () => output };
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

const redisCli = (port: number, ...args: string[]) =>
  run(localBinary('redis-cli').path, ['-h', '127.0.0.1', '-p', String(port), ...args]).then((r) => r.stdout);

/** One redis-server without persistence, in `dir`. */
function startRedisServer(dir: string, port: number, extra: string[] = []): Started {
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  return startProcess(localBinary('redis-server').path, [...args, '--dir', dir, ...extra], dir);
}

export type LocalRedisCluster = {
  /** The nodes' addresses, as `stores.redis.cluster` takes them. */
  nodes: { host: string; port: number }[];
  close: () => Promise<void>;
};

/** A Redis Cluster of `masters` nodes (no replicas), every slot assigned, ready to serve. */
export async function startRedisCluster(masters = 3): Promise<LocalRedisCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'portico-redis-cluster-'));
  const servers: Started[] = [];
  const close = async () => {
    await Promise.all(servers.map((server) => stop(server.child)));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const nodes: { host: string; port: number }[] = [];
    for (let i = 0; i < masters; i++) {
      // The cluster bus listens on port + 10000.
      const port = await freePort(10_000);
      servers.push(
        startRedisServer(dir, port, [
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          `nodes-${port}.conf`,
          '--cluster-node-timeout',
          '2000',
        ]),
      );
      nodes.push({ host: '127.0.0.1', port });
    }
    for (const [i, node] of nodes.entries())
      await waitFor(`redis node ${node.port}: ${servers[i].output()}`, async () =>
        (await redisCli(node.port, 'ping')).includes('PONG'),
      );
    await run(localBinary('redis-cli').path, [
      '--cluster',
      'create',
      ...nodes.map((node) => `${node.host}:${node.port}`),
      '--cluster-replicas',
      '0',
      '--cluster-yes',
    ]);
    for (const node of nodes)
      await waitFor(`cluster state ok on ${node.port}`, async () =>
        (await redisCli(node.port, 'cluster', 'info')).includes('cluster_state:ok'),
      );
    return { nodes, close };
  } catch (error) {
    await close();
    throw error;
  }
}

export type LocalRedisSentinel = {
  /** The master's name the sentinels monitor. */
  name: string;
  sentinels: { host: string; port: number }[];
  /** The port of the node that is master now (as the sentinels report it). */
  masterPort: () => Promise<number>;
  /** Kills the current master (SIGKILL: no goodbye to the replica or the clients). */
  killMaster: () => Promise<number>;
  close: () => Promise<void>;
};

/**
 * A master, one replica and two sentinels watching them (quorum 2, master down after 1 s): a
 * killed master is replaced by the replica once both sentinels agree.
 */
export async function startRedisSentinel(): Promise<LocalRedisSentinel> {
  const dir = mkdtempSync(join(tmpdir(), 'portico-redis-sentinel-'));
  const servers = new Map<number, Started>();
  const name = 'portico-test-master';
  const close = async () => {
    await Promise.all([...servers.values()].map((server) => stop(server.child)));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const [master, replica] = [await freePort(), await freePort()];
    servers.set(master, startRedisServer(dir, master, ['--dbfilename', `dump-${master}.rdb`]));
    servers.set(
      replica,
      startRedisServer(dir, replica, [
        '--replicaof',
        '127.0.0.1',
        String(master),
        '--dbfilename',
        `dump-${replica}.rdb`,
      ]),
    );
    const sentinels: { host: string; port: number }[] = [];
    for (let i = 0; i < 2; i++) {
      const port = await freePort();
      const file = join(dir, `sentinel-${port}.conf`);
      writeFileSync(
        file,
        [
          `port ${port}`,
          'bind 127.0.0.1',
          `dir ${dir}`,
          `sentinel monitor ${name} 127.0.0.1 ${master} 2`,
          `sentinel down-after-milliseconds ${name} 1000`,
          `sentinel failover-timeout ${name} 10000`,
          `sentinel parallel-syncs ${name} 1`,
          '',
        ].join('\n'),
      );
      servers.set(port, startProcess(localBinary('redis-server').path, [file, '--sentinel'], dir));
      sentinels.push({ host: '127.0.0.1', port });
    }
    await waitFor('the replica in sync', async () =>
      (await redisCli(replica, 'info', 'replication')).includes('master_link_status:up'),
    );
    // Both sentinels know the replica and each other (hello messages, every 2 s), so they can fail over.
    for (const sentinel of sentinels)
      await waitFor(`sentinel ${sentinel.port} to see the replica and the other sentinel`, async () => {
        const replicas = await redisCli(sentinel.port, 'sentinel', 'replicas', name);
        const others = await redisCli(sentinel.port, 'sentinel', 'sentinels', name);
        return replicas.includes(String(replica)) && others.includes('127.0.0.1');
      });
    const masterPort = async () =>
      Number((await redisCli(sentinels[0].port, 'sentinel', 'get-master-addr-by-name', name)).split('\n')[1]);
    return {
      name,
      sentinels,
      masterPort,
      async killMaster() {
        const port = await masterPort();
        const server = servers.get(port);
        if (server) await stop(server.child);
        return port;
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

export type LocalPgBouncer = {
  /** `databaseUrl` with PgBouncer's address instead of PostgreSQL's (same user and database). */
  url: string;
  close: () => Promise<void>;
};

/**
 * PgBouncer in transaction pooling mode in front of the PostgreSQL of `databaseUrl` (trust
 * authentication, as the local test server has): every transaction may run on another server
 * connection, so session state (SET, LISTEN, named prepared statements, session advisory locks)
 * does not last beyond one. Runs as the `postgres` user when the test runs as root (PgBouncer
 * refuses root).
 */
export async function startPgBouncer(databaseUrl: string): Promise<LocalPgBouncer> {
  const target = new URL(databaseUrl);
  const dir = mkdtempSync(join(tmpdir(), 'portico-pgbouncer-'));
  const port = await freePort();
  const user = decodeURIComponent(target.username || 'postgres');
  writeFileSync(join(dir, 'users.txt'), `"${user}" ""\n`);
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${target.hostname} port=${target.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      `unix_socket_dir = ${dir}`,
      'auth_type = trust',
      `auth_file = ${join(dir, 'users.txt')}`,
      'pool_mode = transaction',
      'default_pool_size = 5',
      'max_client_conn = 200',
      'ignore_startup_parameters = extra_float_digits',
      `logfile = ${join(dir, 'pgbouncer.log')}`,
      `pidfile = ${join(dir, 'pgbouncer.pid')}`,
      '',
    ].join('\n'),
  );
  const asRoot = process.getuid?.() === 0;
  if (asRoot) await run('chown', ['-R', 'postgres', dir]);
  const server = startProcess(
    localBinary('pgbouncer').path,
    [...(asRoot ? ['-u', 'postgres'] : []), join(dir, 'pgbouncer.ini')],
    dir,
  );
  const close = async () => {
    await stop(server.child);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitFor(`pgbouncer on ${port}: ${server.output()}`, () => canConnect(port));
  } catch (error) {
    await close();
    throw error;
  }
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return { url: url.toString(), close };
}

export type FreshDatabase = {
  /** `databaseUrl` naming the new database. */
  url: string;
  name: string;
  /** Drops the database, closing what still connects to it. */
  drop: () => Promise<void>;
};

/**
 * A new, empty database on the server of `databaseUrl`, for tests that cannot pick their schema
 * with `options=-c search_path=…` (PgBouncer refuses that startup parameter).
 */
export async function freshDatabase(databaseUrl: string): Promise<FreshDatabase> {
  const name = `portico_test_${randomBytes(5).toString('hex')}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  // PostgreSQL refuses CREATE DATABASE while another session is connected to template1 (SQLSTATE
  // 55006: another test file's CREATE DATABASE, or autovacuum visiting it): that passes, try again.
  for (let attempt = 1; ; attempt++) {
    try {
      await admin(`CREATE DATABASE ${name}`);
      break;
    } catch (error) {
      if ((error as { code?: string }).code !== '55006' || attempt === 20) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
    }
  }
  const url = new URL(databaseUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), name, drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

/**
 * Ends every connection to `database` but the caller's (what a PostgreSQL restart or failover does
 * to a service's pool), and resolves once the server lists none.
 */
export async function terminateConnections(databaseUrl: string, database: string): Promise<number> {
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  try {
    const ended = await admin.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [database],
    );
    for (;;) {
      const left = await admin.query(
        'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
        [database],
      );
      if (left.rows[0].n === 0) return ended.rowCount ?? 0;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    await admin.end();
  }
}
