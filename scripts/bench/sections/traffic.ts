// The `traffic` section (issue 28's rows): a transaction broadcast to three upstreams against one,
// the gateway's memory over an eth_getLogs of 100,000 blocks, and how soon a subscription's gap is
// filled after its upstream is killed. Each gateway is `portico start` in a process of its own.
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { DEV_MNEMONIC, startAnvil } from '@portico/devchain';
import type { Hex } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import WebSocket from 'ws';
import { startPorticoProcess } from '../../portico-process.ts';
import { startChildServer } from '../child-server.ts';
import { fmt, median } from '../common.ts';
import type { Results, TrafficResults } from '../results.ts';

const TX_ROUNDS = 5;
const TXS_PER_ROUND = 150;
const LOG_BLOCKS = 100_000;
/** The stand-in node's head, and one log in every n-th block: a 6.7 MiB answer, and a 13.4 MiB one. */
const LOG_HEAD = 200_000;
const LOG_EVERY = [8, 4];
const LOG_ROUNDS = 3;
const GAP_ROUNDS = 5;
const GAP_BLOCKS = 4;
/** The block time the gap is held against: anvil `--block-time 1`, the fastest common chains'. */
const BLOCK_TIME_MS = 1000;
const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

async function rpc(url: string, method: string, params: unknown[] = []) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await response.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

const p50 = (values: number[]) => median(values);

/** eth_sendRawTransaction one at a time through a gateway; the latency of each, ms. */
async function sendAll(url: string, raws: Hex[]) {
  const times: number[] = [];
  for (const raw of raws) {
    const started = performance.now();
    await rpc(url, 'eth_sendRawTransaction', [raw]);
    times.push(performance.now() - started);
  }
  return times;
}

/** A gateway in front of one anvil and one in front of three, sent transactions in turn. */
async function broadcastRows(dir: string): Promise<TrafficResults['broadcast']> {
  const nodes = await Promise.all(
    Array.from({ length: 3 }, () => startAnvil({ extraArgs: ['--no-mining'] })),
  );
  const one = await startPorticoProcess({ upstream: nodes[0].url, dir });
  const three = await startPorticoProcess({
    upstream: nodes[0].url,
    dir,
    network: { upstreams: nodes.map((n) => n.url) },
  });
  try {
    // Each gateway its own sender, so that the nonces of one never reach the other's nodes.
    const sign = async (index: number, count: number) => {
      const account = mnemonicToAccount(DEV_MNEMONIC, { addressIndex: index });
      return Promise.all(
        Array.from({ length: count }, (_, nonce) =>
          account.signTransaction({
            chainId: 31337,
            type: 'eip1559',
            to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
            value: 1n,
            nonce,
            gas: 21_000n,
            maxFeePerGas: 10n ** 10n,
            maxPriorityFeePerGas: 1n,
          }),
        ),
      );
    };
    const total = TXS_PER_ROUND * (TX_ROUNDS + 1);
    const [rawOne, rawThree] = await Promise.all([sign(1, total), sign(2, total)]);
    const batch = (raws: Hex[], round: number) =>
      raws.slice(round * TXS_PER_ROUND, (round + 1) * TXS_PER_ROUND);
    await sendAll(one.url, batch(rawOne, 0));
    await sendAll(three.url, batch(rawThree, 0));
    const rounds = { one: [] as number[], three: [] as number[] };
    for (let round = 1; round <= TX_ROUNDS; round++) {
      rounds.one.push(p50(await sendAll(one.url, batch(rawOne, round))));
      rounds.three.push(p50(await sendAll(three.url, batch(rawThree, round))));
    }
    const pending = await rpc(nodes[2].url, 'eth_getTransactionCount', [
      mnemonicToAccount(DEV_MNEMONIC, { addressIndex: 2 }).address,
      'pending',
    ]);
    if (Number(pending) !== total)
      throw new Error(`the third node holds ${Number(pending)} of ${total} transactions`);
    console.log(
      `broadcast p50 per round: one upstream ${rounds.one.map(fmt).join(' / ')} ms, three ${rounds.three.map(fmt).join(' / ')} ms`,
    );
    return { ...rounds, p50One: median(rounds.one), p50Three: median(rounds.three) };
  } finally {
    await Promise.all([one.stop(), three.stop()]);
    await Promise.all(nodes.map((n) => n.stop()));
  }
}

/** Resident set of a process, bytes (VmRSS), or its peak since the last reset (VmHWM). */
function memoryOf(pid: number, field: 'VmRSS' | 'VmHWM') {
  const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no ${field} for ${pid}`);
  return Number(match[1]) * 1024;
}

/** The gateway's resident-set growth while it answers an eth_getLogs over LOG_BLOCKS blocks. */
async function logsRows(dir: string, every: number): Promise<TrafficResults['logs'][number]> {
  const node = await startChildServer('./logs-node.ts', [String(LOG_HEAD), String(every)]);
  try {
    const from = LOG_HEAD - LOG_BLOCKS + 1;
    const filter = { fromBlock: `0x${from.toString(16)}`, toBlock: `0x${LOG_HEAD.toString(16)}` };
    const expected = (await rpc(node.url, 'eth_getLogs', [filter])) as unknown[];
    const gateway = await startPorticoProcess({
      upstream: node.url,
      dir,
      network: { maxResponseBytes: MAX_RESPONSE_BYTES },
    });
    try {
      const ask = async () => {
        const started = performance.now();
        const response = await fetch(gateway.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getLogs', params: [filter] }),
        });
        const text = await response.text();
        const ms = performance.now() - started;
        const logs = (JSON.parse(text) as { result?: unknown[] }).result;
        if (logs?.length !== expected.length)
          throw new Error(
            `the gateway answered ${logs?.length} logs, the node ${expected.length}: ${text.slice(0, 200)}`,
          );
        return { bytes: Buffer.byteLength(text), ms };
      };
      await ask();
      const growth: number[] = [];
      const ms: number[] = [];
      let answerBytes = 0;
      for (let round = 0; round < LOG_ROUNDS; round++) {
        // The peak resident set is reset (clear_refs 5), so VmHWM afterwards is this request's peak.
        writeFileSync(`/proc/${gateway.pid}/clear_refs`, '5');
        const before = memoryOf(gateway.pid, 'VmRSS');
        const answer = await ask();
        growth.push(memoryOf(gateway.pid, 'VmHWM') - before);
        ms.push(answer.ms);
        answerBytes = answer.bytes;
      }
      console.log(
        `eth_getLogs over ${LOG_BLOCKS} blocks: ${expected.length} logs, ${answerBytes} bytes, RSS growth ${growth.map((g) => (g / 2 ** 20).toFixed(1)).join(' / ')} MiB`,
      );
      return { every, growth, answerBytes, logs: expected.length, maxResponseBytes: MAX_RESPONSE_BYTES, ms };
    } finally {
      await gateway.stop();
    }
  } finally {
    await node.stop();
  }
}

/**
 * One kill: a newHeads subscription through the gateway on the first of two anvils mined in step;
 * the second alone mines GAP_BLOCKS blocks, the first is killed; the time from the kill to the
 * gap's last head reaching the client.
 */
async function gapRound(dir: string): Promise<number> {
  const [first, second] = await Promise.all([startAnvil(), startAnvil()]);
  const gateway = await startPorticoProcess({
    upstream: first.url,
    dir,
    network: { upstreams: [first.url, second.url] },
  });
  try {
    const socket = new WebSocket(gateway.url.replace(/^http/, 'ws').replace('/v3/', '/ws/v3/'));
    const heads: { number: number; at: number }[] = [];
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as { params?: { result?: { number?: string } } };
      const number = message.params?.result?.number;
      if (number) heads.push({ number: Number(number), at: performance.now() });
    });
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] }));
    const until = async (check: () => boolean) => {
      const deadline = Date.now() + 10_000;
      while (!check()) {
        if (Date.now() > deadline) throw new Error('the gap was not filled within 10 s');
        await new Promise((r) => setTimeout(r, 1));
      }
    };
    await new Promise((r) => setTimeout(r, 200));
    for (let block = 1; block <= 3; block++) {
      await Promise.all([rpc(first.url, 'evm_mine'), rpc(second.url, 'evm_mine')]);
      await until(() => heads.at(-1)?.number === block);
    }
    for (let i = 0; i < GAP_BLOCKS; i++) await rpc(second.url, 'evm_mine');
    const killed = performance.now();
    await first.stop();
    const last = 3 + GAP_BLOCKS;
    await until(() => heads.at(-1)?.number === last);
    const numbers = heads.map((h) => h.number).join(',');
    if (numbers !== Array.from({ length: last }, (_, i) => i + 1).join(','))
      throw new Error(`heads ${numbers}`);
    socket.close();
    return (heads.at(-1)?.at ?? killed) - killed;
  } finally {
    await gateway.stop();
    await Promise.all([first.stop(), second.stop()]);
  }
}

export async function trafficSection(dir: string, results: Results): Promise<string[]> {
  const started = performance.now();
  const loadAtStart = loadavg()[0];
  const broadcast = await broadcastRows(dir);
  const logs = [];
  for (const every of LOG_EVERY) logs.push(await logsRows(dir, every));
  const gap = { ms: [] as number[] };
  for (let round = 0; round < GAP_ROUNDS; round++) gap.ms.push(await gapRound(dir));
  console.log(`gap filled after ${gap.ms.map(fmt).join(' / ')} ms`);
  const seconds = (performance.now() - started) / 1000;
  results.traffic = { broadcast, logs, gap, seconds };
  const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
  return [
    '## Traffic that cannot break the fleet (issue 28)',
    '',
    `This section took ${seconds.toFixed(0)} s (one-minute load average ${loadAtStart.toFixed(1)} at its start, ${loadavg()[0].toFixed(1)} at its end). Each gateway is \`portico start\` (the built package) in a process of its own, cache off.`,
    '',
    `**A transaction to three upstreams against one.** Three anvils with \`--no-mining\` (the transaction waits in each pool, so no block is mined on the way); one gateway in front of the first, one in front of all three (every transaction to every upstream, answered when one accepts it). One client sends signed transfers one at a time, ${TXS_PER_ROUND} per round after a round of warm-up, the two gateways in turn over ${TX_ROUNDS} rounds, each its own sender; the third node holds every transaction at the end.`,
    '',
    '| upstreams | p50 ms (median of the rounds) | p50 of each round, ms |',
    '|---|---|---|',
    `| 1 | ${fmt(broadcast.p50One)} | ${broadcast.one.map(fmt).join(', ')} |`,
    `| 3 | ${fmt(broadcast.p50Three)} | ${broadcast.three.map(fmt).join(', ')} |`,
    '',
    `Three upstreams add ${fmt(broadcast.p50Three - broadcast.p50One)} ms at p50 (goal ≤ 1 ms). The three anvils check and pool every transaction on the same two cores as the gateway and the client, so under load the row measures their contention as much as the gateway's three sends; it moves by about a millisecond from one run to the next.`,
    '',
    `**eth_getLogs over ${LOG_BLOCKS.toLocaleString('en')} blocks.** A stand-in node (scripts/bench/logs-node.ts: anvil mines 100,000 blocks too slowly on this machine, 2 to 10 ms a block and slower as its chain grows) with a log in every ${LOG_EVERY.join('th or ')}th block; the gateway's defaults split the range into parts of 10,000 blocks, 4 at a time, \`maxResponseBytes\` ${mib(MAX_RESPONSE_BYTES)} MiB. Each answer holds the node's own count of logs for the whole range; after one warm-up request, the gateway's peak resident set during each request (VmHWM, reset before it through /proc/PID/clear_refs) minus its resident set before, ${LOG_ROUNDS} requests.`,
    '',
    '| logs | answer MiB | RSS growth MiB, each request | answered in ms | largest growth / answer |',
    '|---|---|---|---|---|',
    ...logs.map(
      (run) =>
        `| ${run.logs} | ${mib(run.answerBytes)} | ${run.growth.map(mib).join(', ')} | ${run.ms.map((ms) => ms.toFixed(0)).join(', ')} | ${(Math.max(...run.growth) / run.answerBytes).toFixed(1)} |`,
    ),
    '',
    `Goal: growth ≤ 2 × \`maxResponseBytes\` = ${mib(2 * MAX_RESPONSE_BYTES)} MiB. The gateway keeps each part as the node's text and writes the answer as those texts one after the other, each when the socket has taken the one before (\`JsonResult.ofItems\`, \`sendRpcAnswer\` in packages/gateway/src/http/respond.ts): the parts are the one copy of the answer it holds, beside the parts being read from the node (up to 4 at a time) and the one being written. The growth is counted from the resident set after a warm-up request, whose heap V8 keeps: a later request that fits in it grows the set by less than its answer; the first measured request of each process is the one that grows it most.`,
    '',
    `**A subscription's gap after an upstream kill.** Two anvils behind the gateway, mined in step; a client's newHeads subscription on the first; the second alone mines ${GAP_BLOCKS} blocks, then the first is stopped (SIGTERM). Time from the stop to the gap's last head reaching the client (every head once, in order), ${GAP_ROUNDS} rounds: ${gap.ms.map((ms) => ms.toFixed(0)).join(', ')} ms; median ${median(gap.ms).toFixed(0)} ms, at most ${Math.max(...gap.ms).toFixed(0)} ms, against a block time of ${BLOCK_TIME_MS} ms (anvil \`--block-time 1\`; 2 s on Base and OP chains, 12 s on Ethereum).`,
    '',
  ];
}
