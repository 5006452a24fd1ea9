#!/usr/bin/env node
// Lets `npm start` and `npm test` work on a fresh clone: installs the locked dependencies when
// they are missing or older than the lockfile, and does nothing otherwise. npm ci says nothing
// for the minute it takes, so the wait is shown: elapsed time and packages installed so far.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';

const root = new URL('..', import.meta.url).pathname;
const installed = `${root}node_modules/.package-lock.json`;
const lock = `${root}package-lock.json`;

/** Packages in node_modules so far (scoped ones counted one by one). */
function packagesSoFar() {
  try {
    return readdirSync(`${root}node_modules`).reduce(
      (count, name) =>
        name.startsWith('.')
          ? count
          : count + (name.startsWith('@') ? readdirSync(`${root}node_modules/${name}`).length : 1),
      0,
    );
  } catch {
    return 0;
  }
}

if (!existsSync(installed) || statSync(installed).mtimeMs < statSync(lock).mtimeMs) {
  // The lockfile's top-level packages that install on this platform (others are optional builds).
  const fits = (list, value) =>
    !list || list.includes(value) || (list.every((v) => v.startsWith('!')) && !list.includes(`!${value}`));
  const expected = Object.entries(JSON.parse(readFileSync(lock, 'utf8')).packages ?? {}).filter(
    ([path, meta]) =>
      path.startsWith('node_modules/') &&
      !path.includes('/node_modules/', 1) &&
      fits(meta.os, process.platform) &&
      fits(meta.cpu, process.arch),
  ).length;
  console.error(`Installing dependencies (npm ci, ${expected} packages; about a minute on a fresh clone)…`);
  const started = Date.now();
  const tty = process.stderr.isTTY;
  const progress = setInterval(
    () => {
      const line = `  ${Math.round((Date.now() - started) / 1000)} s: ${packagesSoFar()} of about ${expected} packages`;
      process.stderr.write(tty ? `\r${line}` : `${line}\n`);
    },
    tty ? 1000 : 10_000,
  );
  const child = spawn('npm', ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
  const code = await new Promise((resolve) => child.on('exit', (status) => resolve(status ?? 1)));
  clearInterval(progress);
  if (tty) process.stderr.write('\n');
  if (code !== 0) process.exit(code);
  console.error(`Installed in ${Math.round((Date.now() - started) / 1000)} s.`);
}
