// The `debits` section: balances in memory against debits committed to SQLite, per request and alone.
import {
  type CreditLedger,
  type GatewayStores,
  GroupCommit,
  MemoryCreditLedger,
  MemoryRateLimiter,
  openSqlite,
  SqliteCreditLedger,
  SqliteKeyStore,
  SqliteUsageRecorder,
} from '@portico/gateway';
import { median, ROUNDS, type Row } from '../common.ts';

export const BEFORE = 'balances in memory (before)';
export const AFTER = 'debits committed to SQLite (after)';

/** The embedded stores as they were before debits were written: balances in memory only. */
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

type DebitCost = { ledger: string; perTurn: number; microseconds: number };

/** The debit alone, without HTTP: µs per debit, one per turn and 64 issued in the same turn. */
export async function benchDebits(path: string): Promise<DebitCost[]> {
  const db = openSqlite(path);
  const ledgers: [string, CreditLedger][] = [
    [BEFORE, new MemoryCreditLedger()],
    [AFTER, new SqliteCreditLedger(db, new GroupCommit(db))],
  ];
  const results: DebitCost[] = [];
  for (const perTurn of [1, 64]) {
    const runs = Math.ceil(20_000 / perTurn);
    // CPU time of the process (µs per debit): less disturbed by other work on a shared machine.
    const time = async (ledger: CreditLedger, keyId: string) => {
      const started = process.cpuUsage();
      for (let i = 0; i < runs; i++)
        await Promise.all(Array.from({ length: perTurn }, () => ledger.debit(keyId, 1e15, 10)));
      const used = process.cpuUsage(started);
      return (used.user + used.system) / (runs * perTurn);
    };
    const samples = new Map<string, number[]>(ledgers.map(([name]) => [name, []]));
    for (const [, ledger] of ledgers) await time(ledger, 'warm-up');
    // Alternated rounds, the median of each: the machine is shared.
    for (let round = 0; round < ROUNDS; round++)
      for (const [name, ledger] of ledgers) samples.get(name)!.push(await time(ledger, `bench-${perTurn}`));
    for (const [name] of ledgers) {
      const microseconds = median(samples.get(name)!);
      results.push({ ledger: name, perTurn, microseconds });
      console.log(
        `debit, ${name.padEnd(36)} ${String(perTurn).padStart(2)} per turn ${microseconds.toFixed(2)} µs`,
      );
    }
  }
  db.close();
  return results;
}

export function durableSection(rows: Row[], debits: DebitCost[]): string[] {
  const find = (target: string, clients: number) =>
    rows.find((r) => r.target === target && r.clients === clients)!;
  const added = (clients: number) => find(AFTER, clients).cpuUs - find(BEFORE, clients).cpuUs;
  const debit = (ledger: string, perTurn: number) =>
    debits.find((d) => d.ledger === ledger && d.perTurn === perTurn)!.microseconds;
  return [
    '## Crash-safe debits: cost per request before and after',
    '',
    'Before: balances in memory, rebuilt at start from a usage record flushed every 500 ms (a SIGKILL gave',
    'back the credits of calls answered since the last flush). After: each debit is committed to SQLite',
    '(WAL, `synchronous = NORMAL`) before the request is forwarded, the debits of one event-loop turn in',
    'one transaction. Both gateways keep their SQLite file on disk, cache off, the request of the main',
    `table; before and after alternate over ${ROUNDS} rounds in the same run, each figure the median of`,
    'its rounds. CPU µs per request is the CPU time (user + system) of the process the gateways run in',
    'divided by the requests answered: the cost of one request, and much less disturbed than req/s by',
    'other work on a shared machine.',
    '',
    '| balances | clients | req/s | p50 ms | p99 ms | CPU µs per request (rounds) |',
    '|---|---|---|---|---|---|',
    ...[1, 64].flatMap((clients) =>
      [BEFORE, AFTER].map((target) => {
        const r = find(target, clients);
        const range = r.cpuRange ? ` (${r.cpuRange[0].toFixed(0)}–${r.cpuRange[1].toFixed(0)})` : '';
        return `| ${target} | ${clients} | ${r.rps.toFixed(0)} | ${r.p50.toFixed(3)} | ${r.p99.toFixed(3)} | ${r.cpuUs.toFixed(1)}${range} |`;
      }),
    ),
    '',
    `Added per request (medians): ${added(1).toFixed(1)} µs of CPU with 1 client, where every request pays a commit of its own; ${added(64).toFixed(1)} µs with 64 clients, where the debits of many requests share one commit (compare with the spread of the rounds).`,
    '',
    'The debit alone (no HTTP, same process), CPU µs per debit:',
    '',
    '| ledger | 1 debit per turn | 64 debits per turn |',
    '|---|---|---|',
    ...[BEFORE, AFTER].map(
      (name) => `| ${name} | ${debit(name, 1).toFixed(2)} | ${debit(name, 64).toFixed(2)} |`,
    ),
    '',
  ];
}
