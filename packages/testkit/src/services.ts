import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The shared services for tests. When the variable is set (CI sets both) the service must be
 * reachable and a test that cannot reach it fails; when unset the test is skipped with this reason,
 * except under CI=true, where an unset variable is an error.
 */
export function serviceUrl(name: 'DATABASE_URL' | 'REDIS_URL'): { url?: string; skip: string | false } {
  const url = process.env[name];
  if (url) return { url, skip: false };
  // CI provides every service: there a missing variable is a broken setup, never a quiet skip.
  if (process.env.CI === 'true') throw new Error(`${name} is not set, and CI=true requires it`);
  return { skip: `${name} is not set; set it to run tests against the shared service` };
}

/** A fresh temporary directory, removed by the returned cleanup function. */
export function tempDir(prefix = 'portico-test-'): { path: string; cleanup: () => void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
}
