import assert from 'node:assert/strict';
import { test } from 'node:test';
import { main } from '../src/main.ts';

// A mistake on the command line is said in one line with exit code 2; only that (util.parseArgs'
// refusals, the CLI's own usage errors), not every TypeError a bug might throw.
test('an unknown option is one line and exit code 2, naming the option', async (t) => {
  const printed: string[] = [];
  t.mock.method(console, 'error', (line: unknown) => printed.push(String(line)));
  assert.equal(await main(['start', '--no-such-option']), 2);
  assert.equal(printed.length, 1);
  assert.match(printed[0], /^portico start: .*--no-such-option/);
  assert.doesNotMatch(printed[0], /\n\s+at /, 'no stack trace');
});
