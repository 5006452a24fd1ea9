import { parseArgs } from 'node:util';
import { loadConfigFile, startGateway } from '@portico/gateway';
import { CliError } from '../errors.ts';
import { onShutdown } from '../shutdown.ts';

const HELP = `portico start --config FILE

Runs the gateway alone in front of real nodes. FILE is YAML or JSON (see the README, "Configuration").
The admin token may come from PORTICO_ADMIN_TOKEN instead of the file.`;

export async function runStart(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { config: { type: 'string' }, help: { type: 'boolean' } } });
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  if (!values.config) throw new CliError('--config FILE is required');
  const config = loadConfigFile(values.config);
  config.adminToken ??= process.env.PORTICO_ADMIN_TOKEN;
  const gateway = await startGateway(config);
  for (const network of gateway.networks) {
    console.log(`${network.name.padEnd(16)} ${network.chainId.padEnd(24)} ${network.baseUrl}/v3/<API_KEY>`);
  }
  await onShutdown(() => gateway.close());
  return 0;
}
