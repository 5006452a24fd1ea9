import { CliError } from './errors.ts';

const USAGE = `portico — self-hostable Web3 access platform

Usage:
  portico dev [--port N] [--data-dir DIR] [--api-key KEY] [--config-out FILE] [--block-time S] [--wallet-auto-approve]
  portico start --config FILE [--workers N] [--config-out FILE]
  portico keys create --name NAME [--daily-credits N] [--json] [--data-dir DIR | --url URL --admin-token T]
  portico keys list [--json] [--data-dir DIR | --url URL --admin-token T]
  portico keys revoke KEY_ID [--json] [--data-dir DIR | --url URL --admin-token T]
  portico migrate-config FILE [--dry-run]
  portico dev-token USER_ID [--email E] [--name N] [--json] [--data-dir DIR]
  portico fund ADDRESS [--amount N] [--json] [--data-dir DIR | --url URL]
  portico auth audit verify [--json] [--data-dir DIR | --auth-dir DIR | --database-url URL]


Run 'portico <command> --help' for the options of a command.`;

// Each command loads only what it runs (portico fund need not load the gateway or the wallet).
const COMMANDS: Record<string, () => Promise<(args: string[]) => Promise<number>>> = {
  dev: async () => (await import('./commands/dev.ts')).runDev,
  start: async () => (await import('./commands/start.ts')).runStart,
  keys: async () => (await import('./commands/keys.ts')).runKeys,
  'migrate-config': async () => (await import('./commands/migrate-config.ts')).runMigrateConfig,
  'dev-token': async () => (await import('./commands/dev-token.ts')).runDevToken,
  fund: async () => (await import('./commands/fund.ts')).runFund,
  auth: async () => (await import('./commands/auth.ts')).runAuth,
};

/** Runs the command line; returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    console.log(USAGE);
    return command ? 0 : 1;
  }
  const load = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  if (!load) {
    console.error(`portico: unknown command "${command}"\n\n${USAGE}`);
    return 2;
  }
  try {
    return await (await load())(rest);
  } catch (error) {
    const named = ['ConfigError', 'SchemaTooNewError'].includes((error as Error).name);
    if (error instanceof CliError || named || isArgumentError(error)) {
      console.error(`portico ${command}: ${(error as Error).message}`);
      return 2;
    }
    console.error(`portico ${command}: ${(error as Error).stack ?? error}`);
    return 1;
  }
}

/** util.parseArgs' refusals (an unknown option, a missing value): the person's mistake, said in one line. */
function isArgumentError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_');
}
