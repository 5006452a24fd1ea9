#!/usr/bin/env node
// The `portico` command as installed from npm (compiled to dist/bin.js). In the repository
// `bin/portico.mjs` runs this same file from the TypeScript sources.
import { main } from './main.ts';

process.exitCode = await main(process.argv.slice(2));
