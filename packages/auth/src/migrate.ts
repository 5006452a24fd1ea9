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
