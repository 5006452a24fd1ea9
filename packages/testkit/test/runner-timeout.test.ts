import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../..', import.meta.url));

test('npm test fails a hanging test file after the timeout and names it', () => {
  // The repository's runner with its own flags, pointed at one file that never finishes.
  const run = spawnSync(
    process.execPath,
    ['scripts/test.mjs', 'packages/testkit/test/fixtures/hangs.fixture.ts'],
    {
      cwd: root,
      // Without NODE_TEST_CONTEXT: inside a test, node --test would report to this run instead.
      env: { ...process.env, NODE_TEST_CONTEXT: undefined, PORTICO_TEST_TIMEOUT_MS: '2000' },
      encoding: 'utf8',
      timeout: 120_000,
    },
  );
  assert.notEqual(run.status, 0, 'a hanging test must fail the run');
  // Node 20 names the file that timed out, Node 22+ the test in it.
  assert.match(run.stdout, /✖ (a request nobody answers|.*hangs\.fixture\.ts)/);
  assert.match(run.stdout, /timed out after 2000ms/);
});
