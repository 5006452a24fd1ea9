// Node-only parts of @portico/auth (file access); the main entry stays free of Node built-ins so
// browser and React Native bundles need no polyfills.
import { readFile, writeFile } from 'node:fs/promises';
import { type MigrationChange, migrateInitParams } from './migrate.ts';
import { ownValue, setOwn } from './own.ts';
import type { StorageAdapter } from './storage.ts';
import type { AuthInitParamsV6 } from './types.ts';

export * from './index.ts';
export { type LoopbackReceiver, startLoopbackReceiver } from './loopback.ts';

/** Keeps values in a JSON file (Node); the file holds only the sessionId. */
export class FileStorage implements StorageAdapter {
  constructor(private readonly path: string) {}
  private async read(): Promise<Record<string, string>> {
    try {
      return JSON.parse(await readFile(this.path, 'utf8')) as Record<string, string>;
    } catch {
      return {};
    }
  }
  private async write(values: Record<string, string>): Promise<void> {
    await writeFile(this.path, JSON.stringify(values), { mode: 0o600 });
  }
  async get(key: string): Promise<string | null> {
    return ownValue(await this.read(), key) ?? null;
  }
  async set(key: string, value: string): Promise<void> {
    const values = await this.read();
    setOwn(values, key, value);
    await this.write(values);
  }
  async remove(key: string): Promise<void> {
    const values = await this.read();
    delete values[key];
    await this.write(values);
  }
}

export interface MigrateConfigFileResult {
  /** The rewritten file, JSON with two-space indentation and a final newline. */
  json: string;
  changes: MigrationChange[];
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Reads a JSON config file holding v6 init parameters — at the top level, or under `initParams`,
 * `auth` or `auth.initParams` — and returns it rewritten to v7 with the list of changes. The file
 * itself is not written; `portico migrate-config FILE` decides what to do with the result.
 */
export async function migrateConfigFile(path: string): Promise<MigrateConfigFileResult> {
  const root: unknown = JSON.parse(await readFile(path, 'utf8'));
  if (!isObj(root)) throw new Error(`${path}: expected a JSON object`);
  const candidates: Array<[Obj, string, string]> = [];
  if ('clientId' in root) candidates.push([{ root }, 'root', '']);
  for (const key of ['initParams', 'auth']) {
    const inner = root[key];
    if (isObj(inner) && 'clientId' in inner) candidates.push([root, key, `${key}.`]);
    if (isObj(inner) && isObj(inner.initParams)) candidates.push([inner, 'initParams', `${key}.initParams.`]);
  }
  if (candidates.length === 0) throw new Error(`${path}: no init parameters found (an object with clientId)`);
  let result: Obj = root;
  const changes: MigrationChange[] = [];
  for (const [holder, key, prefix] of candidates) {
    const migrated = migrateInitParams(holder[key] as AuthInitParamsV6);
    for (const c of migrated.changes) {
      // `to` is a field (whiteLabel.dark → whiteLabel.mode) or a value (defaultLanguage → en).
      const toField = c.to.split('.')[0] === c.field.split('.')[0];
      changes.push({ ...c, field: prefix + c.field, to: toField ? prefix + c.to : c.to });
    }
    if (key === 'root' && holder.root === root) result = migrated.initParams as unknown as Obj;
    else holder[key] = migrated.initParams;
  }
  return { json: `${JSON.stringify(result, null, 2)}\n`, changes };
}

/**
 * `portico migrate-config FILE`: rewrites a v6 JSON config to v7 in place (unless `write: false`)
 * and prints one line per change. Returns the process exit code (0 done, 1 invalid config).
 */
export async function migrateConfigCommand(
  file: string,
  opts: { write?: boolean; print?: (line: string) => void } = {},
): Promise<number> {
  const print = opts.print ?? ((line: string) => console.log(line));
  let result: MigrateConfigFileResult;
  try {
    result = await migrateConfigFile(file);
  } catch (err) {
    print(`${file}: ${(err as Error).message}`);
    return 1;
  }
  if (result.changes.length === 0) {
    print(`${file}: already v7, nothing to change`);
    return 0;
  }
  for (const change of result.changes) print(`${change.field} → ${change.to}: ${change.message}`);
  if (opts.write === false) {
    print(result.json.trimEnd());
    return 0;
  }
  await writeFile(file, result.json);
  print(
    `${file}: rewritten to v7 (${result.changes.length} change${result.changes.length === 1 ? '' : 's'})`,
  );
  return 0;
}
