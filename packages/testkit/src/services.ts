import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The shared services for tests. When the variable is set (CI sets both) the service must be
 * reachable and a test that cannot reach it fails; when unset the test is skipped with this reason.
 */
export function serviceUrl(name: 'DATABASE_URL' | 'REDIS_URL'): { url?: string; skip: string | false } {
  const url = process.env[name];
  if (url) return { url, skip: false };
  return { skip: `${name} is not set; set it to run tests against the shared service` };
}

/** A fresh temporary directory, removed by the returned cleanup function. */
export function tempDir(prefix = 'portico-test-'): { path: string; cleanup: () => void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
}
