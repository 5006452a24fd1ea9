#!/usr/bin/env node
// Mutation testing of the core modules (StrykerJS, command runner): each mutant of a module is run
// against the test files that cover it, and a mutant the tests let through is a test to write (or
// an equivalent mutant, listed in docs/testing.md). Not part of CI: it runs the tests once per
// mutant. Usage: npm run mutate [-- <module>...]   (no module: every one; see MODULES)
//
// Stryker runs in place (`inPlace`): the workspace packages import each other through
// node_modules/@portico/* links to the real sources, so a sandbox copy would test the original
// files. Do not edit the mutated file while it runs; Stryker puts it back when it ends (also on
// Ctrl-C). Reports: reports/mutation/<module>.{json,html}. MUTATE_CONCURRENCY=<n>: n mutants at once.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Each core module and the test files that cover it (fast ones: no anvil, no services). */
export const MODULES = {
  params: {
    mutate: 'packages/gateway/src/methods/evm/params.ts',
    tests: ['packages/gateway/src/methods/evm/params.test.ts'],
  },
  'wallet-createSession': {
    mutate: 'packages/multichain/src/engine/wallet-createSession.ts',
    tests: ['packages/multichain/test/engine.test.ts', 'packages/wallet/test/approval-disconnect.test.ts'],
  },
  jwt: {
    mutate: 'packages/auth-server/src/verifiers/jwt.ts',
    tests: [
      'packages/auth-server/test/jwt-verifier.test.ts',
      'packages/auth-server/test/jwt-verifier-jwks.test.ts',
      'packages/auth-server/test/jwt-verifier-claims.test.ts',
    ],
  },
  'logs-in-parts': {
    mutate: 'packages/gateway/src/methods/evm/logs-in-parts.ts',
    tests: [
      'packages/gateway/src/methods/evm/logs-in-parts.test.ts',
      'packages/gateway/src/methods/evm/logs-in-parts-serve.test.ts',
    ],
  },
  'upstream-pool': {
    mutate: 'packages/gateway/src/upstream/upstream-pool.ts',
    tests: [
      'packages/gateway/src/upstream/upstream-pool.test.ts',
      'packages/gateway/src/upstream/upstream-pool-calls.test.ts',
      'packages/gateway/src/upstream/upstream-pool-routing.test.ts',
    ],
  },
  'method-spec': {
    mutate: 'packages/gateway/src/methods/evm/spec.ts',
    tests: [
      'packages/gateway/src/methods/spec.test.ts',
      'packages/gateway/src/methods/evm/spec-rules.test.ts',
    ],
  },
  // The session refresh: renewal with rotation, reuse detection and the absolute cap.
  sessions: {
    mutate: 'packages/auth-server/src/sessions.ts',
    tests: ['packages/auth-server/test/session-chains.test.ts'],
  },
  // The factor checks: attempt limits (counting, backoff, lockout) and the authenticator code.
  attempts: {
    mutate: 'packages/auth-server/src/attempts.ts',
    tests: ['packages/auth-server/test/attempt-rules.test.ts'],
  },
  'authenticator-code': {
    mutate: 'packages/auth-server/src/authenticator.ts',
    tests: ['packages/auth-server/test/authenticator-code.test.ts'],
  },
  // The typed second factors without a fast test before issue 31: setup, sealing, the check.
  'password-factor': {
    mutate: 'packages/auth-server/src/factors/password.ts',
    tests: ['packages/auth-server/test/password-factor.test.ts'],
  },
  'backup-phrase-factor': {
    mutate: 'packages/auth-server/src/factors/backup-phrase.ts',
    tests: ['packages/auth-server/test/backup-phrase-factor.test.ts'],
  },
  'social-backup-factor': {
    mutate: 'packages/auth-server/src/factors/social-backup.ts',
    tests: ['packages/auth-server/test/social-backup-factor.test.ts'],
  },
  // Heads pushed and polled, tags pinned to them, the hold while a write goes through (issue 28):
  // the unit tests first, alone (`firstAlone`): a mutant they kill costs no anvil run.
  'head-tracker': {
    mutate: 'packages/gateway/src/upstream/head-tracker.ts',
    tests: [
      'packages/gateway/src/upstream/head-tracker.test.ts',
      'packages/gateway/test/pushed-heads.test.ts',
      'packages/gateway/test/block-tags.test.ts',
    ],
    firstAlone: true,
  },
  // Where an upstream's WebSocket may be, and the one subscription per node that pushes its heads.
  'websocket-addresses': {
    mutate: 'packages/gateway/src/upstream/websocket-addresses.ts',
    tests: ['packages/gateway/src/upstream/websocket-addresses.test.ts'],
  },
  'pushed-heads': {
    mutate: 'packages/gateway/src/upstream/pushed-heads.ts',
    tests: ['packages/gateway/src/upstream/pushed-heads.test.ts'],
  },
  'sqlite-credit-ledger': {
    mutate: 'packages/gateway/src/credits/sqlite-credit-ledger.ts',
    tests: [
      'packages/gateway/test/durable-credits.test.ts',
      'packages/gateway/test/sqlite-ledger-states.test.ts',
    ],
  },
};

const root = new URL('..', import.meta.url).pathname;
const asked = process.argv.slice(2);
const unknown = asked.filter((name) => !Object.hasOwn(MODULES, name));
if (unknown.length) {
  console.error(`unknown module(s): ${unknown.join(', ')}; known: ${Object.keys(MODULES).join(', ')}`);
  process.exit(2);
}

const reports = join(root, 'reports', 'mutation');
mkdirSync(reports, { recursive: true });
let failed = false;
for (const name of asked.length ? asked : Object.keys(MODULES)) {
  const { mutate, tests, firstAlone } = MODULES[name];
  const testCommand = (files) => `CI=true node scripts/test.mjs ${files.join(' ')}`;
  // firstAlone: the first file, and the others only when it passed (a fast test file in front of
  // slow ones; the mutant is killed as soon as one fails).
  const command = firstAlone
    ? `${testCommand(tests.slice(0, 1))} && ${testCommand(tests.slice(1))}`
    : testCommand(tests);
  const config = {
    $schema: './node_modules/@stryker-mutator/core/schema/stryker-schema.json',
    mutate: [mutate],
    inPlace: true,
    // Only the mutated file is rewritten (and put back); tsx does not type-check anyway.
    disableTypeChecks: false,
    testRunner: 'command',
    // The repository's runner (tsx, @portico/source imports, per-test timeout); CI=true makes a
    // skipped part of the suite a failure rather than a pass.
    commandRunner: { command },
    coverageAnalysis: 'off',
    // The machine is shared: one mutant at a time, unless MUTATE_CONCURRENCY says more (under
    // `nice -n 19` on a loaded machine a test run mostly waits for a core: several at once finish
    // sooner without taking more than the machine's idle time).
    concurrency: Number(process.env.MUTATE_CONCURRENCY ?? 1),
    // A mutant whose run takes this much longer than the first (unmutated) run is a hang. On a
    // loaded machine a run may wait minutes for a core: MUTATE_TIMEOUT_MS raises it so that only
    // real hangs count as timeouts.
    timeoutMS: Number(process.env.MUTATE_TIMEOUT_MS ?? 30_000),
    reporters: ['clear-text', 'progress-append-only', 'json', 'html'],
    jsonReporter: { fileName: join('reports', 'mutation', `${name}.json`) },
    htmlReporter: { fileName: join('reports', 'mutation', `${name}.html`) },
    tempDirName: join('.stryker-tmp', name),
    cleanTempDir: true,
    thresholds: { high: 90, low: 80, break: null },
  };
  const file = join(reports, `${name}.stryker.config.json`);
  writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`);
  console.log(`\n== ${name}: ${mutate} against ${tests.join(', ')}`);
  const run = spawnSync(
    'nice',
    [
      '-n',
      '10',
      process.execPath,
      join(root, 'node_modules', '@stryker-mutator', 'core', 'bin', 'stryker.js'),
      'run',
      file,
    ],
    { cwd: root, stdio: 'inherit' },
  );
  if (run.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
