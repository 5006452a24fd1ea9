// The Node lines the engines field names are the lines npm installs the locked packages on without
// an EBADENGINE warning: at the oldest version of each line (the floor of each range), every package
// of package-lock.json that declares engines admits it. A dependency that moves to Node ≥ 22 (as
// @wallet-standard/base 1.1.1 and commander 15 did) fails here before an install on Node 20 warns.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { test } from 'node:test';

/** The parts of semver (5.7, the version npm's own tools use here; no type declarations) used. */
const semver = createRequire(import.meta.url)('semver') as {
  minVersion(range: string): { version: string } | null;
  satisfies(version: string, range: string): boolean;
  major(version: string): number;
};

const root = new URL('../../../', import.meta.url).pathname;
const readJson = (path: string) => JSON.parse(readFileSync(join(root, path), 'utf8'));

type Manifest = { name: string; private?: boolean; engines?: { node?: string } };
const rootManifest = readJson('package.json') as Manifest;
const engines = rootManifest.engines?.node ?? '';
/** The oldest version of each line the engines field names (20.19.0, 22.13.0, 24.0.0). */
const floors = engines.split('||').map((range) => semver.minVersion(range.trim())?.version ?? '');

test('every package names the Node lines the root names, one range per line, 20, 22 and 24', () => {
  assert.deepEqual(
    floors.map((floor) => semver.major(floor)),
    [20, 22, 24],
  );
  for (const folder of ['packages', 'examples'])
    for (const dir of readdirSync(join(root, folder))) {
      const manifest = readJson(join(folder, dir, 'package.json')) as Manifest;
      if (manifest.private && manifest.engines === undefined) continue;
      assert.equal(manifest.engines?.node, engines, `${manifest.name}: engines.node`);
    }
});

test('every locked package admits the oldest version of each line (npm install prints no EBADENGINE)', () => {
  const lock = readJson('package-lock.json') as {
    packages: Record<string, { version?: string; engines?: { node?: string } }>;
  };
  const refusing: string[] = [];
  for (const [path, entry] of Object.entries(lock.packages)) {
    const range = entry.engines?.node;
    if (!range) continue;
    for (const floor of floors)
      if (!semver.satisfies(floor, range))
        refusing.push(`${path}@${entry.version}: node ${range}, not ${floor}`);
  }
  assert.deepEqual(refusing, []);
});
