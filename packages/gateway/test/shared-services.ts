// Helpers of the shared-store tests: a private PostgreSQL schema and Redis key prefix per run (so
// parallel runs never see each other's rows), and a TCP proxy that can cut a service off.
import { randomBytes } from 'node:crypto';
import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';
import { Redis } from 'ioredis';
import pg from 'pg';

/** A new schema in the test database; `url` connects with it as the search_path. */
export async function freshSchema(databaseUrl: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `portico_test_${randomBytes(5).toString('hex')}`;
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`CREATE SCHEMA ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(databaseUrl);
  url.searchParams.set('options', `-c search_path=${name}`);
  return {
    url: url.toString(),
    async drop() {
      const dropper = new pg.Client({ connectionString: databaseUrl });
      await dropper.connect();
      try {
        await dropper.query(`DROP SCHEMA ${name} CASCADE`);
      } finally {
        await dropper.end();
      }
    },
  };
}

/** A Redis key prefix of its own; `drop` deletes every key under it. */
export function freshPrefix(): string {
  return `portico-test:${randomBytes(5).toString('hex')}:`;
}

export async function dropPrefix(redisUrl: string, prefix: string) {
  const client = new Redis(redisUrl, { lazyConnect: true });
  await client.connect();
  try {
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      cursor = next;
      if (keys.length) await client.del(...keys);
    } while (cursor !== '0');
  } finally {
    client.disconnect();
  }
}

export type TcpProxy = {
  /** The proxy's address as a URL of the same scheme as the target (e.g. redis://127.0.0.1:port). */
  url: string;
  /** Cuts every open connection and refuses new ones (the service looks down). */
  cut: () => void;
  /** Keeps connections open but holds the service's answers back (the service hangs). */
  stall: () => void;
  /** Lets connections through again (and answers held back by `stall`). */
  restore: () => void;
  close: () => Promise<void>;
};

/** A TCP proxy on port 0 in front of `targetUrl` (host and port are taken from the URL). */
export async function startTcpProxy(targetUrl: string): Promise<TcpProxy> {
  const target = new URL(targetUrl);
  const sockets = new Set<Socket>();
  const answers = new Map<Socket, Socket>();
  let open = true;
  let stalled = false;
  const server: Server = createServer((client) => {
    if (!open) {
      client.destroy();
      return;
    }
    const upstream = tcpConnect(Number(target.port), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    answers.set(upstream, client);
    upstream.on('close', () => answers.delete(upstream));
    if (stalled) upstream.pause();
    else upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const cutAll = () => {
    for (const socket of sockets) socket.destroy();
  };
  return {
    url: `${target.protocol}//${target.username ? `${target.username}@` : ''}127.0.0.1:${port}${target.pathname}${target.search}`,
    cut() {
      open = false;
      cutAll();
    },
    stall() {
      stalled = true;
      for (const [upstream, client] of answers) {
        upstream.unpipe(client);
        upstream.pause();
      }
    },
    restore() {
      open = true;
      if (stalled) for (const [upstream, client] of answers) upstream.pipe(client);
      stalled = false;
    },
    close() {
      open = false;
      cutAll();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** Retries `attempt` until it returns true, at most `tries` times `everyMs` apart. */
export async function eventually(attempt: () => Promise<boolean> | boolean, tries = 100, everyMs = 50) {
  for (let i = 0; i < tries; i++) {
    if (await attempt()) return true;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  return false;
}
