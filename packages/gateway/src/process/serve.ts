import { ConfigError, type GatewayConfig } from '../config/config.ts';
import { type Gateway, startGateway } from '../gateway.ts';
import type { HttpServerDependencies } from '../server/http-server.ts';
import { onShutdown } from './shutdown.ts';
import { startupWarnings } from './warnings.ts';
import { isWorker, printsBanner, reportReady, superviseWorkers } from './workers.ts';

/** Another part served by the same process (the auth service, the wallet), started once the gateway serves. */
export type ServedPart = { close(): Promise<void>; bannerLines?: string[] };

export type ServeGatewayOptions = {
  workers?: number;
  /** Extra request handlers on the gateway's port (e.g. the dashboard). */
  extraHandlers?: HttpServerDependencies['extraHandlers'];
  /** Starts the other parts of this process; closed before the gateway at shutdown. */
  startParts?: (gateway: Gateway) => Promise<ServedPart>;
};

/**
 * Runs the gateway of `config` as a process until SIGINT/SIGTERM: in this process, or with
 * `workers` above 1 in that many worker processes sharing the port (shared stores only). Prints
 * each network's address once it serves; resolves with the exit code.
 */
export async function serveGateway(
  config: GatewayConfig,
  options: ServeGatewayOptions = {},
): Promise<number> {
  const workers = options.workers ?? 1;
  if (!isWorker) for (const warning of startupWarnings(config)) console.warn(warning);
  if (workers > 1 && !isWorker) {
    if (config.stores?.kind !== 'shared') {
      throw new ConfigError(
        '--workers needs stores.kind: shared in the config: daily balances and per-second limits must be shared by the worker processes',
      );
    }
    return superviseWorkers(workers);
  }
  const gateway: Gateway = await portNamed(
    () => startGateway(config, { extraHandlers: options.extraHandlers }),
    config.port,
    'port',
  );
  let parts: ServedPart = { close: async () => {} };
  try {
    if (options.startParts) parts = await options.startParts(gateway);
  } catch (error) {
    await gateway.close();
    throw error;
  }
  // Listening for SIGTERM before the banner says it serves: a supervisor that stops it as soon as
  // it reads the banner must get a clean shutdown, not the default end by signal.
  const stopped = onShutdown(async () => {
    await parts.close();
    await gateway.close();
  });
  if (printsBanner) {
    for (const network of gateway.networks) {
      console.log(`${network.name.padEnd(16)} ${network.chainId.padEnd(24)} ${network.baseUrl}/v3/<API_KEY>`);
    }
    for (const line of parts.bannerLines ?? []) console.log(line);
  }
  reportReady();
  await stopped;
  // A worker's channel to its supervisor would keep it alive.
  if (isWorker) process.disconnect?.();
  return 0;
}

/**
 * Runs `listen`; a port already in use becomes one line naming the port and the config field that
 * changes it (a ConfigError: printed without a stack trace, non-zero exit).
 */
export async function portNamed<T>(listen: () => Promise<T>, port: number, fieldName: string): Promise<T> {
  try {
    return await listen();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE')
      throw new ConfigError(
        `port ${port} is already in use; choose another with ${fieldName}: in the config`,
      );
    if (code === 'EACCES')
      throw new ConfigError(
        `port ${port} needs privileges this process does not have; choose another with ${fieldName}: in the config`,
      );
    throw error;
  }
}
