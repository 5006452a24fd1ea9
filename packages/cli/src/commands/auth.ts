import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { type AuthStore, PostgresStore, SqliteStore, verifyAuditChain } from '@portico/auth-server';
import { defaultDataDir } from '../data-dir.ts';
import { CliError } from '../errors.ts';

const HELP = `portico auth audit verify [--json] [--data-dir DIR | --auth-dir DIR | --database-url URL]

Checks the auth service's audit trail: every entry must follow the one before it (hash chain from
the first entry). Names the first entry that does not (deleted or edited) and exits 1; 0 when the
chain holds. A deletion of the newest entries leaves no gap and is not detected (keep a copy of the
last hash, e.g. from GET /admin/audit, to check against).

  --data-dir DIR       portico dev's data folder (default ${defaultDataDir()}); the store is DIR/auth/auth.db
  --auth-dir DIR       an auth service's own dataDir (its auth.db)
  --database-url URL   the auth service's PostgreSQL store
  --json               {entries, broken?: {seq, reason}}`;

/** `portico auth audit verify`; `print` receives the output lines (stdout by default). */
export async function runAuth(args: string[], print: (line: string) => void = console.log): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      'data-dir': { type: 'string' },
      'auth-dir': { type: 'string' },
      'database-url': { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    print(HELP);
    return 0;
  }
  if (positionals.join(' ') !== 'audit verify') throw new CliError(`usage: ${HELP.split('\n')[0]}`);
  const given = [values['data-dir'], values['auth-dir'], values['database-url']].filter(
    (v) => v !== undefined,
  );
  if (given.length > 1) throw new CliError('give one of --data-dir, --auth-dir, --database-url');
  const authDir = values['auth-dir'] ?? join(values['data-dir'] ?? defaultDataDir(), 'auth');
  if (!values['database-url'] && !existsSync(join(authDir, 'auth.db'))) {
    throw new CliError(`no auth store at ${join(authDir, 'auth.db')}`);
  }
  const store: AuthStore = values['database-url']
    ? await PostgresStore.open(values['database-url'])
    : new SqliteStore(authDir);
  try {
    const result = verifyAuditChain(await store.readAudit({}));
    if (values.json) print(JSON.stringify(result));
    else if (result.broken)
      print(`audit trail broken at entry ${result.broken.seq}: ${result.broken.reason}`);
    else print(`audit trail intact: ${result.entries} entries`);
    return result.broken ? 1 : 0;
  } finally {
    await store.close();
  }
}
