#!/usr/bin/env node
// Runs every package's and example's tests (test/**/*.test.ts, and the unit tests beside their
// modules in src/**/*.test.ts) with node's own test runner: TypeScript through tsx, and @portico/*
// imports resolved to the packages' sources (the `@portico/source` export condition), not dist/.
// Usage: npm test [-- <path filter>...]   e.g. npm test -- gateway
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const filters = process.argv.slice(2);

function findTests(dir) {
  const found = [];
  for (const entry of readdirSync(dir)) {
    if (entry === 'node_modules' || entry.startsWith('.')) continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) found.push(...findTests(path));
    else if (entry.endsWith('.test.ts')) found.push(path);
  }
  return found;
}

const files = [...findTests(join(root, 'packages')), ...findTests(join(root, 'examples'))]
  .map((file) => relative(root, file))
  .filter((file) => filters.length === 0 || filters.some((f) => file.includes(f)))
  .sort();

if (files.length === 0) {
  console.error(`no test files match ${filters.join(' ')}`);
  process.exit(1);
}

const child = spawn(
  process.execPath,
  [
    '--conditions=@portico/source',
    '--import',
    'tsx',
    '--test',
    '--test-reporter=spec',
    '--test-concurrency=2',
    ...files,
  ],
  { cwd: root, stdio: 'inherit', env: { ...process.env, PORTICO_TEST: '1' } },
);
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
