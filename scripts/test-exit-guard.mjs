// Loaded into every test file's process by scripts/test.mjs on Node 22+. There a file whose tests
// are all done keeps running while something it started still holds the event loop (Node 20 ended
// it with the file's timeout), which would hold the whole run. Node's own --test-force-exit ends a
// file too early: it cut test files short on Node 24 and reported them green, so it is not used.
// Instead, once the file's last test and hook are done, an unref'd timer ends the process if it is
// still alive 10 s later, with the exit code the runner set (non-zero when a test failed).
import { after } from 'node:test';

// Only in a test file's own process (the runner that spawns them has no NODE_TEST_CONTEXT).
if (process.env.NODE_TEST_CONTEXT) {
  after(() => {
    setTimeout(() => process.exit(), 10_000).unref();
  });
}
