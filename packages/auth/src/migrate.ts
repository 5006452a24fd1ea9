import type { AuthInitParams, AuthInitParamsV6 } from './types.ts';
import { type MigrationChange, normalizeInitParams } from './validate.ts';

export type { MigrationChange } from './validate.ts';

export interface MigrateInitParamsResult {
  initParams: AuthInitParams;
  /** One entry per converted v6 field. */
  changes: MigrationChange[];
}

/**
 * Converts v6 init parameters to v7 (whiteLabel `name` → `appName`, `dark` → `mode`, free-form
 * `defaultLanguage` → one of the nine languages) and validates the result. Only the fields the caller
 * gave are written back, so the output stays as short as the input.
 */
export function migrateInitParams(v6: AuthInitParamsV6 | AuthInitParams): MigrateInitParamsResult {
  const { params, changes } = normalizeInitParams(v6);
  const given = v6 as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(params)) {
    if (key in given || (key === 'mfaSettings' && 'MfaSettings' in given)) out[key] = value;
  }
  if ('sessionTime' in given) out.sessionTime = params.sessionTime;
  return { initParams: out as unknown as AuthInitParams, changes };
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
  const { readFile } = await import('node:fs/promises');
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
    for (const c of migrated.changes) changes.push({ ...c, field: prefix + c.field, to: prefix + c.to });
    if (key === 'root' && holder.root === root) result = migrated.initParams as unknown as Obj;
    else holder[key] = migrated.initParams;
  }
  return { json: `${JSON.stringify(result, null, 2)}\n`, changes };
}
