import cluster, { type Worker } from 'node:cluster';
import { onShutdown, SHUTDOWN_MESSAGE } from './shutdown.ts';

/** What a worker sends its supervisor once it serves. */
export const READY_MESSAGE = 'portico:ready';

/**
 * Runs this command again in `count` worker processes that share the listening port (node:cluster),
 * so the gateway uses more than one core. A worker that dies after it was ready is replaced; one
 * that dies before (a bad config, a port taken) stops them all, with its exit code. SIGINT/SIGTERM
 * ask every worker to finish its requests, and the supervisor exits when they have.
 */
export async function superviseWorkers(count: number): Promise<number> {
  let stopping = false;
  let failed: number | undefined;
  const serving = new WeakSet<Worker>();
  const stopAll = () =>
    Promise.all(
      Object.values(cluster.workers ?? {}).map(
        (worker) =>
          new Promise<void>((resolve) => {
            if (!worker || worker.isDead()) return resolve();
            worker.once('exit', () => resolve());
            // A worker still starting does not listen for the message yet: a signal ends it.
            if (serving.has(worker) && worker.isConnected()) worker.send(SHUTDOWN_MESSAGE);
            else worker.process.kill('SIGTERM');
          }),
      ),
    );
  let gaveUp: () => void = () => {};
  let allServing = false;
  const start = () => {
    const worker: Worker = cluster.fork();
    worker.on('message', (message) => {
      if (message !== READY_MESSAGE) return;
      serving.add(worker);
      // The first worker prints the banner as soon as it serves; until the others do, it takes
      // every connection. Said once, so an operator (or a test) knows when the load is shared.
      const ready = Object.values(cluster.workers ?? {}).filter((w) => w && serving.has(w)).length;
      if (!allServing && ready === count) {
        allServing = true;
        console.log(`All ${count} workers serve.`);
      }
    });
    worker.on('exit', (code, signal) => {
      if (stopping) return;
      if (!serving.has(worker)) {
        failed = code || 1;
        stopping = true;
        console.error(`worker ${worker.process.pid} exited before it served (${signal ?? code}); stopping`);
        void stopAll().then(() => gaveUp());
        return;
      }
      console.error(`worker ${worker.process.pid} exited (${signal ?? code}); starting another`);
      setTimeout(() => stopping || start(), 500);
    });
  };
  for (let i = 0; i < count; i++) start();
  await Promise.race([
    new Promise<void>((resolve) => {
      gaveUp = resolve;
    }),
    onShutdown(async () => {
      stopping = true;
      await stopAll();
    }),
  ]);
  return failed ?? 0;
}

/** True in a worker process started by `superviseWorkers`. */
export const isWorker = cluster.isWorker;

/** Tells the supervisor (if any) that this worker serves. */
export function reportReady() {
  if (cluster.isWorker) process.send?.(READY_MESSAGE);
}

/** Whether this worker is the one that prints the banner (the first). */
export const printsBanner = cluster.isPrimary || cluster.worker?.id === 1;
