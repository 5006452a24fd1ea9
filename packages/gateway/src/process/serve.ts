import { ConfigError, type GatewayConfig } from '../config/config.ts';
import { type Gateway, startGateway } from '../gateway.ts';
import { onShutdown } from './shutdown.ts';
import { isWorker, printsBanner, reportReady, superviseWorkers } from './workers.ts';

/**
 * Runs the gateway of `config` as a process until SIGINT/SIGTERM: in this process, or with
 * `workers` above 1 in that many worker processes sharing the port (shared stores only). Prints
 * each network's address once it serves; resolves with the exit code.
 */
export async function serveGateway(
  config: GatewayConfig,
  options: { workers?: number } = {},
): Promise<number> {
  const workers = options.workers ?? 1;
  if (workers > 1 && !isWorker) {
    if (config.stores?.kind !== 'shared') {
      throw new ConfigError(
        '--workers needs stores.kind: shared in the config: daily balances and per-second limits must be shared by the worker processes',
      );
    }
    return superviseWorkers(workers);
  }
  const gateway: Gateway = await startGateway(config);
  if (printsBanner) {
    for (const network of gateway.networks) {
      console.log(`${network.name.padEnd(16)} ${network.chainId.padEnd(24)} ${network.baseUrl}/v3/<API_KEY>`);
    }
  }
  reportReady();
  await onShutdown(() => gateway.close());
  // A worker's channel to its supervisor would keep it alive.
  if (isWorker) process.disconnect?.();
  return 0;
}
