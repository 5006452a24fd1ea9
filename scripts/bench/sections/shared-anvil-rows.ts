// The wrk rows of `latest`, `debits` and `stores`, against one anvil: gateways as `portico start`
// processes, except the debits before/after pair, which runs in the bench's own process (its
// balances-in-memory variant exists only as a library setup).
import { join } from 'node:path';
import type { Anvil } from '@portico/devchain';
import { type Gateway, type GatewayStores, parseConfig, startGateway } from '@portico/gateway';
import { type PorticoProcess, startPorticoProcess } from '../../portico-process.ts';
import type { ChildServer } from '../child-server.ts';
import {
  ANVIL,
  BARE,
  BODY,
  CLIENTS,
  EMBEDDED_64,
  FINAL_BLOCK_BODY,
  FLOOR,
  GATEWAY,
  measure,
  median,
  NGINX,
  ROUNDS,
  type Row,
  SHARED_METERING,
  WARMUP,
  WORKERS,
  wrk,
} from '../common.ts';
import { startNginx } from '../nginx.ts';
import type { Results } from '../results.ts';
import { fixedBodyScript } from '../wrk.ts';
import { AFTER, BEFORE, inMemoryBalances } from './debits.ts';

/**
 * The main table with `latest`, the crash-safe debits before and after, cache hits and the shared
 * stores.
 */
export async function sharedAnvilRows(
  anvil: Anvil,
  dir: string,
  setup: { runs: (section: string) => boolean; haveNginx: boolean; floor: ChildServer; bare: ChildServer },
  results: Results,
): Promise<Row[]> {
  const { runs, haveNginx, floor, bare } = setup;
  const rows: Row[] = [];
  const script = fixedBodyScript(dir, BODY);
  const finalBlock = fixedBodyScript(dir, FINAL_BLOCK_BODY);
  const nginx = haveNginx && runs('latest') ? await startNginx(anvil.url, dir) : undefined;
  const network = (cache: boolean) => ({
    name: 'local',
    chainId: 'eip155:31337',
    upstreams: [anvil.url],
    cache,
  });
  const gateways: Gateway[] = [];
  const closeStores: (() => Promise<void>)[] = [];
  const processes: PorticoProcess[] = [];
  /** `portico start` (the built package) in a process of its own, as users run it. */
  const start = async (options: Omit<Parameters<typeof startPorticoProcess>[0], 'upstream' | 'dir'>) => {
    const started = await startPorticoProcess({ upstream: anvil.url, dir, ...options });
    processes.push(started);
    return started;
  };
  const open = async (label: string, config: Record<string, unknown>, stores?: GatewayStores) => {
    const gateway = await startGateway(parseConfig({ port: 0, logLevel: 'warn', ...config }), { stores });
    gateways.push(gateway);
    const { key } = await gateway.keys.create({ name: `bench-${label}`, dailyCredits: 1e15 });
    return `${gateway.networks[0].baseUrl}/v3/${key}`;
  };
  const record = async (target: string, url: string, luaScript: string, clients: number, pid?: number) => {
    const result = await measure(target, url, luaScript, clients, pid);
    rows.push({ target, clients, ...result });
    return result;
  };
  try {
    if (runs('debits')) {
      // Balances in memory only (rebuilt at start from usage flushed every 500 ms) against the
      // crash-safe embedded ledger (reservations committed to SQLite, debits inside them decided in
      // memory), both with their SQLite file on disk and the cache off.
      const memoryStores = inMemoryBalances(join(dir, 'before.db'));
      closeStores.push(memoryStores.close);
      const beforeUrl = await open('before', { networks: [network(false)] }, memoryStores);
      const afterUrl = await open('after', { networks: [network(false)], dataDir: join(dir, 'after') });
      for (const clients of [1, 64]) {
        // Alternated over ROUNDS rounds, each row the median round, so that both see the same machine.
        await wrk(beforeUrl, clients, script, WARMUP); // warm-up runs, not recorded
        await wrk(afterUrl, clients, script, WARMUP);
        const rounds: Record<string, Row[]> = { [BEFORE]: [], [AFTER]: [] };
        for (let round = 0; round < ROUNDS; round++) {
          for (const [target, url] of [
            [BEFORE, beforeUrl],
            [AFTER, afterUrl],
          ] as const)
            rounds[target].push({ target, clients, ...(await wrk(url, clients, script)) });
        }
        for (const target of [BEFORE, AFTER]) {
          const of = (field: 'rps' | 'p50' | 'p99' | 'cpuUs') => median(rounds[target].map((r) => r[field]));
          const cpu = rounds[target].map((r) => r.cpuUs);
          rows.push({
            target,
            clients,
            rps: of('rps'),
            p50: of('p50'),
            p99: of('p99'),
            cpuUs: of('cpuUs'),
            cpuRange: [Math.min(...cpu), Math.max(...cpu)],
          });
          console.log(
            `${target.padEnd(52)} c=${String(clients).padEnd(3)} ${rounds[target].map((r) => r.rps.toFixed(0)).join(' / ')} req/s, CPU ${rounds[target].map((r) => r.cpuUs.toFixed(1)).join(' / ')} µs per request`,
          );
        }
      }
    }
    if (runs('stores')) {
      await record('anvil direct, block 0x1', anvil.url, finalBlock, 64);
      const cached = await start({ cache: true });
      await record('Portico gateway, cache hit (block 0x1)', cached.url, finalBlock, 64, cached.pid);
      if (process.env.DATABASE_URL && process.env.REDIS_URL) {
        const stores = {
          kind: 'shared',
          databaseUrl: process.env.DATABASE_URL,
          redisUrl: process.env.REDIS_URL,
          redisKeyPrefix: `bench-${Date.now()}:`,
        };
        const embeddedGateway = await start({});
        const sharedGateway = await start({ stores });
        const workers = await start({
          workers: 2,
          stores: { ...stores, redisKeyPrefix: `bench-workers-${Date.now()}:` },
        });
        // Embedded and shared metering back to back, so that the ratio compares the same minute.
        const embedded = await record(EMBEDDED_64, embeddedGateway.url, script, 64, embeddedGateway.pid);
        const shared = await record(SHARED_METERING, sharedGateway.url, script, 64, sharedGateway.pid);
        // With shared stores the cache is in Redis by default.
        const sharedCache = await start({ cache: true, stores });
        await record(
          'Portico gateway, cache hit (Redis-shared)',
          sharedCache.url,
          finalBlock,
          64,
          sharedCache.pid,
        );
        // The two workers' CPU is not one process's: no CPU column for this row.
        const workersResult = await record(WORKERS, workers.url, script, 64);
        results.stores = { embedded, shared, workers: workersResult };
      } else {
        const message =
          'DATABASE_URL / REDIS_URL unset: skipping the shared-store metering, Redis-shared cache and `--workers 2` rows';
        console.log(message);
        results.skipped.push(message);
      }
    }
    if (runs('latest')) {
      const gateway = await start({});
      const targets = [
        { target: ANVIL, url: anvil.url },
        ...(nginx ? [{ target: NGINX, url: nginx.url }] : []),
        { target: BARE, url: bare.url, pid: bare.pid },
        { target: GATEWAY, url: gateway.url, pid: gateway.pid },
        { target: FLOOR, url: floor.url, pid: floor.pid },
      ];
      for (const clients of CLIENTS)
        for (const { target, url, pid } of targets) await record(target, url, script, clients, pid);
    }
  } finally {
    nginx?.stop();
    for (const started of processes) await started.stop();
    for (const gateway of gateways) await gateway.close();
    for (const close of closeStores) await close();
  }
  return rows;
}
