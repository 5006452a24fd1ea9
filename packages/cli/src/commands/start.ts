import { parseArgs } from 'node:util';
import { loadConfigFile, serveGateway } from '@portico/gateway';
import { CliError } from '../errors.ts';

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
  return serveGateway(config, { workers });
}
