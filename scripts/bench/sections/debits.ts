// The `debits` section (balances in memory against crash-safe SQLite reservations, per request
// with wrk) and the `ledgers` section (the debit alone, per ledger, without HTTP).
import {
  type CreditLedger,
  type GatewayStores,
  GroupCommit,
  MemoryCreditLedger,
  MemoryRateLimiter,
  openSqlite,
  RedisCreditLedger,
  SqliteCreditLedger,
  SqliteKeyStore,
  SqliteUsageRecorder,
} from '@portico/gateway';
import { Redis } from 'ioredis';
import { median, ROUNDS, type Row } from '../common.ts';

export const BEFORE = 'balances in memory (not crash-safe)';
export const AHEAD = 'SQLite reservations ahead (a crash keeps them)';
export const AFTER = 'SQLite, group commit per turn (crash-exact)';
/** The durable section's rows, in order. */
export const DURABLE_TARGETS = [BEFORE, AHEAD, AFTER];

/** The embedded stores without crash-safe balances: balances in memory only. */
export function inMemoryBalances(path: string): GatewayStores {
  const db = openSqlite(path);
  const usage = new SqliteUsageRecorder(db);
  const usageDb = db.prepare('SELECT COALESCE(SUM(credits), 0) AS c FROM usage WHERE key_id = ? AND day = ?');
  const ledger = new MemoryCreditLedger((keyId, day) => (usageDb.get(keyId, day) as { c: number }).c);
  const rateLimiter = new MemoryRateLimiter();
  const keys = new SqliteKeyStore(db);
  return {
    keys,
    usage,
    ledger,
    rateLimiter,
    async close() {
      await usage.close();
      db.close();
    },
  };
}

type DebitCost = {
  ledger: string;
  perTurn: number;
  /** CPU time of this process per debit, µs (the request path's share). */
  microseconds: number;
  /** Wall-clock time per debit, µs (for Redis: the round trip shared by the turn's debits). */
  wallMicroseconds: number;
  /** Redis's own CPU per debit, µs (from INFO: other clients of the same Redis count too). */
  redisMicroseconds?: number;
};

const MEMORY = BEFORE;
const REDIS = 'Redis, one script call per turn';

/** A debit as the request path makes it: decided at once when the ledger can, awaited otherwise. */
const charge = (ledger: CreditLedger, keyId: string, limit: number, cost: number) =>
  ledger.debitNow?.(keyId, limit, cost) ?? ledger.debit(keyId, limit, cost);

/** Redis's CPU seconds so far (user + system), from INFO. */
async function redisCpu(redis: Redis): Promise<number> {
  const info = await redis.info('cpu');
  const field = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? 0);
  return field('used_cpu_user') + field('used_cpu_sys');
}

/**
 * The debit alone, without HTTP: µs per debit, one per turn and 64 issued in the same turn, each
 * made as the request path makes it (`debitNow` first, `debit` awaited only when it cannot say).
 * A daily limit of 100 M credits: a key's reservation is at most 1 % of it, 100 000 debits of 10.
 */
export async function benchDebits(path: string, redisUrl?: string): Promise<DebitCost[]> {
  const db = openSqlite(path);
  const ledgers: [string, CreditLedger][] = [
    [MEMORY, new MemoryCreditLedger()],
    [AHEAD, new SqliteCreditLedger(db, new GroupCommit(db), { reserveAhead: true })],
    [AFTER, new SqliteCreditLedger(db, new GroupCommit(db))],
  ];
  const prefix = `bench-ledger-${Date.now()}:`;
  const redis = redisUrl ? new Redis(redisUrl, { lazyConnect: true }) : undefined;
  if (redis) {
    await redis.connect();
    ledgers.push([REDIS, new RedisCreditLedger(redis, { keyPrefix: prefix })]);
  }
  const results: DebitCost[] = [];
  let round = 0;
  for (const perTurn of [1, 64]) {
    const runs = Math.ceil(20_000 / perTurn);
    // CPU time of the process (µs per debit): less disturbed by other work on a shared machine.
    const time = async (name: string, ledger: CreditLedger) => {
      // A key of its own per round: each starts with nothing reserved, as after a start.
      const keyId = `bench-${perTurn}-${round++}`;
      const redisBefore = name === REDIS && redis ? await redisCpu(redis) : 0;
      const started = process.cpuUsage();
      const wallStarted = performance.now();
      for (let i = 0; i < runs; i++)
        await Promise.all(Array.from({ length: perTurn }, () => charge(ledger, keyId, 1e8, 10)));
      const wall = performance.now() - wallStarted;
      const used = process.cpuUsage(started);
      const debits = runs * perTurn;
      return {
        cpu: (used.user + used.system) / debits,
        wall: (wall * 1000) / debits,
        redis: name === REDIS && redis ? (((await redisCpu(redis)) - redisBefore) * 1e6) / debits : undefined,
      };
    };
    const samples = new Map<string, Awaited<ReturnType<typeof time>>[]>(ledgers.map(([name]) => [name, []]));
    for (const [name, ledger] of ledgers) await time(name, ledger); // warm-up
    // Alternated rounds, the median of each: the machine is shared.
    for (let r = 0; r < ROUNDS; r++)
      for (const [name, ledger] of ledgers) samples.get(name)!.push(await time(name, ledger));
    for (const [name] of ledgers) {
      const of = samples.get(name)!;
      const cost: DebitCost = {
        ledger: name,
        perTurn,
        microseconds: median(of.map((s) => s.cpu)),
        wallMicroseconds: median(of.map((s) => s.wall)),
        redisMicroseconds: name === REDIS ? median(of.map((s) => s.redis ?? 0)) : undefined,
      };
      results.push(cost);
      console.log(
        `debit, ${name.padEnd(36)} ${String(perTurn).padStart(2)} per turn: CPU ${cost.microseconds.toFixed(2)} µs, wall ${cost.wallMicroseconds.toFixed(2)} µs${cost.redisMicroseconds === undefined ? '' : `, Redis CPU ${cost.redisMicroseconds.toFixed(2)} µs`}`,
      );
    }
  }
  db.close();
  if (redis) {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      cursor = next;
      if (keys.length) await redis.del(...keys);
    } while (cursor !== '0');
    redis.disconnect();
  }
  return results;
}

/** The `ledgers` section: the debit alone, per ledger (no HTTP, no wrk). */
export function ledgersSection(debits: DebitCost[]): string[] {
  const names = [...new Set(debits.map((d) => d.ledger))];
  const of = (ledger: string, perTurn: number) =>
    debits.find((d) => d.ledger === ledger && d.perTurn === perTurn)!;
  const cell = (d: DebitCost) =>
    `${d.microseconds.toFixed(2)} (wall ${d.wallMicroseconds.toFixed(2)}${d.redisMicroseconds === undefined ? '' : `; Redis ${d.redisMicroseconds.toFixed(2)}`})`;
  return [
    '## The debit alone, per ledger',
    '',
    'No HTTP: debits in a loop in the bench process, made as the request path makes them (`debitNow` first,',
    '`debit` awaited when the ledger cannot decide at once), one per turn or 64 issued together, a daily limit',
    `of 100 M credits, a fresh key per round, the median of ${ROUNDS} alternated rounds. CPU µs per debit is the`,
    "CPU time of the bench process per debit (the request path's share); wall is the elapsed time per debit;",
    "for Redis, Redis's own CPU per debit from `INFO cpu` (its other clients count too). SQLite reservations",
    "ahead: a debit inside the key's reservation is decided in memory and writes nothing; the reservation grows",
    'by grants committed with the group commit (at most 1 % of the daily limit each). SQLite group commit per',
    "turn (the default): every debit waits for the commit at the end of its turn, which writes the key's",
    'exact spending. Redis: the debits of a turn go out as one script call.',
    '',
    '| ledger | 1 debit per turn: CPU µs (wall; Redis) | 64 debits per turn: CPU µs (wall; Redis) |',
    '|---|---|---|',
    ...names.map((name) => `| ${name} | ${cell(of(name, 1))} | ${cell(of(name, 64))} |`),
    '',
  ];
}

export function durableSection(rows: Row[]): string[] {
  const find = (target: string, clients: number) =>
    rows.find((r) => r.target === target && r.clients === clients)!;
  const added = (target: string, clients: number) =>
    (find(target, clients).cpuUs - find(BEFORE, clients).cpuUs).toFixed(1);
  return [
    '## Crash-safe debits: cost per request',
    '',
    'Balances in memory only (rebuilt at start from a usage record flushed every 500 ms: a SIGKILL gives',
    'back the credits of calls answered since the last flush), against the two crash-safe embedded ledgers:',
    'reservations ahead (each key holds a reservation committed to SQLite, WAL, `synchronous = NORMAL`, never',
    'below what it answered; a debit inside it is decided in memory and the reservation grows by grants of at',
    'most 1 % of the daily limit; a SIGKILL keeps the unused reservation, so the key pays for calls nobody',
    'got), and the default, a group commit per event-loop turn (every debit waits for the commit of its turn,',
    "which writes the key's exact spending before the call is forwarded; refunds likewise before the refusal",
    'is answered: after a SIGKILL a key has paid for its answered calls plus at most those in flight).',
    'Every gateway keeps its SQLite file on disk, cache',
    `off, the request of the main table; they alternate over ${ROUNDS} rounds in the same run, each figure`,
    'the median of its rounds. CPU µs per request is the CPU time (user + system) of the process the',
    'gateways run in divided by the requests answered: the cost of one request, and much less disturbed than',
    'req/s by other work on a shared machine.',
    '',
    '| balances | clients | req/s | p50 ms | p99 ms | CPU µs per request (rounds) |',
    '|---|---|---|---|---|---|',
    ...[1, 64].flatMap((clients) =>
      DURABLE_TARGETS.map((target) => {
        const r = find(target, clients);
        const range = r.cpuRange ? ` (${r.cpuRange[0].toFixed(0)}–${r.cpuRange[1].toFixed(0)})` : '';
        return `| ${target} | ${clients} | ${r.rps.toFixed(0)} | ${r.p50.toFixed(3)} | ${r.p99.toFixed(3)} | ${r.cpuUs.toFixed(1)}${range} |`;
      }),
    ),
    '',
    `Added per request over balances in memory (medians): reservations ahead ${added(AHEAD, 1)} µs of CPU with 1 client, ${added(AHEAD, 64)} µs with 64; group commit per turn ${added(AFTER, 1)} µs with 1 client, ${added(AFTER, 64)} µs with 64 (compare with the spread of the rounds). The debit alone: the \`ledgers\` section.`,
    '',
  ];
}
