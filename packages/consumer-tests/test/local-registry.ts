import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';

/** One tarball as `npm pack --json` describes it. */
export type PackedPackage = {
  name: string;
  version: string;
  filename: string;
  integrity: string;
  shasum: string;
};

/** The package.json inside a packed tarball (what the registry would serve after `npm publish`). */
export function tarballManifest(path: string): Record<string, unknown> {
  const tar = gunzipSync(readFileSync(path));
  for (let offset = 0; offset + 512 <= tar.length; ) {
    const name = tar
      .subarray(offset, offset + 100)
      .toString('utf8')
      .replace(/\0.*$/s, '');
    if (!name) break;
    const size = Number.parseInt(
      tar
        .subarray(offset + 124, offset + 136)
        .toString('utf8')
        .trim(),
      8,
    );
    if (name === 'package/package.json') {
      return JSON.parse(tar.subarray(offset + 512, offset + 512 + size).toString('utf8'));
    }
    offset += 512 + Math.ceil(size / 512) * 512;
  }
  throw new Error(`${path} holds no package/package.json`);
}

export type LocalRegistry = { url: string; close: () => Promise<void> };

/**
 * Serves packed packages the way the npm registry serves published ones (a packument per name, the
 * tarballs under /-/), so an app installs `@portico/*` by name and version and the packages' own
 * dependencies on each other resolve as they will once published. npm is pointed at it for the
 * `@portico` scope only (`@portico:registry=`); every other package comes from the npm registry.
 * A stand-in because the packages are not published; the tarballs are the real ones.
 */
export async function startLocalRegistry(
  tarballDir: string,
  packages: PackedPackage[],
): Promise<LocalRegistry> {
  const byName = new Map(packages.map((p) => [p.name, p]));
  const manifests = new Map(packages.map((p) => [p.name, tarballManifest(join(tarballDir, p.filename))]));
  const byFile = new Map(packages.map((p) => [p.filename, p]));
  let base = '';
  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://registry').pathname);
    const tarball = path.startsWith('/-/') ? byFile.get(path.slice(3)) : undefined;
    if (tarball) {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end(readFileSync(join(tarballDir, tarball.filename)));
      return;
    }
    const pkg = byName.get(path.slice(1));
    if (!pkg) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
      return;
    }
    const version = {
      ...manifests.get(pkg.name),
      _id: `${pkg.name}@${pkg.version}`,
      dist: { tarball: `${base}/-/${pkg.filename}`, integrity: pkg.integrity, shasum: pkg.shasum },
    };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        name: pkg.name,
        'dist-tags': { latest: pkg.version },
        versions: { [pkg.version]: version },
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${base}/`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
