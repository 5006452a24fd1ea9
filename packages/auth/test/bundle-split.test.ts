import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { build, type Metafile } from 'esbuild';

// What a browser app pays for: esbuild bundles small apps as a dapp's bundler would (ESM, code
// splitting, browser platform: a Node built-in anywhere would fail the build) and the metafile
// says which packages each load brings in.
const resolveDir = new URL('.', import.meta.url).pathname;

async function bundle(contents: string): Promise<Metafile> {
  const result = await build({
    stdin: { contents, resolveDir, loader: 'ts', sourcefile: 'app.ts' },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    // The repository's sources (what this test checks); the consumer test bundles the built dist/.
    conditions: ['@portico/source'],
    target: 'es2022',
    outdir: 'out',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  return result.metafile;
}

/** Outputs loaded from `start` through static imports (what one load of `start` fetches). */
function staticClosure(meta: Metafile, start: string): string[] {
  const seen = new Set<string>([start]);
  for (const output of seen) {
    for (const imported of meta.outputs[output].imports) {
      if (imported.kind === 'import-statement' && !imported.external) seen.add(imported.path);
    }
  }
  return [...seen];
}

/** The input files (source and node_modules) inside these outputs. */
function inputsOf(meta: Metafile, outputs: string[]): string[] {
  return outputs.flatMap((output) => Object.keys(meta.outputs[output].inputs));
}

const fromPackage = (name: string) => (input: string) => input.includes(`node_modules/${name}/`);
const entryOf = (meta: Metafile) =>
  Object.keys(meta.outputs).find((o) => meta.outputs[o].entryPoint !== undefined) as string;

/** The lazily loaded output (and its static closure) holding `source`. */
function lazyLoad(meta: Metafile, source: string): string[] {
  const entry = entryOf(meta);
  const dynamic = staticClosure(meta, entry).flatMap((o) =>
    meta.outputs[o].imports.filter((i) => i.kind === 'dynamic-import').map((i) => i.path),
  );
  const target = dynamic.find((o) => inputsOf(meta, staticClosure(meta, o)).some((i) => i.endsWith(source)));
  assert.ok(target, `a dynamic import leads to ${source}`);
  return staticClosure(meta, target);
}

describe('chain clients stay out of bundles that do not use them', { timeout: 60_000 }, () => {
  it('an eip155 app loads neither viem nor @solana/kit up front, and viem without @solana/kit on login', async () => {
    const meta = await bundle(`
      import { Auth } from '@portico/auth';
      const auth = await Auth.create({
        clientId: 'app', network: 'sapphire_devnet',
        chainConfig: { chainNamespace: 'eip155', chainId: '0x7a69', rpcTarget: 'https://gw.example/local/v3/KEY' },
      });
      export const provider = auth.provider;
    `);
    const initial = inputsOf(meta, staticClosure(meta, entryOf(meta)));
    assert.ok(
      initial.some((i) => i.endsWith('packages/auth/src/auth.ts')),
      'the app bundles Auth',
    );
    assert.deepEqual(initial.filter(fromPackage('viem')), [], 'no viem in the first load');
    assert.deepEqual(initial.filter(fromPackage('@solana')), [], 'no @solana/* in the first load');

    const onLogin = inputsOf(meta, lazyLoad(meta, 'providers/eip155/index.ts'));
    assert.ok(onLogin.some(fromPackage('viem')), 'the eip155 provider brings viem');
    assert.deepEqual(onLogin.filter(fromPackage('@solana')), [], 'and no @solana/* at all');

    // The Solana provider is a chunk of its own that only a solana app loads.
    const solana = inputsOf(meta, lazyLoad(meta, 'providers/solana/index.ts'));
    assert.ok(solana.some(fromPackage('@solana')), '@solana/kit (its @solana/* packages) is in it');
    assert.deepEqual(solana.filter(fromPackage('viem')), []);
  });

  it('a solana app announcing with EIP-6963 and the Wallet Standard loads no chain library up front', async () => {
    const meta = await bundle(`
      import { Auth, announceAuthProvider, announceAuthSolanaWallet } from '@portico/auth';
      const auth = await Auth.create({
        clientId: 'app', network: 'sapphire_devnet',
        chainConfig: { chainNamespace: 'solana', chainId: '0x3', rpcTarget: 'https://gw.example/solana/v3/KEY' },
      });
      const connect = () => auth.login({ loginProvider: 'google' });
      announceAuthProvider(auth, { name: 'App', icon: 'data:image/svg+xml;base64,PHN2Zy8+', rdns: 'app.example' }, { connect });
      export const { wallet } = announceAuthSolanaWallet(auth, { name: 'App', icon: 'data:image/svg+xml;base64,PHN2Zy8+' }, { connect });
    `);
    const initial = inputsOf(meta, staticClosure(meta, entryOf(meta)));
    assert.ok(
      initial.some((i) => i.endsWith('providers/solana-standard.ts')),
      'the wallet is in the first load',
    );
    assert.ok(initial.some((i) => i.endsWith('providers/siws.ts')));
    assert.deepEqual(initial.filter(fromPackage('@solana')), [], 'no @solana/* in the first load');
    assert.deepEqual(initial.filter(fromPackage('viem')), [], 'no viem in the first load');
  });

  it('the whole main entry, in cookie mode, bundles nothing of @portico/auth/server or jose', async () => {
    const meta = await bundle(`
      export * from '@portico/auth';
      import { Auth } from '@portico/auth';
      export const auth = await Auth.create(
        { clientId: 'app', network: 'sapphire_devnet' },
        { sessionCookie: { endpoint: '/api/portico-session' } },
      );
    `);
    const all = inputsOf(meta, Object.keys(meta.outputs));
    assert.ok(all.some((i) => i.endsWith('packages/auth/src/session-cookie.ts')));
    assert.deepEqual(
      all.filter((i) => i.includes('packages/auth/src/server/')),
      [],
      'the server entry (Node) is not in it',
    );
    assert.deepEqual(all.filter(fromPackage('jose')), []);
  });

  it('@portico/auth/providers/eip155 alone bundles viem and nothing of @solana', async () => {
    const meta = await bundle(`
      import { createEip155Provider } from '@portico/auth/providers/eip155';
      export const provider = createEip155Provider({ getPrivKey: () => '', chainConfig: { chainNamespace: 'eip155', chainId: '0x1', rpcTarget: 'https://gw.example/v3/KEY' } });
    `);
    const all = inputsOf(meta, Object.keys(meta.outputs));
    assert.ok(all.some(fromPackage('viem')));
    assert.deepEqual(all.filter(fromPackage('@solana')), []);
  });

  it('@portico/auth/providers/solana alone bundles @solana/kit and no viem', async () => {
    const meta = await bundle(`
      import { createSolanaProvider } from '@portico/auth/providers/solana';
      export const provider = createSolanaProvider({ getEd25519PrivKey: () => '', chainConfig: { chainNamespace: 'solana', chainId: '0x3', rpcTarget: 'https://gw.example/v3/KEY' } });
    `);
    const all = inputsOf(meta, Object.keys(meta.outputs));
    assert.ok(all.some(fromPackage('@solana')), '@solana/kit (its @solana/* packages)');
    assert.deepEqual(all.filter(fromPackage('viem')), []);
  });
});
