// A node:test reporter for scripts/test.mjs: writes, as one JSON object, what was skipped (and
// why), how many tests passed and failed, which failed and with what error and, when the run
// measures coverage, the covered lines, branches and functions of each package's sources, so
// `npm test` can end with them.
import { inspect } from 'node:util';

export default async function* skipsReporter(source) {
  const skipped = [];
  let passed = 0;
  let failed = 0;
  const failures = [];
  const coverage = {};
  for await (const event of source) {
    if (event.type === 'test:coverage') {
      addCoverage(coverage, event.data.summary.files);
      continue;
    }
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { name, file, skip, details } = event.data;
    if (skip !== undefined && skip !== false) {
      skipped.push({ name, file, reason: typeof skip === 'string' ? skip : 'skipped' });
      continue;
    }
    if (details?.type === 'suite') continue;
    if (event.type === 'test:pass') passed++;
    else {
      failed++;
      failures.push({ name, file, error: firstLines(details?.error) });
    }
  }
  yield `${JSON.stringify({ skipped, passed, failed, failures, coverage })}\n`;
}

/** The failure's own message (a test's error wraps it in `cause`), cut to a few lines. */
function firstLines(error) {
  const inner = error?.cause ?? error;
  const text = typeof inner?.message === 'string' ? inner.message : textOf(inner ?? '');
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .slice(0, 6)
    .join('\n')
    .slice(0, 600);
}

/**
 * Text for what a test threw when it has no message string: a failed assertion on objects (a
 * Promise, a class instance) reaches the reporter from the test's process with its message as an
 * object without `toString`, on which `String()` throws (that ended the whole run's summary).
 */
function textOf(value) {
  if (typeof value === 'string') return value;
  return inspect(value, { depth: 2, breakLength: 100 });
}

/** Sums the per-file counts into one row per package (its `src/`, tests left out). */
function addCoverage(coverage, files) {
  for (const file of files) {
    const match = /\/packages\/([^/]+)\/src\/(?!.*\.test\.ts$)/.exec(file.path);
    // The test helpers are not shipped: their coverage says nothing about the product.
    if (!match || match[1] === 'testkit') continue;
    coverage[match[1]] ??= { lines: [0, 0], branches: [0, 0], functions: [0, 0] };
    const row = coverage[match[1]];
    row.lines[0] += file.coveredLineCount;
    row.lines[1] += file.totalLineCount;
    row.branches[0] += file.coveredBranchCount;
    row.branches[1] += file.totalBranchCount;
    row.functions[0] += file.coveredFunctionCount;
    row.functions[1] += file.totalFunctionCount;
  }
}
