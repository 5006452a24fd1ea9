// The `solana` section: getSignaturesForAddress through the gateway, and the ledger's throughput.
import { benchSolanaLedger, startSolanaLedger } from '@portico/devchain';
import { parseConfig, startGateway } from '@portico/gateway';
import { wrk } from '../common.ts';

/** getSignaturesForAddress through the gateway against the ledger direct, and the ledger's tx/s. */
export async function benchSolana(luaFor: (body: string) => string): Promise<string[]> {
  const ledger = await startSolanaLedger({ seed: true });
  const gateway = await startGateway(
    parseConfig({
      port: 0,
      logLevel: 'warn',
      networks: [{ name: 'solana-local', kind: 'solana', chainId: ledger.chainId, upstreams: [ledger.url] }],
    }),
  );
  const rows: string[] = [];
  try {
    const { key } = await gateway.keys.create({ name: 'bench-solana', dailyCredits: 1e15 });
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'getSignaturesForAddress',
      params: [ledger.devAccounts[0].address, { limit: 10 }],
    });
    const script = luaFor(body);
    for (const [target, url] of [
      ['Solana ledger direct', ledger.url],
      ['Portico gateway → Solana ledger', `${gateway.networks[0].baseUrl}/v3/${key}`],
    ] as const) {
      await wrk(url, 8, script);
      const r = await wrk(url, 8, script);
      rows.push(`| ${target} | 8 | ${r.rps.toFixed(0)} | ${r.p50.toFixed(3)} | ${r.p99.toFixed(3)} |`);
      console.log(
        `${target.padEnd(46)} c=8   ${r.rps.toFixed(0).padStart(7)} req/s  p50 ${r.p50.toFixed(3)} ms`,
      );
    }
  } finally {
    await gateway.close();
    await ledger.stop();
  }
  const tx = await benchSolanaLedger({ transactions: 1000, concurrency: 4 });
  console.log(
    `Solana ledger: ${tx.transactionsPerSecond.toFixed(0)} tx/s over HTTP, ${tx.inProcessTransactionsPerSecond.toFixed(0)} in process`,
  );
  return [
    '## Solana: getSignaturesForAddress (limit 10) and the ledger',
    '',
    '| target | clients | req/s | p50 ms | p99 ms |',
    '|---|---|---|---|---|',
    ...rows,
    '',
    `Ledger throughput: ${tx.transactionsPerSecond.toFixed(0)} transfers/s over HTTP (sendTransaction with preflight, ${tx.concurrency} concurrent senders, ${tx.transactions} transactions, all ${tx.processed} processed); ${tx.inProcessTransactionsPerSecond.toFixed(0)}/s submitted in process (LiteSVM plus the ledger's indexing, no HTTP).`,
    '',
  ];
}
