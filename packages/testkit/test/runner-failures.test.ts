import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../..', import.meta.url));

test('npm test names each failed test with its message; CI prints every Node line’s failures last', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'portico-runner-failures-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const summaryFile = join(dir, 'summary.jsonl');
  const run = spawnSync(
    process.execPath,
    ['scripts/test.mjs', 'packages/testkit/test/fixtures/fails.fixture.ts'],
    {
      cwd: root,
      // Without NODE_TEST_CONTEXT: inside a test, node --test would report to this run instead.
      env: { ...process.env, NODE_TEST_CONTEXT: undefined, PORTICO_TEST_SUMMARY_FILE: summaryFile },
      encoding: 'utf8',
      timeout: 120_000,
    },
  );
  assert.notEqual(run.status, 0);
  const failedBlock = run.stdout.slice(run.stdout.lastIndexOf('\nFailed ('));
  assert.match(
    failedBlock,
    /^\nFailed \(1\):\n {2}- packages\/testkit\/test\/fixtures\/fails\.fixture\.ts: a balance that is off by one\n/,
  );
  assert.match(failedBlock, /the balance is 2, expected 3/);
  assert.match(run.stdout.trimEnd(), /\n1 passed, 1 failed$/);

  const lines = readFileSync(summaryFile, 'utf8').trim().split('\n');
  assert.equal(lines.length, 1, 'one line per run');
  const written = JSON.parse(lines[0] ?? '');
  assert.deepEqual([written.node, written.passed, written.failed], [process.version, 1, 1]);

  // Two Node lines expected, one wrote its summary: the other counts as a failure.
  const ci = spawnSync(process.execPath, ['scripts/ci-summary.mjs', summaryFile, '2'], {
    cwd: root,
    encoding: 'utf8',
  });
  assert.equal(ci.status, 1);
  const out = ci.stdout.trimEnd().split('\n');
  assert.ok(out.includes(`Node ${process.version}: 1 passed, 1 failed`), ci.stdout);
  assert.ok(
    out.some((line) => line.endsWith('fails.fixture.ts: a balance that is off by one')),
    ci.stdout,
  );
  assert.ok(out.includes('1 Node line(s) wrote no summary (see the log above)'), ci.stdout);
  assert.equal(out.at(-1), '1 passed, 2 failed');
});

test('a failed assertion on an object is named with what it compared; the run still ends with its counts', () => {
  const run = spawnSync(
    process.execPath,
    ['scripts/test.mjs', 'packages/testkit/test/fixtures/fails-on-objects.fixture.ts'],
    { cwd: root, env: { ...process.env, NODE_TEST_CONTEXT: undefined }, encoding: 'utf8', timeout: 120_000 },
  );
  assert.notEqual(run.status, 0);
  assert.match(run.stdout.trimEnd(), /\n0 passed, 1 failed$/, run.stderr.slice(-2000));
  const failedBlock = run.stdout.slice(run.stdout.lastIndexOf('\nFailed ('));
  assert.match(failedBlock, /fails-on-objects\.fixture\.ts: a Promise where a number was expected\n/);
  assert.match(failedBlock, /Expected values to be strictly equal/);
  assert.match(failedBlock, /Promise \{/);
});
