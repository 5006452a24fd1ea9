import { parseArgs } from 'node:util';
import { migrateConfigCommand } from '@portico/auth/node';
import { CliError } from '../errors.ts';

const HELP = `portico migrate-config FILE [--dry-run]

Rewrites an auth library config (JSON) from v5/v6 to v7 and prints one line per change:
whiteLabel.name → appName, dark → mode (a v6 whiteLabel without dark → "light"), defaultLanguage
→ one of en de ja ko zh es fr pt nl ("de-DE" → de, others → en). --dry-run prints the result
instead of writing it.`;

export async function runMigrateConfig(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { 'dry-run': { type: 'boolean' }, help: { type: 'boolean' } },
  });
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  const [file] = positionals;
  if (!file) throw new CliError('usage: portico migrate-config FILE [--dry-run]');
  return migrateConfigCommand(file, { write: !values['dry-run'] });
}
