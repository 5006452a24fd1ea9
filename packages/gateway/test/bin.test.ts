// The portico-gateway command run from source, as `npm test` runs everything.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { tempDir } from '@portico/testkit';

const BIN = fileURLToPath(new URL('../src/bin.ts', import.meta.url));

function gatewayWith(config: string) {
  const dir = tempDir('portico-gateway-bin-');
  try {
    const file = join(dir.path, 'portico.yaml');
    writeFileSync(file, config);
    return spawnSync(
      process.execPath,
      ['--conditions=@portico/source', '--import', 'tsx', BIN, '--config', file],
      {
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
  } finally {
    dir.cleanup();
  }
}

const NETWORKS =
  'networks:\n  - { name: local, chainId: "eip155:31337", upstreams: ["http://127.0.0.1:1"] }\n';

test("a config with portico start's sections is refused in one line that points to portico start", () => {
  const run = gatewayWith(`${NETWORKS}dashboard: { enabled: true }\n`);
  assert.equal(run.status, 2);
  assert.match(
    run.stderr,
    /^portico-gateway: config has unknown field\(s\): dashboard \(allowed: .*\); dashboard, auth and wallet run under portico start \(@portico\/cli\), portico-gateway serves the gateway alone\n$/,
  );
});

test('another unknown field gets no such hint', () => {
  const run = gatewayWith(`${NETWORKS}frobnicate: 1\n`);
  assert.equal(run.status, 2);
  assert.match(run.stderr, /unknown field\(s\): frobnicate/);
  assert.doesNotMatch(run.stderr, /portico start/);
});
