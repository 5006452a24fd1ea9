// The `distinct` section: distinct requests through anvil, the bare Node proxy and `portico start`.
import type { Anvil } from '@portico/devchain';
import { startPorticoProcess } from '../../portico-process.ts';
import type { ChildServer } from '../child-server.ts';
import { ANVIL, BARE, cpuOf, fmt, measure, ratio } from '../common.ts';
import { checkWorkload, type DistinctChain, distinctWorkloads } from '../distinct.ts';
import type { Results } from '../results.ts';

export async function distinctSection(
  anvil: Anvil,
  bare: ChildServer,
  chain: DistinctChain,
  dir: string,
  results: Results,
): Promise<string[]> {
  const gateway = await startPorticoProcess({ upstream: anvil.url, dir });
  const lines: string[] = [];
  try {
    for (const workload of distinctWorkloads(dir, chain)) {
      for (const url of [anvil.url, bare.url, gateway.url]) await checkWorkload(url, workload);
      for (const clients of [8, 64]) {
        console.log(`${workload.name}, ${clients} clients`);
        const anvilResult = await measure(ANVIL, anvil.url, workload.script, clients);
        const bareResult = await measure(BARE, bare.url, workload.script, clients, bare.pid);
        const gatewayResult = await measure(
          'Portico gateway (portico start, cache off)',
          gateway.url,
          workload.script,
          clients,
          gateway.pid,
        );
        results.distinct.push({
          workload: workload.name,
          clients,
          anvil: anvilResult,
          bare: bareResult,
          gateway: gatewayResult,
        });
      }
    }
  } finally {
    await gateway.stop();
  }
  lines.push(
    '## Distinct requests: nothing to merge, nothing cached',
    '',
    `Every request is new: a new id each and a random block among the chain's ${chain.blocks}, a random receipt among ${chain.transactions.length} transactions, or an \`eth_call\` of the demo contract with a random 32-byte word after the selector (the bodies come from wrk Lua scripts). The gateway is \`portico start\` (the built package, as users run it) in a process of its own, cache off (every request authenticated, validated, charged, forwarded); the bare Node proxy (node:http in, undici out, bytes passed through) too. Rows of one workload and client count run one after another. CPU µs per request is the CPU time (user + system, from /proc) of the proxy's own process divided by the requests answered: what each proxy spends per request, much less disturbed by other work on the machine than req/s.`,
    '',
    '| workload | clients | anvil req/s | bare proxy req/s | gateway req/s | gateway / bare proxy | bare proxy CPU µs/request | gateway CPU µs/request | anvil p50 ms | bare proxy p50 ms | gateway p50 ms | gateway adds at p50 ms | anvil p99 ms | bare proxy p99 ms | gateway p99 ms |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...results.distinct.map(
      (d) =>
        `| ${d.workload} | ${d.clients} | ${d.anvil.rps.toFixed(0)} | ${d.bare.rps.toFixed(0)} | ${d.gateway.rps.toFixed(0)} | ${ratio(d.gateway.rps, d.bare.rps)} | ${cpuOf(d.bare)} | ${cpuOf(d.gateway)} | ${fmt(d.anvil.p50)} | ${fmt(d.bare.p50)} | ${fmt(d.gateway.p50)} | ${fmt(d.gateway.p50 - d.anvil.p50)} | ${fmt(d.anvil.p99)} | ${fmt(d.bare.p99)} | ${fmt(d.gateway.p99)} |`,
    ),
    '',
  );
  return lines;
}
