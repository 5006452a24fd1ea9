#!/usr/bin/env node
// The `portico` command run from the TypeScript sources, for the repository (`npm start`,
// `npm run portico`, tests, benchmarks). The published package's command is dist/bin.js, compiled.
// @portico/* imports resolve to the sources (the `@portico/source` export condition) and tsx
// compiles them on the fly.
import { register } from 'node:module';
import { register as registerTsx } from 'tsx/esm/api';

const SOURCE_CONDITION = `export async function resolve(specifier, context, next) {
  return next(specifier, { ...context, conditions: [...context.conditions, '@portico/source'] });
}`;
register(`data:text/javascript,${encodeURIComponent(SOURCE_CONDITION)}`);
registerTsx();
await import('../src/bin.ts');
