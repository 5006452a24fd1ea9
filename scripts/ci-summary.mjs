#!/usr/bin/env node
// The end of CI's log: each Node line's counts and the tests that failed on it, then one line
// `N passed, N failed` over all lines. A line whose run wrote nothing (it crashed, or Node could not
// be installed) counts as a failure.
import { readFileSync } from 'node:fs';

const [file, expectedRuns = '3'] = process.argv.slice(2);
const runs = readFileSync(file, 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((line) => JSON.parse(line));

console.log('\n== every Node line ==');
let passed = 0;
let failed = 0;
for (const run of runs) {
  passed += run.passed;
  failed += run.failed;
  console.log(`Node ${run.node}: ${run.passed} passed, ${run.failed} failed`);
  for (const { name, file: where, error } of run.failures ?? []) {
    console.log(`  - ${where ? `${where.replace(/^.*?\/(?=(packages|examples)\/)/, '')}: ` : ''}${name}`);
    if (error) console.log(error.replace(/^/gm, '      '));
  }
}
const missing = Number(expectedRuns) - runs.length;
if (missing > 0) {
  console.log(`${missing} Node line(s) wrote no summary (see the log above)`);
  failed += missing;
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
