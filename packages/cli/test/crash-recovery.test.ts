// `portico start` killed with SIGKILL under load and started again on the same stores: every key has
// paid exactly for the calls it was answered, plus at most the calls that were in flight (sent and
// never answered), never more and never less; a quiet key that spent before the kill keeps exactly
// that. Embedded (SQLite, whose database must also come back intact) and shared (PostgreSQL + Redis).
// The real command, a real anvil, real HTTP; the kill comes after a count of answers, not a time.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type Anvil, startAnvil } from '@portico/devchain';
import { openSqlite } from '@portico/gateway';
import { serviceUrl, tempDir } from '@portico/testkit';
import { dropPrefix, freshPrefix, freshSchema } from '../../gateway/test/shared-services.ts';

const BIN = new URL('../bin/portico.mjs', import.meta.url).pathname;
const ADMIN_TOKEN = 'crash-admin-token-0123456789';
const COST = 80; // eth_blockNumber is a pass-through method: passthroughCost
const DAILY_CREDITS = 100_000_000;
const ANSWERS_BEFORE_KILL = 400;
const QUIET_CALLS = 10;
const CLIENTS = 16;
const database = serviceUrl('DATABASE_URL');
const redis = serviceUrl('REDIS_URL');

let anvil: Anvil;
let dir: ReturnType<typeof tempDir>;
const children: ChildProcess[] = [];
const cleanups: (() => Promise<void>)[] = [];

/** Starts `portico start` on a config; resolves with its origin once it serves. */
async function startPortico(configPath: string): Promise<{ child: ChildProcess; origin: string }> {
  const child = spawn(process.execPath, [BIN, 'start', '--config', configPath], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const deadline = Date.now() + 60_000;
  for (;;) {
    const base = /(http:\/\/\S+)\/local\/v3\/<API_KEY>/.exec(output)?.[1];
    if (base) return { child, origin: base };
    if (child.exitCode !== null || Date.now() > deadline)
      throw new Error(`portico start did not come up:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function admin(origin: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${origin}${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  assert.ok(response.ok, `${method} ${path}: HTTP ${response.status}`);
  return (await response.json()) as Record<string, unknown>;
}

/** One eth_blockNumber call: `result` when it was answered with one, `error` for any other answer. */
async function call(rpcUrl: string, id: number): Promise<'result' | 'error'> {
  const response = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'eth_blockNumber', params: [] }),
  });
  const body = (await response.json()) as { result?: string };
  return response.status === 200 && typeof body.result === 'string' ? 'result' : 'error';
}

before(async () => {
  anvil = await startAnvil();
  dir = tempDir('portico-crash-');
});

after(async () => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const cleanup of cleanups) await cleanup();
  await anvil?.stop();
  dir?.cleanup();
});

/**
 * The scenario for one kind of stores: a quiet key spends QUIET_CALLS calls and stops; CLIENTS loops
 * send calls back to back on a busy key; once ANSWERS_BEFORE_KILL answers have come back the
 * process is killed while the other loops' calls are in flight; then a restart on the same stores.
 */
async function crashAndRestart(stores: Record<string, unknown>, checkAfterCrash?: () => void) {
  const configPath = join(dir.path, `portico-${Object.keys(stores).join('-') || 'embedded'}.json`);
  writeFileSync(
    configPath,
    JSON.stringify({
      port: 0,
      adminToken: ADMIN_TOKEN,
      logLevel: 'warn',
      ...stores,
      networks: [{ name: 'local', chainId: 'eip155:31337', upstreams: [anvil.url], cache: false }],
    }),
  );
  const first = await startPortico(configPath);
  const busyKey = await admin(first.origin, 'POST', '/admin/keys', {
    name: 'busy',
    dailyCredits: DAILY_CREDITS,
  });
  const quietKey = await admin(first.origin, 'POST', '/admin/keys', {
    name: 'quiet',
    dailyCredits: DAILY_CREDITS,
  });
  for (let i = 0; i < QUIET_CALLS; i++)
    assert.equal(await call(`${first.origin}/local/v3/${quietKey.key}`, i), 'result');

  // Every call ends as one of: answered with a result (charged), answered with an error (not
  // charged), or never answered (the connection died with the process): in flight at the kill.
  const busyUrl = `${first.origin}/local/v3/${busyKey.key}`;
  const count = { result: 0, error: 0, unanswered: 0 };
  let killed = false;
  const exited = once(first.child, 'exit');
  const loop = async () => {
    while (!killed) {
      try {
        count[await call(busyUrl, count.result)] += 1;
      } catch {
        count.unanswered += 1;
        return;
      }
      if (count.result >= ANSWERS_BEFORE_KILL && !killed) {
        killed = true;
        first.child.kill('SIGKILL');
      }
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, loop));
  const [, signal] = await exited;
  assert.equal(signal, 'SIGKILL');
  assert.ok(count.result >= ANSWERS_BEFORE_KILL);
  checkAfterCrash?.();

  const second = await startPortico(configPath);
  const busy = await admin(second.origin, 'GET', `/admin/keys/${busyKey.id}`);
  const quiet = await admin(second.origin, 'GET', `/admin/keys/${quietKey.id}`);
  const busySpent = DAILY_CREDITS - (busy.creditsRemainingToday as number);
  const answered = count.result * COST;
  const inFlight = count.unanswered * COST;
  assert.ok(
    busySpent >= answered,
    `busy key: ${busySpent} credits spent after the restart, but ${count.result} calls of ${COST} were answered`,
  );
  assert.ok(
    busySpent <= answered + inFlight,
    `busy key: ${busySpent} credits spent after the restart: ${count.result} calls answered and ${count.unanswered} in flight allow at most ${answered + inFlight}`,
  );
  assert.equal(
    DAILY_CREDITS - (quiet.creditsRemainingToday as number),
    QUIET_CALLS * COST,
    'the quiet key paid exactly for its answered calls',
  );

  // The restarted gateway serves the key from that balance on.
  const response = await fetch(`${second.origin}/local/v3/${busyKey.key}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'eth_blockNumber', params: [] }),
  });
  assert.equal(response.status, 200);
  assert.equal(
    Number(response.headers.get('x-credits-remaining')),
    (busy.creditsRemainingToday as number) - COST,
  );
  second.child.kill('SIGTERM');
  await once(second.child, 'exit');
}

test('embedded stores: after SIGKILL under load and a restart, each key paid for its answered calls plus at most those in flight, and the database is intact', async () => {
  const dataDir = join(dir.path, 'data');
  await crashAndRestart({ dataDir }, () => {
    // The database as the crash left it (opening it replays the WAL, as a restart does).
    const db = openSqlite(join(dataDir, 'gateway.db'));
    try {
      assert.deepEqual(db.prepare('PRAGMA integrity_check').all(), [{ integrity_check: 'ok' }]);
    } finally {
      db.close();
    }
  });
});

test('shared stores (PostgreSQL + Redis): after SIGKILL under load and a restart, each key paid for its answered calls plus at most those in flight', {
  skip: database.skip || redis.skip,
}, async () => {
  const schema = await freshSchema(database.url!);
  const prefix = freshPrefix();
  cleanups.push(schema.drop, () => dropPrefix(redis.url!, prefix));
  await crashAndRestart({
    stores: { kind: 'shared', databaseUrl: schema.url, redis: redis.url, redisKeyPrefix: prefix },
  });
});
