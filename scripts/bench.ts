// npm run bench: throughput and latency of anvil direct, nginx (one worker, keep-alive upstream),
// a bare Node proxy and the Portico gateway in front of anvil, the runtime's HTTP floor, distinct-
// request workloads, cache hits, a replayed dapp workload against a slow upstream, transactions to
// several upstreams, a wide eth_getLogs, a subscription across an upstream kill, shared stores and
// a CPU profile of the gateway, measured with wrk in one run. Writes docs/benchmarks.md.
// `npm run bench -- --only distinct,replay` runs some sections and prints them without writing.
// Needs Debian's nginx and wrk (apt-get install -y nginx-light wrk); says what it skips without.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { seedEvmChain, startAnvil } from '@portico/devchain';
import { createTestClient, http } from 'viem';
import { foundry } from 'viem/chains';
import { startChildServer } from './bench/child-server.ts';
import { FINAL_BLOCK_BODY, type Row, SECTIONS } from './bench/common.ts';
import { prepareDistinctChain } from './bench/distinct.ts';
import { report } from './bench/report.ts';
import type { Results } from './bench/results.ts';
import { cacheHitSection } from './bench/sections/cache-hit.ts';
import { benchDebits, durableSection, ledgersSection } from './bench/sections/debits.ts';
import { distinctSection } from './bench/sections/distinct.ts';
import { latestSection } from './bench/sections/latest.ts';
import { profileSection } from './bench/sections/profile.ts';
import { replaySection } from './bench/sections/replay.ts';
import { sharedAnvilRows } from './bench/sections/shared-anvil-rows.ts';
import { benchSolana } from './bench/sections/solana.ts';
import { storesSection } from './bench/sections/stores.ts';
import { trafficSection } from './bench/sections/traffic.ts';
import { fixedBodyScript, hasTool } from './bench/wrk.ts';
import { benchRequestBodies } from './bench-request-bodies.ts';

async function main() {
  const { values } = parseArgs({ options: { only: { type: 'string' } } });
  const only = values.only?.split(',').map((s) => s.trim());
  for (const name of only ?? [])
    if (!SECTIONS.includes(name))
      throw new Error(`--only: no section ${name}; sections: ${SECTIONS.join(', ')}`);
  const runs = (section: string) => !only || only.includes(section);
  const results: Results = { distinct: [], cacheHit: [], skipped: [] };
  const haveWrk = hasTool('wrk');
  const haveNginx = hasTool('nginx');
  if (!haveWrk) {
    const message =
      'wrk is missing (apt-get install -y wrk): skipping every wrk section (latest, debits, stores, distinct, cache-hit, profile, Solana rows)';
    console.error(message);
    results.skipped.push(message);
  }
  if (!haveNginx) {
    const message =
      'nginx is missing (apt-get install -y nginx-light): skipping the nginx rows and the nginx side of the traffic replay';
    console.error(message);
    results.skipped.push(message);
  }
  // The gateways under test run the built packages, as users run them (incremental: about a second).
  execFileSync(process.execPath, [new URL('build.mjs', import.meta.url).pathname], { stdio: 'inherit' });
  const dir = mkdtempSync(join(tmpdir(), 'portico-bench-'));
  const sections: string[] = [];
  const wrkSection = (name: string) => runs(name) && haveWrk;

  let rows: Row[] = [];
  if (['latest', 'debits', 'stores', 'distinct', 'cache-hit', 'profile'].some(wrkSection)) {
    const anvil = await startAnvil({ extraArgs: ['--slots-in-an-epoch', '1'] });
    try {
      const seed = await seedEvmChain(anvil.url);
      await createTestClient({ chain: foundry, mode: 'anvil', transport: http(anvil.url) }).mine({
        blocks: 10,
      });
      const finalBlock = await (
        await fetch(anvil.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: FINAL_BLOCK_BODY,
        })
      ).text();
      const floorFile = join(dir, 'fixed-body.json');
      writeFileSync(floorFile, finalBlock);
      const floor = await startChildServer('./fixed-body-server.ts', [floorFile]);
      const bare = await startChildServer('./bare-proxy.ts', [anvil.url]);
      try {
        rows = await sharedAnvilRows(anvil, dir, { runs: wrkSection, haveNginx, floor, bare }, results);
        if (wrkSection('latest')) sections.push(...latestSection(rows));
        if (wrkSection('stores')) sections.push(...storesSection(rows));
        if (wrkSection('debits')) sections.push(...durableSection(rows));
        if (wrkSection('distinct') || wrkSection('profile')) {
          const chain = await prepareDistinctChain(anvil.url, seed.demoContract);
          console.log(`chain: ${chain.blocks} blocks, ${chain.transactions.length} transactions`);
          if (wrkSection('distinct'))
            sections.push(...(await distinctSection(anvil, bare, chain, dir, results)));
          if (wrkSection('profile')) sections.push(...(await profileSection(anvil, chain, dir, results)));
        }
        if (wrkSection('cache-hit')) sections.push(...(await cacheHitSection(anvil, floor, dir, results)));
      } finally {
        await floor.stop();
        await bare.stop();
      }
    } finally {
      await anvil.stop();
    }
  }
  if (runs('ledgers'))
    sections.push(...ledgersSection(await benchDebits(join(dir, 'ledgers.db'), process.env.REDIS_URL)));
  if (runs('replay')) sections.push(...(await replaySection(dir, haveNginx, results)));
  if (runs('traffic')) sections.push(...(await trafficSection(dir, results)));
  if (wrkSection('solana')) sections.push(...(await benchSolana((body) => fixedBodyScript(dir, body))));
  if (runs('bodies')) sections.push('', ...(await benchRequestBodies()));

  const document = report(results, sections);
  if (only) {
    console.log(`\n--only ${only.join(',')}: docs/benchmarks.md left as it is; the sections:\n`);
    console.log(document);
  } else {
    writeFileSync(new URL('../docs/benchmarks.md', import.meta.url), document);
    console.log('wrote docs/benchmarks.md');
  }
}

await main();
