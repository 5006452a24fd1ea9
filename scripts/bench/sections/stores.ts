// The `stores` section's table: cache hits in process and shared-store metering.
import { EMBEDDED_64, fmt, type Row, SHARED_METERING, WORKERS } from '../common.ts';

export function storesSection(rows: Row[]): string[] {
  const shown = [
    'anvil direct, block 0x1',
    'Portico gateway, cache hit (block 0x1)',
    EMBEDDED_64,
    SHARED_METERING,
    'Portico gateway, cache hit (Redis-shared)',
    WORKERS,
  ];
  return [
    '## Cache hits in process and shared-store metering (64 clients)',
    '',
    'A finalized block by number is served from the cache (still authenticated and charged). The embedded and the',
    'Redis + PostgreSQL metering rows are cache hits too, the cache in memory in both (no upstream call and no',
    'merged requests, whose share moves with timing: what differs is the metering alone), run in turn over 5',
    'rounds, each figure the median of its rounds: keys in SQLite and balances debited in memory inside a',
    'reservation, against keys in PostgreSQL and balances debited in Redis by a Lua script. The Redis-shared',
    'cache row reads the block from Redis (as several instances would share it) and meters in Redis too.',
    '`portico start --workers 2` needs the shared stores, so it compares with the shared metering row (cache',
    'hits, a cache in memory per worker).',
    '',
    '| target | req/s | p50 ms | p99 ms |',
    '|---|---|---|---|',
    ...rows
      .filter((r) => shown.includes(r.target))
      .map((r) => `| ${r.target} | ${r.rps.toFixed(0)} | ${fmt(r.p50)} | ${fmt(r.p99)} |`),
    '',
  ];
}
