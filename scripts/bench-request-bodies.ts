// What reading a request body costs the gateway: the one scan before JSON.parse (depth and batch
// limits, exact ids and integers) on ordinary bodies, and the refusal of a 510 kB batch of 170,000
// `{}` items, measured in the CPU time of a `portico start` process while another client calls it.
// Part of `npm run bench`; alone: node --import tsx scripts/bench-request-bodies.ts
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAnvil } from '@portico/devchain';
import { parseRequestJson } from '../packages/gateway/src/rpc/exact-json.ts';
import { startPorticoProcess } from './portico-process.ts';

const callObject = { to: '0x5fbdb2315678afecb367f032d93f642f64180aa3', data: '0x3fa4f245' };
const call = { jsonrpc: '2.0', id: 1, method: 'eth_call', params: [callObject, 'latest'] };
const BODIES: Record<string, string> = {
  'eth_blockNumber (60 B)': JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }),
  'eth_getBlockByNumber (82 B)': JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'eth_getBlockByNumber',
    params: ['latest', false],
  }),
  'eth_call (140 B)': JSON.stringify(call),
  'eth_call with 1 kB of data': JSON.stringify({
    ...call,
    params: [{ ...callObject, data: `0x${'ab'.repeat(500)}` }, 'latest'],
  }),
  'batch of 100 eth_call (14 kB)': JSON.stringify(Array.from({ length: 100 }, (_, id) => ({ ...call, id }))),
};

/** ns per call of `f`: the best of 7 rounds of 20,000 after a warm-up round. */
function nsPerCall(f: () => unknown): number {
  const round = () => {
    const start = process.hrtime.bigint();
    for (let i = 0; i < 20_000; i++) f();
    return Number(process.hrtime.bigint() - start) / 20_000;
  };
  round();
  return Math.min(...Array.from({ length: 7 }, round));
}

function scanCost(): string[] {
  const limits = { maxDepth: 64, maxItems: 100 };
  const lines = [
    "| body | JSON.parse alone | the gateway's read (scan + JSON.parse) | the scan adds |",
    '|---|---|---|---|',
  ];
  for (const [name, body] of Object.entries(BODIES)) {
    const parse = nsPerCall(() => JSON.parse(body));
    const read = nsPerCall(() => parseRequestJson(body, limits));
    lines.push(
      `| ${name} | ${(parse / 1000).toFixed(2)} µs | ${(read / 1000).toFixed(2)} µs | ${((read - parse) / 1000).toFixed(2)} µs |`,
    );
  }
  return lines;
}

/** `portico start` in a process of its own, its RPC address, and its CPU time and peak memory. */
async function startPortico(upstream: string) {
  const portico = await startPorticoProcess({
    upstream,
    dir: mkdtempSync(join(tmpdir(), 'portico-bench-bodies-')),
  });
  const { pid } = portico;
  return {
    ...portico,
    /** User + system CPU time of the process, in ms (the kernel counts in 10 ms ticks). */
    cpuMs: () => {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      return (Number(fields[11]) + Number(fields[12])) * 10;
    },
    peakRssMb: () => Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024,
  };
}

async function oversizedBatches(): Promise<string[]> {
  const anvil = await startAnvil();
  const portico = await startPortico(anvil.url);
  try {
    const send = async (body: string) => {
      const response = await fetch(portico.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      await response.text();
      return response.status;
    };
    const small = '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}';
    for (let i = 0; i < 50; i++) await send(small);
    const rssBefore = portico.peakRssMb();
    const oversized = `[${Array(170_000).fill('{}').join(',')}]`;
    const rounds = 10;
    let cpu = portico.cpuMs();
    for (let i = 0; i < rounds; i++) await send(oversized);
    const perBody = (portico.cpuMs() - cpu) / rounds;
    cpu = portico.cpuMs();
    let running = true;
    let slowest = 0;
    const other = (async () => {
      while (running) {
        const start = performance.now();
        await send(small);
        slowest = Math.max(slowest, performance.now() - start);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();
    const statuses = await Promise.all(Array.from({ length: 8 }, () => send(oversized)));
    running = false;
    await other;
    const eight = portico.cpuMs() - cpu;
    return [
      '| measure | value |',
      '|---|---|',
      `| CPU per 510 kB body of 170,000 \`{}\` (HTTP ${statuses[0]}), one at a time | ${perBody.toFixed(0)} ms |`,
      `| CPU for 8 such bodies in flight at once | ${eight} ms |`,
      `| slowest eth_chainId of another client meanwhile | ${slowest.toFixed(0)} ms |`,
      `| peak RSS of the gateway process, before and after them | ${rssBefore.toFixed(0)} MB, ${portico.peakRssMb().toFixed(0)} MB |`,
    ];
  } finally {
    await portico.stop();
    await anvil.stop();
  }
}

/** The section of docs/benchmarks.md. */
export async function benchRequestBodies(): Promise<string[]> {
  return [
    '## Reading request bodies',
    '',
    'Every body is scanned once before `JSON.parse` (strings skipped with `indexOf`): nesting depth (`maxJsonDepth`),',
    'the item count of a batch (stopping at `maxBatchSize + 1`), integers beyond 2^53 and ids to echo byte for byte.',
    'What that costs per body, measured in process:',
    '',
    ...scanCost(),
    '',
    'A batch beyond `maxBatchSize` is refused once the scan reaches item `maxBatchSize + 1`, whatever follows, and',
    'never parsed. Measured on a `portico start` process (its CPU time from /proc, 10 ms ticks) while another client',
    'calls eth_chainId every 10 ms; before this check the same body cost about 1 s of CPU, eight of them 8.6 s, the',
    "other client's slowest call 2.5 s and the process peaked at 729 MB.",
    '',
    ...(await oversizedBatches()),
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log((await benchRequestBodies()).join('\n'));
}
