#!/usr/bin/env node
// `npm run build`: compiles every package listed in tsconfig.build.json to dist/ with `tsc -b`
// (ESM, .d.ts, source and declaration maps; incremental, so an up-to-date build takes a second),
// then copies the files of src/ that are not TypeScript (the auth service's login page) to the
// same place under dist/, where the compiled code looks for them, and rewrites the relative `.ts`
// import paths tsc leaves in .d.ts files to `.js` (as in the JavaScript beside them), so the
// declarations read like any package's. `--clean` removes every dist/.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const solution = JSON.parse(readFileSync(join(root, 'tsconfig.build.json'), 'utf8'));
const args = process.argv.slice(2); // e.g. --verbose, --force
if (args.includes('--clean')) {
  for (const { path } of solution.references) {
    rmSync(join(root, path, 'dist'), { recursive: true, force: true });
  }
  process.exit(0);
}

// Test files that need the built packages (the example apps, the packed packages) may start a build
// at the same moment: one build at a time, the others waiting for it. The lock is a directory
// holding the builder's pid; a lock whose builder is gone (killed, Ctrl-C) is taken over at once.
const lock = join(root, 'node_modules', '.portico-build.lock');
const owner = join(lock, 'pid');
const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
};
const waitUntil = Date.now() + 15 * 60_000;
for (;;) {
  try {
    mkdirSync(lock);
    writeFileSync(owner, String(process.pid));
    break;
  } catch (error) {
    if (error.code !== 'EEXIST') throw error;
    let pid = Number.NaN;
    try {
      pid = Number(readFileSync(owner, 'utf8'));
    } catch {
      // Just made and its pid not written yet, or released meanwhile: look again.
    }
    if (Number.isInteger(pid) && pid > 0 && !alive(pid)) rmSync(lock, { recursive: true, force: true });
    else if (Date.now() > waitUntil) throw new Error(`another build holds ${lock}`);
    else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
  }
}
const release = () => rmSync(lock, { recursive: true, force: true });
process.on('exit', release);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    release();
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  });
}

execFileSync(process.execPath, [tsc, '-b', join(root, 'tsconfig.build.json'), ...args], { stdio: 'inherit' });

const RELATIVE_TS_IMPORT = /((?:from|import\()\s*['"]\.{1,2}\/[^'"]*)\.ts(['"])/g;

for (const { path } of solution.references) {
  const src = join(root, path, 'src');
  for (const entry of readdirSync(src, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || entry.name.endsWith('.ts')) continue;
    const from = join(entry.parentPath ?? entry.path, entry.name);
    const to = join(root, path, 'dist', relative(src, from));
    mkdirSync(dirname(to), { recursive: true });
    copyFileSync(from, to);
  }
  const dist = join(root, path, 'dist');
  for (const entry of readdirSync(dist, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.d.ts')) continue;
    const file = join(entry.parentPath ?? entry.path, entry.name);
    const text = readFileSync(file, 'utf8');
    // `.ts` → `.js` keeps every column, so the declaration maps stay exact.
    const rewritten = text.replace(RELATIVE_TS_IMPORT, '$1.js$2');
    if (rewritten !== text) writeFileSync(file, rewritten);
  }
}
