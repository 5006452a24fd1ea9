// wrk runs for the benchmarks: one run against a URL with a Lua script, parsed into req/s and
// latency percentiles.
import { execFile, execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

export type WrkResult = {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  /** CPU time of the bench's own process (where the debits rows run their gateways) per request answered, µs. */
  cpuUs: number;
  /** CPU time of the target's own process per request answered, µs (`pid` given, Linux only). */
  targetCpuUs?: number;
};

/** User + system CPU time of a process so far, µs, from /proc (undefined where there is none). */
export function processCpuUs(pid: number): number | undefined {
  try {
    // Fields 14 and 15 (utime, stime) in clock ticks, counted after the command name's parenthesis.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/** USER_HZ, which Linux fixes at 100 for /proc on every architecture Node runs on. */
const CLOCK_TICKS_PER_SECOND = 100;

export function hasTool(tool: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${tool}`]);
    return true;
  } catch {
    return false;
  }
}

/**
 * One wrk run; asynchronous on purpose: a gateway under test may run in this process. With `pid`,
 * the CPU time that process used during the run is counted too.
 */
export async function runWrk(
  url: string,
  clients: number,
  script: string,
  seconds: number,
  pid?: number,
): Promise<WrkResult> {
  const cpu = process.cpuUsage();
  const targetBefore = pid === undefined ? undefined : processCpuUs(pid);
  const { stdout: out } = await execFileAsync('wrk', [
    '-t',
    clients > 1 ? '2' : '1',
    '-c',
    String(clients),
    '-d',
    `${seconds}s`,
    '--latency',
    '-s',
    script,
    url,
  ]);
  const used = process.cpuUsage(cpu);
  const targetAfter = pid === undefined ? undefined : processCpuUs(pid);
  if (process.env.BENCH_DEBUG) console.log(out);
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
  const requests = Number(/(\d+) requests in/.exec(out)?.[1]);
  const ms = (label: string) => {
    const match = new RegExp(`${label}\\s+([\\d.]+)(us|ms|s)`).exec(out);
    if (!match) return Number.NaN;
    const value = Number(match[1]);
    return match[2] === 'us' ? value / 1000 : match[2] === 's' ? value * 1000 : value;
  };
  const errors = /Non-2xx or 3xx responses: (\d+)/.exec(out);
  if (errors) throw new Error(`${url}: ${errors[1]} non-2xx responses`);
  const socketErrors = /Socket errors: (.*)/.exec(out);
  if (socketErrors) console.warn(`${url}: socket errors: ${socketErrors[1]}`);
  const result: WrkResult = {
    rps,
    p50: ms('50%'),
    p99: ms('99%'),
    requests,
    cpuUs: (used.user + used.system) / requests,
  };
  if (targetBefore !== undefined && targetAfter !== undefined)
    result.targetCpuUs = (targetAfter - targetBefore) / requests;
  return result;
}

let scripts = 0;

/** A wrk script that POSTs the same JSON body every time. */
export function fixedBodyScript(dir: string, body: string): string {
  const path = join(dir, `post-${++scripts}.lua`);
  writeFileSync(
    path,
    `wrk.method = "POST"\nwrk.body = '${body}'\nwrk.headers["Content-Type"] = "application/json"\n`,
  );
  return path;
}

/**
 * A wrk script whose every request is a new JSON-RPC body: `luaBody` is a Lua expression of the
 * body without its id, evaluated per request (it may call math.random and read the tables given in
 * `luaPrelude`); the id is unique across wrk's threads.
 */
export function distinctBodyScript(dir: string, luaPrelude: string, luaBody: string): string {
  const path = join(dir, `distinct-${++scripts}.lua`);
  writeFileSync(
    path,
    `${luaPrelude}
local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("tid", threads)
end
local counter = 0
local headers = { ["Content-Type"] = "application/json" }
function init(args)
  math.randomseed(tid * 7919 + os.time())
  counter = tid * 1000000000
end
function request()
  counter = counter + 1
  local body = '{"jsonrpc":"2.0","id":' .. counter .. ',' .. ${luaBody}
  return wrk.format("POST", nil, headers, body)
end
`,
  );
  return path;
}
