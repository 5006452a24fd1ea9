// The React lines @portico/react is tested with. 19 is the workspace's own react and react-dom;
// 18 is the aliased devDependencies react-18 and react-dom-18, put in place of react and react-dom
// (with every subpath, and react-dom's own `import 'react'`) by esbuild, as an app on 18 has them.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type BuildOptions, build } from 'esbuild';

export type ReactLine = '18' | '19';
export const REACT_LINES: readonly ReactLine[] = ['18', '19'];

/** The fixture's server side (fixture/server.ts) on one React line. */
export type ServerReact = typeof import('./fixture/server.ts');

/** esbuild's alias option that makes `react`, `react-dom` and their subpaths the given line. */
export function reactAlias(line: ReactLine): BuildOptions['alias'] {
  return line === '18' ? { react: 'react-18', 'react-dom': 'react-dom-18' } : {};
}

// Inside node_modules so the bundle's external `@portico/auth` resolves to the workspace's (the
// same module the tests import, so an `Auth` made there can be handed to the bundled provider).
const bundles = new URL('../../../node_modules/.cache/portico-react-lines/', import.meta.url).pathname;

/** fixture/server.ts on `line`: imported as it is on 19, bundled for node with the alias on 18. */
export async function loadServerReact(line: ReactLine): Promise<ServerReact> {
  if (line === '19') return import('./fixture/server.ts');
  const bundle = await build({
    entryPoints: [new URL('./fixture/server.ts', import.meta.url).pathname],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'node',
    conditions: ['@portico/source'],
    alias: reactAlias(line),
    external: ['@portico/auth'],
    define: { 'process.env.NODE_ENV': '"development"' },
    // react-dom/server is CommonJS and requires node's built-ins (util, stream…).
    banner: {
      js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
    },
    logLevel: 'silent',
  });
  mkdirSync(bundles, { recursive: true });
  const dir = mkdtempSync(join(bundles, `react-${line}-`));
  try {
    const file = join(dir, 'server.mjs');
    writeFileSync(file, bundle.outputFiles[0].text);
    return await import(pathToFileURL(file).href);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
