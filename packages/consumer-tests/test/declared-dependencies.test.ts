// A package installed alone (a browser app that installs only @portico/auth) gets only what its
// package.json declares: every package its built code imports must be among its dependencies, or
// the app fails at the import, although inside this repository (workspaces) everything resolves.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { before, test } from 'node:test';
import ts from 'typescript';

const ROOT = new URL('../../../', import.meta.url).pathname;

/** The module specifiers of an ES module: `import … from`, `export … from` and `import()`. */
function specifiersOf(code: string): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier)
      found.push((node.moduleSpecifier as ts.StringLiteral).text);
    else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    )
      found.push(node.arguments[0].text);
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile('module.js', code, ts.ScriptTarget.Latest));
  return found;
}

/** The package names a built module imports, without Node's own and the package's own files. */
function importedPackages(code: string): string[] {
  return specifiersOf(code)
    .filter((specifier) => !/^[./#]/.test(specifier) && !specifier.startsWith('node:'))
    .filter((specifier) => !builtinModules.includes(specifier.split('/')[0]))
    .map((specifier) =>
      specifier
        .split('/')
        .slice(0, specifier.startsWith('@') ? 2 : 1)
        .join('/'),
    );
}

const published = readdirSync(join(ROOT, 'packages'))
  .map((dir) => ({ dir: join(ROOT, 'packages', dir) }))
  .map(({ dir }) => ({ dir, manifest: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) }))
  .filter(({ manifest }) => !manifest.private);

before(() => {
  execFileSync(process.execPath, [join(ROOT, 'scripts/build.mjs')], { cwd: ROOT, stdio: 'inherit' });
});

for (const { dir, manifest } of published) {
  test(`${manifest.name} declares every package its built code imports`, () => {
    const declared = new Set([
      manifest.name,
      ...Object.keys(manifest.dependencies ?? {}),
      ...Object.keys(manifest.peerDependencies ?? {}),
      ...Object.keys(manifest.optionalDependencies ?? {}),
    ]);
    const undeclared = new Set<string>();
    for (const entry of readdirSync(join(dir, 'dist'), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith('.js')) continue;
      const code = readFileSync(join(entry.parentPath, entry.name), 'utf8');
      for (const name of importedPackages(code)) if (!declared.has(name)) undeclared.add(name);
    }
    assert.deepEqual(
      [...undeclared].sort(),
      [],
      `imported by ${manifest.name}'s dist but not in its dependencies`,
    );
  });
}
