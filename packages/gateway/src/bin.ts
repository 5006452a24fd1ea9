#!/usr/bin/env node
// `portico-gateway`: the gateway alone, for operators who run only it (installed with
// @portico/gateway, without the portico command's dev chains, auth service or wallet).
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfigFile } from './config/config.ts';
import { serveGateway } from './process/serve.ts';

const HELP = `portico-gateway --config FILE [--workers N]

Runs the Portico JSON-RPC gateway in front of real nodes. FILE is YAML or JSON (the README's
"Configuration"); the admin token may come from PORTICO_ADMIN_TOKEN instead of the file.

--workers N   N gateway processes sharing the port (one per core); needs stores.kind: shared.
--version     prints the version.`;

/** Mistakes in how the command was called: said in one line, exit code 2. */
const ONE_LINE = new Set(['ConfigError', 'SchemaTooNewError', 'UsageError']);

function usageError(message: string): Error {
  return Object.assign(new Error(message), { name: 'UsageError' });
}

/** The parts only `portico start` runs: a config written for it names them here. */
const START_SECTIONS = ['dashboard', 'auth', 'wallet'];

function withPartsHint<T>(load: () => T): T {
  try {
    return load();
  } catch (error) {
    const unknown =
      error instanceof ConfigError && /^config has unknown field\(s\): ([^(]*)/.exec(error.message);
    const parts = unknown ? unknown[1].split(/,\s*/).map((name) => name.trim()) : [];
    if (parts.some((name) => START_SECTIONS.includes(name)))
      throw new ConfigError(
        `${(error as Error).message}; dashboard, auth and wallet run under portico start (@portico/cli), portico-gateway serves the gateway alone`,
      );
    throw error;
  }
}

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      config: { type: 'string' },
      workers: { type: 'string' },
      help: { type: 'boolean' },
      version: { type: 'boolean' },
    },
  });
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  if (values.version) {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    console.log(pkg.version);
    return 0;
  }
  if (!values.config) throw usageError(`--config FILE is required\n\n${HELP}`);
  const workers = values.workers === undefined ? 1 : Number(values.workers);
  if (!Number.isInteger(workers) || workers < 1 || workers > 64)
    throw usageError('--workers must be an integer from 1 to 64');
  const config = withPartsHint(() => loadConfigFile(values.config as string));
  config.adminToken ??= process.env.PORTICO_ADMIN_TOKEN;
  return serveGateway(config, { workers });
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  const { name, message, stack } = error as Error;
  // util.parseArgs' refusals (ERR_PARSE_ARGS_*) are the person's mistake: one line, no stack.
  const code = (error as { code?: unknown }).code;
  const oneLine = ONE_LINE.has(name) || (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_'));
  console.error(`portico-gateway: ${oneLine ? message : (stack ?? message)}`);
  process.exitCode = oneLine ? 2 : 1;
}
