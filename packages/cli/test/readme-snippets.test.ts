// The README's Node snippets and the dev banner's curl examples as a reader pastes them: each saved as the file the README names, in a
// folder of its own that has only portico.json (what `portico dev --config-out` wrote) and the
// installed packages, then run with plain `node` (no tsx, no workspace sources: the built dist/).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { tempDir } from '@portico/testkit';
import { type Running, startDev } from './dev-process.ts';

const run = promisify(execFile);
const root = new URL('../../../', import.meta.url).pathname;
const readme = readFileSync(join(root, 'README.md'), 'utf8');

/** The first ```js block after the sentence that tells the reader to save it as `file`. */
function snippet(file: string): string {
  const at = readme.indexOf(`save as \`${file}\``);
  assert.ok(at >= 0, `the README says to save a snippet as ${file}`);
  const block = /```js\n([\s\S]*?)```/.exec(readme.slice(at));
  assert.ok(block, `a js block follows "save as ${file}"`);
  return block[1];
}

describe('the README’s Node snippets run as pasted against portico dev', () => {
  const data = tempDir();
  const app = tempDir('portico-readme-app-');
  let dev: Running;

  before(async () => {
    dev = await startDev(data.path, ['--wallet-auto-approve']);
    writeFileSync(join(app.path, 'portico.json'), JSON.stringify(dev.config));
    // The packages as installed: the repository's node_modules (their dist/, built by npm ci).
    symlinkSync(join(root, 'node_modules'), join(app.path, 'node_modules'));
  });
  after(() => {
    dev?.child.kill('SIGKILL');
    data.cleanup();
    app.cleanup();
  });

  const runSnippet = async (file: string) => {
    writeFileSync(join(app.path, file), snippet(file));
    const { stdout } = await run(process.execPath, [file], { cwd: app.path, timeout: 120_000 });
    return stdout;
  };

  test('login.mjs: a dev token, a login, a transaction sent with auth.provider', async () => {
    assert.match(await runSnippet('login.mjs'), /^0x[0-9a-f]{64}\n$/);
  });

  test('the banner’s curl examples run as pasted in a shell', async () => {
    const commands = [...dev.output().matchAll(/^ {2}(curl -s .*\\\n.*\\\n.*)$/gm)].map((m) => m[1]);
    assert.equal(commands.length, 4, dev.output());
    const answers = [];
    for (const command of commands) {
      const { stdout } = await run('bash', ['-c', command], { timeout: 60_000 });
      const answer = JSON.parse(stdout) as {
        jsonrpc: string;
        id: number;
        result?: unknown;
        error?: { code: number };
      };
      assert.deepEqual([answer.jsonrpc, answer.id], ['2.0', 1], stdout);
      answers.push(answer);
    }
    // A block, the failed transaction's receipt, the Solana account's history; then a revert, on purpose.
    assert.deepEqual(
      answers.map((a) => ('result' in a ? 'result' : a.error?.code)),
      ['result', 'result', 'result', 3],
    );
  });

  test('app.mjs: the auth library with a file session, a wallet session over the Multichain API', async () => {
    assert.match(await runSnippet('app.mjs'), /^signed in: false\nblock 0x[0-9a-f]+\n$/);
  });
});
