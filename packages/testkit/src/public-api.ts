// The public API of a package as the list of names each of its entry points exports, read from
// the sources by the TypeScript parser (type-only exports count too), compared against the
// list recorded beside the package's tests. An export that vanishes or appears fails the test
// until the recorded list is updated on purpose: `UPDATE_PUBLIC_API=1 npm test -- public-api`.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export type PublicApi = Record<string, string[]>;

interface ExportTarget {
  '@portico/source'?: string;
}

function sourceEntries(packageDir: string): Record<string, string> {
  const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
    exports?: Record<string, string | ExportTarget>;
  };
  const entries: Record<string, string> = {};
  for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
    if (typeof target === 'object' && target['@portico/source']) {
      entries[subpath] = join(packageDir, target['@portico/source']);
    }
  }
  return entries;
}

function isExported(node: ts.Node): boolean {
  return (
    ts.canHaveModifiers(node) &&
    (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword)
  );
}

/** The names a binding declares: `x`, or each of `{ a, b: c }` and `[d, e]` (destructured exports). */
function boundNames(name: ts.BindingName): string[] {
  if (ts.isIdentifier(name)) return [name.text];
  return name.elements.flatMap((element) =>
    ts.isOmittedExpression(element) ? [] : boundNames(element.name),
  );
}

function declarationNames(node: ts.Statement): string[] {
  if (ts.isVariableStatement(node))
    return node.declarationList.declarations.flatMap((d) => boundNames(d.name));
  const name = (node as ts.DeclarationStatement).name;
  return name && ts.isIdentifier(name) ? [name.text] : [];
}

/**
 * The names one module exports, read from its syntax alone (fast: no type-checking of the
 * package's dependencies). The sources compile with `isolatedModules`, so a re-exported type is
 * always written `type`, and the syntax says which names are types. Relative `export *` is
 * followed; `export *` of another package is recorded as `* from <package>`.
 */
function exportsOf(file: string, seen = new Set<string>()): string[] {
  if (seen.has(file)) return [];
  seen.add(file);
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022);
  const names: string[] = [];
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement)) {
      const from = statement.moduleSpecifier && (statement.moduleSpecifier as ts.StringLiteral).text;
      const clause = statement.exportClause;
      if (!clause) {
        if (from?.startsWith('.')) names.push(...exportsOf(join(dirname(file), from), seen));
        else names.push(`* from ${from}`);
      } else if (ts.isNamespaceExport(clause)) {
        names.push(statement.isTypeOnly ? `type ${clause.name.text}` : clause.name.text);
      } else {
        for (const element of clause.elements) {
          const typeOnly = statement.isTypeOnly || element.isTypeOnly;
          names.push(typeOnly ? `type ${element.name.text}` : element.name.text);
        }
      }
    } else if (isExported(statement)) {
      const typeOnly = ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement);
      for (const name of declarationNames(statement)) names.push(typeOnly ? `type ${name}` : name);
    }
  }
  return names;
}

/** Every name each entry point exports; type-only names are written `type Name`. */
export function readPublicApi(packageDir: string): PublicApi {
  const api: PublicApi = {};
  for (const [subpath, file] of Object.entries(sourceEntries(packageDir))) {
    api[subpath] = [...new Set(exportsOf(file))].sort((a, b) =>
      a.replace(/^type /, '').localeCompare(b.replace(/^type /, '')),
    );
  }
  return api;
}

/**
 * Asserts that the package whose test calls this (pass `import.meta.url`) exports exactly the
 * names recorded in its `test/public-api.json`.
 */
export function assertPublicApi(testFileUrl: string): void {
  const testDir = dirname(fileURLToPath(testFileUrl));
  const packageDir = dirname(testDir);
  const recordFile = join(testDir, 'public-api.json');
  const actual = readPublicApi(packageDir);
  if (process.env.UPDATE_PUBLIC_API === '1' || !existsSync(recordFile)) {
    assert.ok(process.env.CI !== 'true', `${recordFile} is missing: record it with UPDATE_PUBLIC_API=1`);
    writeFileSync(recordFile, `${JSON.stringify(actual, null, 2)}\n`);
    return;
  }
  const recorded = JSON.parse(readFileSync(recordFile, 'utf8')) as PublicApi;
  const changes: string[] = [];
  for (const subpath of new Set([...Object.keys(recorded), ...Object.keys(actual)])) {
    const before = new Set(recorded[subpath] ?? []);
    const after = new Set(actual[subpath] ?? []);
    for (const name of before) if (!after.has(name)) changes.push(`- ${subpath} ${name}`);
    for (const name of after) if (!before.has(name)) changes.push(`+ ${subpath} ${name}`);
  }
  assert.deepEqual(
    changes,
    [],
    `the public API changed (${changes.length} names). If that is intended, record it with ` +
      `UPDATE_PUBLIC_API=1 npm test -- public-api and say so in the CHANGELOG:\n${changes.join('\n')}`,
  );
}
