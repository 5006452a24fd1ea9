import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../..', import.meta.url));

test('npm test ends with what it skipped and why, then the passed and failed counts', () => {
  const run = spawnSync(
    process.execPath,
    ['scripts/test.mjs', 'packages/testkit/test/fixtures/skips.fixture.ts'],
    {
      cwd: root,
      // Without NODE_TEST_CONTEXT: inside a test, node --test would report to this run instead.
      env: { ...process.env, NODE_TEST_CONTEXT: undefined },
      encoding: 'utf8',
      timeout: 120_000,
    },
  );
  assert.equal(run.status, 0, run.stdout + run.stderr);
  const tail = run.stdout.slice(run.stdout.lastIndexOf('\nSkipped:') + 1).trimEnd();
  assert.equal(
    tail,
    [
      'Skipped: ',
      '  DATABASE_URL is not set (2):',
      '    - packages/testkit/test/fixtures/skips.fixture.ts: needs PostgreSQL',
      '    - packages/testkit/test/fixtures/skips.fixture.ts: needs Redis too',
      '2 passed, 0 failed',
    ].join('\n'),
  );
});
