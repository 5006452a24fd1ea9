// The `cache-hit` section: `portico start` cache hits against the runtime's HTTP floor.
import type { Anvil } from '@portico/devchain';
import { startPorticoProcess } from '../../portico-process.ts';
import type { ChildServer } from '../child-server.ts';
import { cpuOf, FINAL_BLOCK_BODY, FLOOR, fmt, measure, ratio } from '../common.ts';
import type { Results } from '../results.ts';
import { fixedBodyScript } from '../wrk.ts';

export async function cacheHitSection(
  anvil: Anvil,
  floor: ChildServer,
  dir: string,
  results: Results,
): Promise<string[]> {
  const gateway = await startPorticoProcess({ upstream: anvil.url, dir, cache: true });
  const script = fixedBodyScript(dir, FINAL_BLOCK_BODY);
  try {
    // The first answer fills the cache; it must be the same bytes as the fixed body.
    const first = await (
      await fetch(gateway.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: FINAL_BLOCK_BODY,
      })
    ).text();
    const fixed = await (await fetch(floor.url, { method: 'POST', body: FINAL_BLOCK_BODY })).text();
    if (JSON.stringify(JSON.parse(first)) !== JSON.stringify(JSON.parse(fixed)))
      throw new Error(`the gateway's block 0x1 differs from anvil's: ${first.slice(0, 200)}`);
    for (const clients of [8, 64]) {
      const floorResult = await measure(FLOOR, floor.url, script, clients, floor.pid);
      const hit = await measure(
        'Portico cache hit (portico start)',
        gateway.url,
        script,
        clients,
        gateway.pid,
      );
      results.cacheHit.push({ clients, floor: floorResult, hit });
    }
  } finally {
    await gateway.stop();
  }
  return [
    '## Cache hits against the runtime’s HTTP floor',
    '',
    `\`${FINAL_BLOCK_BODY}\` (a finalized block, ${Buffer.byteLength(await (await fetch(floor.url, { method: 'POST', body: FINAL_BLOCK_BODY })).text())} bytes answered) from \`portico start\` with its cache on (still authenticated and charged), against a bare node:http server in its own process that reads each body and answers the same bytes: what Node's HTTP layer can serve on this machine.`,
    '',
    '| clients | floor req/s | cache hit req/s | hit / floor | floor CPU µs/request | hit CPU µs/request | floor p50 ms | hit p50 ms | floor p99 ms | hit p99 ms |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...results.cacheHit.map(
      (c) =>
        `| ${c.clients} | ${c.floor.rps.toFixed(0)} | ${c.hit.rps.toFixed(0)} | ${ratio(c.hit.rps, c.floor.rps)} | ${cpuOf(c.floor)} | ${cpuOf(c.hit)} | ${fmt(c.floor.p50)} | ${fmt(c.hit.p50)} | ${fmt(c.floor.p99)} | ${fmt(c.hit.p99)} |`,
    ),
    '',
  ];
}
