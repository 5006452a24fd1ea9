// `portico start` killed with SIGKILL under load and started again on the same data folder: calls
// that were answered stay charged, and the SQLite database is intact. The real command, a real
// anvil, real HTTP; the kill comes after a count of answers, not after a time.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type Anvil, startAnvil } from '@portico/devchain';
import { openSqlite } from '@portico/gateway';
import { tempDir } from '@portico/testkit';

const BIN = new URL('../bin/portico.mjs', import.meta.url).pathname;
const ADMIN_TOKEN = 'crash-admin-token-0123456789';
const COST = 80; // eth_blockNumber is a pass-through method: passthroughCost
const DAILY_CREDITS = 100_000_000;
const ANSWERS_BEFORE_KILL = 400;
const CLIENTS = 16;

let anvil: Anvil;
let dir: ReturnType<typeof tempDir>;
let configPath: string;
const children: ChildProcess[] = [];

/** Starts `portico start` on the test's config; resolves with its origin once it serves. */
async function startPortico(): Promise<{ child: ChildProcess; origin: string }> {
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

before(async () => {
  anvil = await startAnvil();
  dir = tempDir('portico-crash-');
  configPath = join(dir.path, 'portico.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      port: 0,
      adminToken: ADMIN_TOKEN,
      dataDir: join(dir.path, 'data'),
      logLevel: 'warn',
      networks: [{ name: 'local', chainId: 'eip155:31337', upstreams: [anvil.url] }],
    }),
  );
});

after(async () => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await anvil?.stop();
  dir?.cleanup();
});

test('after SIGKILL under load and a restart, every answered call is still charged and the database is intact', async () => {
  const first = await startPortico();
  const created = await admin(first.origin, 'POST', '/admin/keys', {
    name: 'crash',
    dailyCredits: DAILY_CREDITS,
  });
  const rpcUrl = `${first.origin}/local/v3/${created.key}`;

  // CLIENTS loops send calls back to back; once ANSWERS_BEFORE_KILL answers have come back the
  // process is killed while the other loops' calls are still in flight.
  let answered = 0;
  let killed = false;
  const exited = once(first.child, 'exit');
  const loop = async () => {
    while (!killed) {
      try {
        const response = await fetch(rpcUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }),
        });
        const body = (await response.json()) as { result?: string };
        if (response.status === 200 && typeof body.result === 'string') answered += 1;
      } catch {
        return; // the connection died with the process: not an answer
      }
      if (answered >= ANSWERS_BEFORE_KILL && !killed) {
        killed = true;
        first.child.kill('SIGKILL');
      }
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, loop));
  const [, signal] = await exited;
  assert.equal(signal, 'SIGKILL');
  assert.ok(answered >= ANSWERS_BEFORE_KILL);

  // The database as the crash left it (opening it replays the WAL, as a restart does).
  const db = openSqlite(join(dir.path, 'data', 'gateway.db'));
  try {
    assert.deepEqual(db.prepare('PRAGMA integrity_check').all(), [{ integrity_check: 'ok' }]);
  } finally {
    db.close();
  }

  const second = await startPortico();
  const view = await admin(second.origin, 'GET', `/admin/keys/${created.id}`);
  const unspent = DAILY_CREDITS - answered * COST;
  assert.ok(
    (view.creditsRemainingToday as number) <= unspent,
    `${view.creditsRemainingToday} credits remain after the restart, but ${answered} calls of ${COST} were answered: at most ${unspent} were unspent`,
  );

  // The restarted gateway serves the key from that balance on.
  const response = await fetch(`${second.origin}/local/v3/${created.key}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'eth_blockNumber', params: [] }),
  });
  assert.equal(response.status, 200);
  assert.equal(
    Number(response.headers.get('x-credits-remaining')),
    (view.creditsRemainingToday as number) - COST,
  );
  second.child.kill('SIGTERM');
  await once(second.child, 'exit');
});
