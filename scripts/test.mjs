#!/usr/bin/env node
// Runs every package's and example's tests (test/**/*.test.ts, and the unit tests beside their
// modules in src/**/*.test.ts) with node's own test runner: TypeScript through tsx, and @portico/*
// imports resolved to the packages' sources (the `@portico/source` export condition), not dist/.
// Usage: npm test [-- <path filter or file>...]   e.g. npm test -- gateway
// With PORTICO_COVERAGE=1 the run also measures coverage (node's own, through the source maps) and
// prints one row per package before the summary line (CI does this on one Node line).
import { spawn } from 'node:child_process';
import {
  appendFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
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

// A filter that names an existing file runs that file even if it is not a `.test.ts` (the
// runner's own test runs a fixture that hangs).
const namedFiles = filters.filter((f) => existsSync(join(root, f)) && statSync(join(root, f)).isFile());
const files = [...findTests(join(root, 'packages')), ...findTests(join(root, 'examples'))]
  .map((file) => relative(root, file))
  .filter((file) => filters.length === 0 || filters.some((f) => file.includes(f)))
  .concat(namedFiles)
  .filter((file, index, all) => all.indexOf(file) === index)
  .sort();

if (files.length === 0) {
  console.error(`no test files match ${filters.join(' ')}`);
  process.exit(1);
}

// What was skipped and why, written by a second reporter and printed once the run ends.
const skipsDir = mkdtempSync(join(tmpdir(), 'portico-test-skips-'));
const skipsFile = join(skipsDir, 'skips.json');

const child = spawn(
  process.execPath,
  [
    '--conditions=@portico/source',
    '--import',
    'tsx',
    '--test',
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
    `--test-reporter=${join(root, 'scripts', 'test-skips-reporter.mjs')}`,
    `--test-reporter-destination=${skipsFile}`,
    '--test-concurrency=2',
    // A test file that hangs fails after this long, named in the summary, instead of holding the
    // run until CI gives up (node applies the limit to each file and to each test in it; the
    // slowest file takes about 4 minutes on a loaded 2-core machine).
    `--test-timeout=${process.env.PORTICO_TEST_TIMEOUT_MS ?? 900_000}`,
    // Node 22+ no longer times out a file as a whole: there a file whose tests are done must end
    // even if something it started still holds the event loop, or a leaked handle hangs the run
    // (scripts/test-exit-guard.mjs; not --test-force-exit, which cut files short on Node 24).
    ...(Number(process.versions.node.split('.')[0]) >= 22
      ? ['--import', join(root, 'scripts', 'test-exit-guard.mjs')]
      : []),
    ...coverageFlags(),
    ...files,
  ],
  // The summary file is this run's alone: a runner a test starts must not write to it.
  {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, PORTICO_TEST: '1', PORTICO_TEST_SUMMARY_FILE: undefined },
  },
);
child.on('exit', (code, signal) => {
  printSkips();
  process.exit(code ?? (signal ? 1 : 0));
});

/**
 * Lists what was skipped and why (a service not configured, a tool not installed), then ends the
 * output with `N passed, N failed`, the line CI reads.
 */
function printSkips() {
  let summary;
  try {
    summary = JSON.parse(readFileSync(skipsFile, 'utf8'));
  } catch {
    return;
  } finally {
    rmSync(skipsDir, { recursive: true, force: true });
  }
  const { skipped, passed, failed, failures, coverage } = summary;
  printCoverage(coverage);
  printFailures(failures);
  // CI runs the suite on several Node lines and only the end of its log is kept: each run appends
  // its counts and failures to this file, and .ci/run prints them all last.
  if (process.env.PORTICO_TEST_SUMMARY_FILE)
    appendFileSync(
      process.env.PORTICO_TEST_SUMMARY_FILE,
      `${JSON.stringify({ node: process.version, passed, failed, failures })}\n`,
    );
  console.log(`\nSkipped: ${skipped.length === 0 ? 'nothing' : ''}`);
  const byReason = new Map();
  for (const { name, file, reason } of skipped) {
    const where = file ? relative(root, file.replace(/^file:\/\//, '')) : '';
    byReason.set(reason, [...(byReason.get(reason) ?? []), where ? `${where}: ${name}` : name]);
  }
  for (const [reason, tests] of byReason) {
    console.log(`  ${reason} (${tests.length}):`);
    for (const test of tests) console.log(`    - ${test}`);
  }
  console.log(`${passed} passed, ${failed} failed`);
}

function printFailures(failures) {
  if (!failures?.length) return;
  console.log(`\nFailed (${failures.length}):`);
  for (const { name, file, error } of failures) {
    const where = file ? relative(root, file.replace(/^file:\/\//, '')) : '';
    console.log(`  - ${where ? `${where}: ` : ''}${name}`);
    if (error) console.log(error.replace(/^/gm, '      '));
  }
}

function coverageFlags() {
  if (process.env.PORTICO_COVERAGE !== '1') return [];
  const flags = ['--experimental-test-coverage', '--enable-source-maps'];
  // Node 22+ can leave tests and dependencies out of its own table (the package rows below never count them).
  if (Number(process.versions.node.split('.')[0]) >= 22)
    flags.push('--test-coverage-include=packages/*/src/**', '--test-coverage-exclude=**/*.test.ts');
  return flags;
}

function printCoverage(coverage) {
  const names = Object.keys(coverage ?? {}).sort();
  if (names.length === 0) return;
  const percent = ([covered, total]) => (total === 0 ? '—' : `${((100 * covered) / total).toFixed(1)} %`);
  console.log("\nCoverage of each package's src/ (lines, branches, functions):");
  for (const name of names) {
    const row = coverage[name];
    console.log(
      `  ${name.padEnd(16)} ${percent(row.lines).padStart(8)} ${percent(row.branches).padStart(8)} ${percent(row.functions).padStart(8)}`,
    );
  }
}
