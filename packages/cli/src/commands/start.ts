import { parseArgs } from 'node:util';
import { loadConfigFile, startGateway } from '@portico/gateway';
import { CliError } from '../errors.ts';
import { onShutdown } from '../shutdown.ts';
import { isWorker, printsBanner, reportReady, superviseWorkers } from '../workers.ts';

const HELP = `portico start --config FILE [--workers N]

Runs the gateway alone in front of real nodes. FILE is YAML or JSON (see the README, "Configuration").
The admin token may come from PORTICO_ADMIN_TOKEN instead of the file.

--workers N   N gateway processes sharing the port (one per core). Needs stores.kind: shared, so
              that balances and keys are shared between them.`;

export async function runStart(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { config: { type: 'string' }, workers: { type: 'string' }, help: { type: 'boolean' } },
  });
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  if (!values.config) throw new CliError('--config FILE is required');
  const workers = values.workers === undefined ? 1 : Number(values.workers);
  if (!Number.isInteger(workers) || workers < 1 || workers > 64)
    throw new CliError('--workers must be an integer from 1 to 64');
  const config = loadConfigFile(values.config);
  config.adminToken ??= process.env.PORTICO_ADMIN_TOKEN;
  if (workers > 1 && !isWorker) {
    if (config.stores?.kind !== 'shared') {
      throw new CliError(
        '--workers needs stores.kind: shared in the config: daily balances and per-second limits must be shared by the worker processes',
      );
    }
    return superviseWorkers(workers);
  }
  const gateway = await startGateway(config);
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
