// The wrk rows of `latest`, `debits` and `stores`, against one anvil: gateways as `portico start`
// processes, except the debits before/after pair, which runs in the bench's own process (its
// balances-in-memory variant exists only as a library setup).
import { join } from 'node:path';
import type { Anvil } from '@portico/devchain';
import {
  type Gateway,
  type GatewayStores,
  openEmbeddedStores,
  parseConfig,
  startGateway,
} from '@portico/gateway';
import { type PorticoProcess, startPorticoProcess } from '../../portico-process.ts';
import type { ChildServer } from '../child-server.ts';
import {
  ANVIL,
  alternate,
  BARE,
  BODY,
  CLIENTS,
  EMBEDDED_64,
  FINAL_BLOCK_BODY,
  FLOOR,
  GATEWAY,
  measure,
  NGINX,
  type Row,
  SHARED_METERING,
  WORKERS,
} from '../common.ts';
import { startNginx } from '../nginx.ts';
import type { Results } from '../results.ts';
import { fixedBodyScript } from '../wrk.ts';
import { AFTER, AHEAD, BEFORE, DURABLE_TARGETS, inMemoryBalances } from './debits.ts';

/** Rounds of the embedded against shared metering pair (its ratio is a goal, and the noisiest). */
const STORE_ROUNDS = 5;

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
      const aheadStores = openEmbeddedStores(join(dir, 'ahead'), { reserveAhead: true });
      closeStores.push(aheadStores.close);
      const aheadUrl = await open('ahead', { networks: [network(false)] }, aheadStores);
      const afterUrl = await open('after', { networks: [network(false)], dataDir: join(dir, 'after') });
      for (const clients of [1, 64]) {
        // Alternated over ROUNDS rounds, each row the median round, so that all see the same machine.
        const pair = await alternate(
          [
            { target: BEFORE, url: beforeUrl },
            { target: AHEAD, url: aheadUrl },
            { target: AFTER, url: afterUrl },
          ],
          clients,
          script,
        );
        for (const [i, target] of DURABLE_TARGETS.entries()) {
          const cpu = pair[i].rounds.map((r) => r.cpuUs);
          rows.push({
            target,
            clients,
            ...pair[i].median,
            cpuRange: [Math.min(...cpu), Math.max(...cpu)],
          });
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
          redis: process.env.REDIS_URL,
          redisKeyPrefix: `bench-${Date.now()}:`,
        };
        // Metering measured on cache hits, the cache in memory in both: no upstream call and no merged
        // requests (whose share moves with timing), so what differs is the metering alone.
        const inMemoryCache = { cache: { store: 'memory' } };
        const embeddedGateway = await start({ cache: true });
        const sharedGateway = await start({ stores, network: inMemoryCache });
        const workers = await start({
          workers: 2,
          stores: { ...stores, redisKeyPrefix: `bench-workers-${Date.now()}:` },
          network: inMemoryCache,
        });
        // Embedded and shared metering alternated over STORE_ROUNDS rounds, so that the ratio compares
        // the same minutes (one run each moved the ratio by 10 points from one bench to the next).
        const [embeddedRuns, sharedRuns] = await alternate(
          [
            { target: EMBEDDED_64, url: embeddedGateway.url, pid: embeddedGateway.pid },
            { target: SHARED_METERING, url: sharedGateway.url, pid: sharedGateway.pid },
          ],
          64,
          finalBlock,
          STORE_ROUNDS,
        );
        const embedded = embeddedRuns.median;
        const shared = sharedRuns.median;
        rows.push(
          { target: EMBEDDED_64, clients: 64, ...embedded },
          { target: SHARED_METERING, clients: 64, ...shared },
        );
        const storeRounds = embeddedRuns.rounds.map((run, i) => ({
          embedded: run,
          shared: sharedRuns.rounds[i],
        }));
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
        const workersResult = await record(WORKERS, workers.url, finalBlock, 64);
        results.stores = { embedded, shared, workers: workersResult, rounds: storeRounds };
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
