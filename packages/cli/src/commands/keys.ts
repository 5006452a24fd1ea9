import { parseArgs } from 'node:util';
import { type ApiKeyRecord, describeKey, type KeyView, openEmbeddedStores } from '@portico/gateway';
import { defaultDataDir } from '../data-dir.ts';
import { CliError } from '../errors.ts';

const HELP = `portico keys create --name NAME [--daily-credits N]
portico keys list
portico keys revoke KEY_ID

Where the keys live (one of):
  --data-dir DIR             the data folder of a portico dev / start on this machine (default ${defaultDataDir()})
  --url URL --admin-token T  a running gateway's admin API (or PORTICO_ADMIN_TOKEN)
Output:
  --json                     machine-readable output (a new key is under "key")`;

/** The operations, whether on a data folder or through the admin API. */
type KeyBackend = {
  create(name: string, dailyCredits?: number): Promise<KeyView & { key: string }>;
  list(): Promise<KeyView[]>;
  revoke(id: string): Promise<KeyView>;
  close(): Promise<void>;
};

export async function runKeys(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      'daily-credits': { type: 'string' },
      'data-dir': { type: 'string' },
      url: { type: 'string' },
      'admin-token': { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean' },
    },
  });
  const [action, ...rest] = positionals;
  if (values.help || !action) {
    console.log(HELP);
    return values.help ? 0 : 2;
  }
  const backend = values.url
    ? adminApiBackend(values.url, values['admin-token'] ?? process.env.PORTICO_ADMIN_TOKEN)
    : dataDirBackend(values['data-dir'] ?? defaultDataDir());
  try {
    if (action === 'create') {
      if (!values.name) throw new CliError('--name NAME is required');
      const credits = values['daily-credits'];
      const dailyCredits = credits === undefined ? undefined : Number(credits);
      if (dailyCredits !== undefined && (!Number.isSafeInteger(dailyCredits) || dailyCredits < 0)) {
        throw new CliError('--daily-credits must be a non-negative integer');
      }
      const created = await backend.create(values.name, dailyCredits);
      if (values.json) console.log(JSON.stringify(created, null, 2));
      else {
        console.log(`Created ${created.id} "${created.name}" with ${created.dailyCredits} credits a day.`);
        console.log(`Key (shown once, store it now): ${created.key}`);
      }
      return 0;
    }
    if (action === 'list') {
      const keys = await backend.list();
      if (values.json) console.log(JSON.stringify({ keys }, null, 2));
      else printTable(keys);
      return 0;
    }
    if (action === 'revoke') {
      const [id] = rest;
      if (!id) throw new CliError('usage: portico keys revoke KEY_ID');
      const revoked = await backend.revoke(id);
      if (values.json) console.log(JSON.stringify(revoked, null, 2));
      else console.log(`Revoked ${revoked.id} "${revoked.name}".`);
      return 0;
    }
    throw new CliError(`unknown keys action "${action}" (create, list, revoke)`);
  } finally {
    await backend.close();
  }
}

function printTable(keys: KeyView[]) {
  if (keys.length === 0) return console.log('No keys.');
  console.log(
    ['ID'.padEnd(16), 'NAME'.padEnd(20), 'PREFIX', 'USED TODAY / DAILY'.padEnd(24), 'STATUS'].join('  '),
  );
  for (const k of keys) {
    console.log(
      [
        k.id.padEnd(16),
        k.name.slice(0, 20).padEnd(20),
        k.prefix.padEnd(6),
        `${k.creditsUsedToday} / ${k.dailyCredits}`.padEnd(24),
        k.revokedAt ? `revoked ${k.revokedAt}` : 'active',
      ].join('  '),
    );
  }
}

function dataDirBackend(dataDir: string): KeyBackend {
  const { keys, ledger, close } = openEmbeddedStores(dataDir);
  const view = (record: ApiKeyRecord) => describeKey(record, ledger);
  return {
    async create(name, dailyCredits) {
      const { key, record } = await keys.create({ name, dailyCredits });
      return { key, ...(await view(record)) };
    },
    list: async () => Promise.all((await keys.list()).map(view)),
    async revoke(id) {
      const record = await keys.revoke(id);
      if (!record) throw new CliError(`no key with id ${id} (see portico keys list)`);
      return view(record);
    },
    close,
  };
}

function adminApiBackend(url: string, token: string | undefined): KeyBackend {
  if (!token) throw new CliError('--admin-token (or PORTICO_ADMIN_TOKEN) is required with --url');
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(new URL(path, url), {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    }).catch(() => {
      throw new CliError(`cannot reach the gateway at ${url}`);
    });
    const payload = (await response.json().catch(() => ({}))) as { error?: { message: string } };
    if (!response.ok)
      throw new CliError(payload.error?.message ?? `admin API answered HTTP ${response.status}`);
    return payload as Record<string, unknown>;
  };
  return {
    create: async (name, dailyCredits) =>
      (await call('POST', '/admin/keys', { name, dailyCredits })) as KeyView & { key: string },
    list: async () => (await call('GET', '/admin/keys')).keys as KeyView[],
    revoke: async (id) => (await call('DELETE', `/admin/keys/${encodeURIComponent(id)}`)) as KeyView,
    close: async () => {},
  };
}
