// The `replay` section: a replayed dapp workload through nginx and Portico, upstream calls counted.
import { type EvmSeed, seedEvmChain, startAnvil } from '@portico/devchain';
import { createTestClient, http } from 'viem';
import { foundry } from 'viem/chains';
import { startPorticoProcess } from '../../portico-process.ts';
import { startChildServer } from '../child-server.ts';
import { fmt, median } from '../common.ts';
import { startNginx } from '../nginx.ts';
import { type ReplayOptions, replayDapp, signBroadcasts } from '../replay.ts';
import type { Replayed, ReplayedRounds, Results } from '../results.ts';

const REPLAY: ReplayOptions = {
  clients: Number(process.env.BENCH_REPLAY_CLIENTS ?? '100'),
  seconds: Number(process.env.BENCH_REPLAY_SECONDS ?? '20'),
  pollMs: 1000,
  broadcastMs: 1000,
  seed: 17,
};
const DELAY_MS = 20;
/**
 * The second Portico run: the head tracked every 250 ms and `latest` answered as the head every
 * upstream has reached (what a dapp backend that serves many head pollers would configure).
 */
const HEAD_TRACKING = { blockTags: 'agreed', headPollMs: 250 };
/** The defaults in front of a node without a WebSocket at its address: heads polled, tags sent as they are. */
const POLLS_ONLY = { headPush: false };

/** The dapp replay against one proxy, on a fresh chain behind a fresh delay proxy. */
async function replayAgainst(kind: Target, dir: string): Promise<Replayed> {
  const anvil = await startAnvil({});
  try {
    const seed: EvmSeed = await seedEvmChain(anvil.url);
    const test = createTestClient({ chain: foundry, mode: 'anvil', transport: http(anvil.url) });
    await test.mine({ blocks: 20 });
    await test.setIntervalMining({ interval: 1 });
    const broadcasts = await signBroadcasts(
      seed.demoContract,
      Math.ceil((REPLAY.seconds * 1000) / REPLAY.broadcastMs) + 1,
    );
    const delay = await startChildServer('./delay-proxy.ts', [anvil.url, String(DELAY_MS)]);
    try {
      const proxy =
        kind === 'nginx'
          ? await startNginx(delay.url, dir)
          : kind === 'bare'
            ? await startBareProxy(delay.url)
            : await (async () => {
                const p = await startPorticoProcess({
                  upstream: delay.url,
                  dir,
                  cache: true,
                  network:
                    kind === 'portico-head'
                      ? HEAD_TRACKING
                      : kind === 'portico-polled'
                        ? POLLS_ONLY
                        : undefined,
                });
                return { url: p.url, stop: () => void p.stop() };
              })();
      try {
        // One request of each kind first (not counted), as a server that has been running would have
        // compiled its code paths; the dapp's own requests then start cold in the cache.
        await warmUp(proxy.url, seed);
        await fetch(`${delay.url}reset`, { method: 'POST' });
        const result = await replayDapp(proxy.url, seed.demoContract, broadcasts, REPLAY);
        const stats = (await (await fetch(`${delay.url}stats`)).json()) as {
          requests: number;
          calls: number;
          methods: Record<string, number>;
        };
        const replayed = {
          ...result,
          upstreamRequests: stats.requests,
          upstreamCalls: stats.calls,
          upstreamMethods: stats.methods,
        };
        console.log(
          `replay ${kind.padEnd(8)} ${result.requests} requests (${result.errors} errors), p50 ${fmt(result.p50)} ms, p99 ${fmt(result.p99)} ms, upstream ${stats.calls} calls in ${stats.requests} requests ${JSON.stringify(stats.methods)}`,
        );
        return replayed;
      } finally {
        proxy.stop();
      }
    } finally {
      await delay.stop();
    }
  } finally {
    await anvil.stop();
  }
}

async function startBareProxy(upstream: string) {
  const bare = await startChildServer('./bare-proxy.ts', [upstream]);
  return { url: bare.url, stop: () => void bare.stop() };
}

async function warmUp(url: string, seed: EvmSeed) {
  const bodies: [string, unknown[]][] = [
    ['eth_blockNumber', []],
    ['eth_getBlockByNumber', ['latest', false]],
    ['eth_call', [{ to: seed.demoContract, data: '0x3fa4f245' }, '0x1']],
    ['eth_getTransactionReceipt', [seed.transactions.store]],
    ['eth_getLogs', [{ address: seed.demoContract, fromBlock: '0x0', toBlock: '0x2' }]],
  ];
  for (const [method, params] of bodies) {
    const answer = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    if (!answer.ok) throw new Error(`warm-up ${method}: HTTP ${answer.status}`);
  }
}

/** The targets of the replay, in the order each round runs them. */
const TARGETS = ['nginx', 'bare', 'portico', 'portico-polled', 'portico-head'] as const;
type Target = (typeof TARGETS)[number];

/** Rounds of the replay: one run of every target per round, so that each sees the same minutes. */
const REPLAY_ROUNDS = Number(process.env.BENCH_REPLAY_ROUNDS ?? '3');

/**
 * A target's rounds as one figure each: the median round's p50, p99 and calls. One 20 s run's p99
 * rests on about 50 requests and moves by several milliseconds with the machine's other work.
 */
function medianOf(runs: Replayed[]): ReplayedRounds {
  const middle = <K extends 'p50' | 'p99' | 'upstreamCalls' | 'upstreamRequests' | 'requests' | 'errors'>(
    field: K,
  ) => median(runs.map((run) => run[field]));
  const callsMedian = middle('upstreamCalls');
  const typical = runs.find((run) => run.upstreamCalls === callsMedian) ?? runs[0];
  return {
    ...typical,
    requests: middle('requests'),
    errors: middle('errors'),
    p50: middle('p50'),
    p99: middle('p99'),
    upstreamCalls: callsMedian,
    upstreamRequests: middle('upstreamRequests'),
    rounds: runs,
  };
}

export async function replaySection(dir: string, haveNginx: boolean, results: Results): Promise<string[]> {
  if (!haveNginx) {
    const portico = await replayAgainst('portico', dir);
    return [
      '## Real traffic: a replayed dapp workload',
      '',
      `nginx is missing: Portico alone made ${portico.upstreamCalls} upstream calls for ${portico.requests} requests (p50 ${fmt(portico.p50)} ms, p99 ${fmt(portico.p99)} ms).`,
      '',
    ];
  }
  const runs = new Map<Target, Replayed[]>(TARGETS.map((target) => [target, []]));
  for (let round = 0; round < REPLAY_ROUNDS; round++)
    for (const target of TARGETS) runs.get(target)!.push(await replayAgainst(target, dir));
  const [nginx, bare, portico, porticoPolled, porticoHead] = TARGETS.map((target) =>
    medianOf(runs.get(target)!),
  );
  results.replay = {
    options: REPLAY,
    rounds: REPLAY_ROUNDS,
    nginx,
    bare,
    portico,
    porticoPolled,
    porticoHead,
  };
  const methods = [
    ...new Set([
      ...Object.keys(nginx.byMethod),
      ...Object.keys(portico.upstreamMethods),
      ...Object.keys(nginx.upstreamMethods),
    ]),
  ].sort();
  const fewer = (r: Replayed) => (100 * (1 - r.upstreamCalls / nginx.upstreamCalls)).toFixed(0);
  const perRound = (r: ReplayedRounds, field: 'p50' | 'p99') =>
    r.rounds.map((run) => run[field].toFixed(1)).join(' / ');
  return [
    '## Real traffic: a replayed dapp workload',
    '',
    `${REPLAY.clients} clients of a dapp for ${REPLAY.seconds} s, simulated from a fixed seed (scripts/bench/replay.ts): every client polls the head about once a second (half with \`eth_blockNumber\`, half with \`eth_getBlockByNumber("latest")\`), reads the demo contract with \`eth_call\` at \`latest\` when the head moved, asks for the receipt of one of the last 5 broadcasts on 30 % of its polls and for the contract's logs over the last 10 blocks on 15 %; one sender broadcasts a signed transaction (\`eth_sendRawTransaction\`) every ${REPLAY.broadcastMs / 1000} s. The upstream is anvil mining a block a second (finality as on Ethereum: 64 blocks behind) behind a delay proxy that adds ${DELAY_MS} ms to every call and counts them, and passes a WebSocket connection on to anvil's (on the same address, as anvil serves it) with each message of the node ${DELAY_MS} ms late, counting the connection as one call. Each target gets a fresh chain and a fresh delay proxy, and one request of each method before the count starts (to warm code paths; what it leaves in a cache is stale a second later or never asked for again); the schedule and the transactions are the same. The targets: nginx (1 worker, keep-alive), the bare Node proxy (what any Node proxy adds), and \`portico start\` three times: with its defaults (cache on; one upstream whose address also serves a WebSocket, so heads are pushed and the default \`blockTags\` is \`pushed\`: \`latest\` is the head the node last pushed, one notification per block, except right after a transaction sent through the gateway), with the defaults in front of a node without a WebSocket there (\`headPush: false\`: heads polled, \`latest\` sent to the node as it is), and with the head tracked: \`blockTags: "agreed"\`, \`headPollMs: ${HEAD_TRACKING.headPollMs}\`, heads pushed too as by default (\`latest\` is the head the gateway last saw, at most ${HEAD_TRACKING.headPollMs} ms old, also after a write, so \`eth_blockNumber\` is answered without a call and reads at \`latest\` are cached by that block's number). The replay runs ${REPLAY_ROUNDS} rounds, each running every target once in turn; a figure is the median of the rounds (one run's p99 rests on about 50 requests and moves by several milliseconds with the machine's other work), and the rounds' own values follow it.`,
    '',
    '| proxy | requests | JSON-RPC errors | upstream HTTP requests | upstream calls | calls per request | p50 ms | p99 ms | p50 of each round | p99 of each round |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...(
      [
        ['nginx (1 worker)', nginx],
        ['bare Node proxy', bare],
        ['Portico, defaults (heads pushed)', portico],
        ['Portico, defaults, node without a WebSocket (`headPush: false`)', porticoPolled],
        [`Portico, head tracked every ${HEAD_TRACKING.headPollMs} ms`, porticoHead],
      ] as const
    ).map(
      ([name, r]) =>
        `| ${name} | ${r.requests} | ${r.errors} | ${r.upstreamRequests} | ${r.upstreamCalls} | ${(r.upstreamCalls / r.requests).toFixed(2)} | ${fmt(r.p50)} | ${fmt(r.p99)} | ${perRound(r, 'p50')} | ${perRound(r, 'p99')} |`,
    ),
    '',
    `Portico made ${fewer(portico)} % fewer upstream calls than nginx with its defaults, ${fewer(porticoPolled)} % fewer with its defaults in front of a node without a WebSocket, ${fewer(porticoHead)} % fewer with the head tracked by polls (head polls and the WebSocket connection included). By method, in the round with the median number of calls (requests the clients sent → calls that reached the upstream; the polls are the eth_getBlockByNumber calls of \`latest\`, \`safe\` and \`finalized\`):`,
    '',
    '| method | sent (nginx run) | upstream via nginx | upstream via Portico, defaults | via Portico, no WebSocket | via Portico, head tracked by polls |',
    '|---|---|---|---|---|---|',
    ...methods.map(
      (m) =>
        `| ${m} | ${nginx.byMethod[m] ?? 0} | ${nginx.upstreamMethods[m] ?? 0} | ${portico.upstreamMethods[m] ?? 0} | ${porticoPolled.upstreamMethods[m] ?? 0} | ${porticoHead.upstreamMethods[m] ?? 0} |`,
    ),
    '',
  ];
}
