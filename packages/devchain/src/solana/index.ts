/**
 * `startSolanaLedger`: a development Solana ledger (LiteSVM + slots, commitment, history and a
 * JSON-RPC endpoint) for `portico dev`, as anvil is for EVM.
 */

import { SlotClock } from './clock.ts';
import { Ledger } from './ledger.ts';
import { DEV_ACCOUNT_NAMES, type DevAccount, devKeypair, seedLedger } from './seed.ts';
import { startRpcServer } from './server.ts';

export type StartSolanaLedgerOptions = {
  /** Directory for the ledger's files (SQLite history + account snapshot); in memory without it. */
  dataDir?: string;
  /** TCP port on 127.0.0.1; 0 (default) picks a free one. */
  port?: number;
  /** Milliseconds per slot; default 400 as on a cluster. */
  slotMs?: number;
  /** Seed dev activity into a fresh ledger (never again into one that has history). Default false. */
  seed?: boolean;
  /** Called with the ledger's log lines (never secrets). */
  onLog?: (line: string) => void;
};

export type SolanaLedger = {
  url: string;
  /** WebSocket PubSub endpoint (signatureSubscribe, slotSubscribe) on the same port. */
  wsUrl: string;
  genesisHash: string;
  /** CAIP-2: `solana:` + the first 32 characters of the genesis hash. */
  chainId: string;
  /** The deterministic dev keypairs (funded when the ledger was seeded). */
  devAccounts: DevAccount[];
  stop(): Promise<void>;
};

const SNAPSHOT_INTERVAL_MS = 5000;

export async function startSolanaLedger(options: StartSolanaLedgerOptions = {}): Promise<SolanaLedger> {
  const log = options.onLog ?? (() => {});
  const ledger = await Ledger.open({ dataDir: options.dataDir, onLog: log });
  const keypairs = await Promise.all(DEV_ACCOUNT_NAMES.map((name) => devKeypair(name)));
  try {
    if (options.seed && ledger.transactionCount === 0) {
      const signers = Object.fromEntries(keypairs.map(({ account, signer }) => [account.name, signer]));
      const signatures = await seedLedger(ledger, signers);
      log(`solana: seeded ${signatures.length} transactions between the dev accounts`);
    }
  } catch (error) {
    ledger.close();
    throw error;
  }
  const clock = new SlotClock(options.slotMs ?? 400, () => ledger.advanceSlot());
  let server: Awaited<ReturnType<typeof startRpcServer>>;
  try {
    server = await startRpcServer(ledger, options.port ?? 0, log);
  } catch (error) {
    ledger.close();
    throw error;
  }
  clock.start();
  const snapshots = setInterval(() => {
    try {
      ledger.saveSnapshot();
    } catch (error) {
      log(`solana: account snapshot failed: ${(error as Error).message}`);
    }
  }, SNAPSHOT_INTERVAL_MS);
  snapshots.unref();
  log(`solana: ledger at ${server.url}, genesis ${ledger.genesisHash}, slot ${ledger.slot}`);
  let stopped: Promise<void> | undefined;
  return {
    url: server.url,
    wsUrl: server.wsUrl,
    genesisHash: ledger.genesisHash,
    chainId: `solana:${ledger.genesisHash.slice(0, 32)}`,
    devAccounts: keypairs.map(({ account }) => account),
    stop: () => {
      stopped ??= (async () => {
        clock.stop();
        clearInterval(snapshots);
        await server.close();
        ledger.close();
      })();
      return stopped;
    },
  };
}
