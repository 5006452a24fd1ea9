// The `latest` section's tables: one identical request through each hop, and what each hop adds.
import { ANVIL, BARE, BODY, CLIENTS, FLOOR, fmt, GATEWAY, NGINX, type Row, ratio } from '../common.ts';

export function latestSection(rows: Row[]): string[] {
  const find = (target: string, clients: number) =>
    rows.find((r) => r.target === target && r.clients === clients);
  const hop = (target: string, clients: number) => {
    const a = find(ANVIL, clients);
    const r = find(target, clients);
    return a && r ? fmt(r.p50 - a.p50) : '—';
  };
  return [
    '## One identical request: `eth_getBlockByNumber("latest")`',
    '',
    `Request: \`${BODY}\`; the gateway (\`portico start\`, the built package, in a process of its own) has its cache off and every request is authenticated, validated, charged and forwarded. The bare Node proxy and the fixed-body server run in processes of their own (scripts/bench/). Identical requests in flight at once are merged by the gateway, which flatters it at 64 clients: the distinct-request section below is the fairer measure.`,
    '',
    '| target | clients | req/s | p50 ms | p99 ms |',
    '|---|---|---|---|---|',
    ...rows
      .filter((r) => [ANVIL, NGINX, BARE, GATEWAY, FLOOR].includes(r.target))
      .map((r) => `| ${r.target} | ${r.clients} | ${r.rps.toFixed(0)} | ${fmt(r.p50)} | ${fmt(r.p99)} |`),
    '',
    '### What each hop adds (p50, against anvil direct)',
    '',
    '| clients | nginx adds ms | bare proxy adds ms | gateway adds ms | gateway / bare proxy req/s | gateway / nginx req/s |',
    '|---|---|---|---|---|---|',
    ...CLIENTS.map((c) => {
      const g = find(GATEWAY, c);
      const b = find(BARE, c);
      const n = find(NGINX, c);
      return `| ${c} | ${hop(NGINX, c)} | ${hop(BARE, c)} | ${hop(GATEWAY, c)} | ${g && b ? ratio(g.rps, b.rps) : '—'} | ${g && n ? ratio(g.rps, n.rps) : '—'} |`;
    }),
    '',
  ];
}
