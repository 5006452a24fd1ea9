#!/usr/bin/env node
// `npm run pack`: builds every public package, packs each into a tarball under packed/ (or
// `--out DIR`), and prints the `npm install` lines that install them together: everything, and the
// gateway alone. Until the packages are on the npm registry this is how an app or a server gets
// them (a tarball installed by itself would look for its @portico dependencies on the registry;
// installed together, each finds the others among the tarballs). The lines are also written to
// INSTALL.txt beside the tarballs. `--json` prints { tarballs, full, gateway } instead.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const root = new URL('..', import.meta.url).pathname;
const { values } = parseArgs({ options: { out: { type: 'string' }, json: { type: 'boolean' } } });
const out = resolve(values.out ?? join(root, 'packed'));
const log = values.json ? () => {} : (line) => console.log(line);

/** Every public package of the workspace, by name: its folder and its @portico dependencies. */
const packages = new Map(
  readdirSync(join(root, 'packages'))
    .map((dir) => ({
      dir,
      pkg: JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8')),
    }))
    .filter(({ pkg }) => !pkg.private)
    .map(({ dir, pkg }) => [
      pkg.name,
      {
        dir,
        version: pkg.version,
        needs: Object.keys(pkg.dependencies ?? {}).filter((n) => n.startsWith('@portico/')),
      },
    ]),
);

/** A package and every @portico package it needs, directly or not. */
function closure(name, seen = new Set()) {
  if (seen.has(name)) return seen;
  seen.add(name);
  for (const need of packages.get(name).needs) closure(need, seen);
  return seen;
}

log('building…');
execFileSync(process.execPath, [join(root, 'scripts/build.mjs')], {
  cwd: root,
  stdio: values.json ? 'ignore' : 'inherit',
});
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
const packed = JSON.parse(
  execFileSync(
    'npm',
    [
      'pack',
      ...[...packages.keys()].flatMap((name) => ['-w', name]),
      '--pack-destination',
      out,
      '--ignore-scripts',
      '--json',
    ],
    { cwd: root, env, maxBuffer: 64 << 20 },
  ),
);
const fileOf = new Map(packed.map((p) => [p.name, join(out, p.filename)]));
const line = (names) =>
  `npm install ${[...names]
    .sort()
    .map((name) => fileOf.get(name))
    .join(' ')}`;
const full = line(packages.keys());
const gateway = line(closure('@portico/gateway'));
const text = [
  '# Everything: the portico command (dev chains, auth service, wallet, dashboard) and the libraries',
  full,
  '',
  '# The gateway alone: the portico-gateway command, no dev chains, no browser code',
  gateway,
  '',
].join('\n');
writeFileSync(join(out, 'INSTALL.txt'), text);
if (values.json) {
  console.log(JSON.stringify({ tarballs: [...fileOf.values()], full, gateway }, null, 2));
} else {
  log(`\n${packed.length} tarballs in ${out} (the lines below are also in INSTALL.txt there):\n`);
  log(text);
}
