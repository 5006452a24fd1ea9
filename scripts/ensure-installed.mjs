#!/usr/bin/env node
// Lets `npm start` and `npm test` work on a fresh clone: installs the locked dependencies when
// they are missing or older than the lockfile, and does nothing otherwise.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';

const root = new URL('..', import.meta.url).pathname;
const installed = `${root}node_modules/.package-lock.json`;
const lock = `${root}package-lock.json`;
if (!existsSync(installed) || statSync(installed).mtimeMs < statSync(lock).mtimeMs) {
  console.error('Installing dependencies (npm ci)...');
  const result = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
