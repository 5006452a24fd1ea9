import { runDev } from './commands/dev.ts';
import { runKeys } from './commands/keys.ts';
import { runMigrateConfig } from './commands/migrate-config.ts';
import { runStart } from './commands/start.ts';
import { CliError } from './errors.ts';

const USAGE = `portico — self-hostable Web3 access platform

Usage:
  portico dev [--port N] [--data-dir DIR] [--api-key KEY] [--config-out FILE] [--block-time S] [--wallet-auto-approve]
  portico start --config FILE [--workers N]
  portico keys create --name NAME [--daily-credits N] [--json] [--data-dir DIR | --url URL --admin-token T]
  portico keys list [--json] [--data-dir DIR | --url URL --admin-token T]
  portico keys revoke KEY_ID [--json] [--data-dir DIR | --url URL --admin-token T]
  portico migrate-config FILE [--dry-run]


Run 'portico <command> --help' for the options of a command.`;

const COMMANDS: Record<string, (args: string[]) => Promise<number>> = {
  dev: runDev,
  start: runStart,
  keys: runKeys,
  'migrate-config': runMigrateConfig,
};

/** Runs the command line; returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    console.log(USAGE);
    return command ? 0 : 1;
  }
  const run = COMMANDS[command];
  if (!run) {
    console.error(`portico: unknown command "${command}"\n\n${USAGE}`);
    return 2;
  }
  try {
    return await run(rest);
  } catch (error) {
    if (error instanceof CliError || (error as Error).name === 'ConfigError' || error instanceof TypeError) {
      console.error(`portico ${command}: ${(error as Error).message}`);
      return 2;
    }
    console.error(`portico ${command}: ${(error as Error).stack ?? error}`);
    return 1;
  }
}
