// The traffic replay: a dapp's clients, simulated from a fixed seed, against a proxy in front of a
// slow upstream (the delay proxy: 20 ms added to every call, each call counted). Every target sees
// the same clients, the same schedule and the same broadcasts on a fresh chain of its own.

import { DEV_MNEMONIC, PorticoDemo } from '@portico/devchain';
import { Pool } from 'undici';
import { type Address, encodeFunctionData, type Hex, numberToHex } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';

export type ReplayOptions = {
  clients: number;
  seconds: number;
  /** Mean time between two polls of one client, ms. */
  pollMs: number;
  /** Time between two broadcasts, ms. */
  broadcastMs: number;
  seed: number;
};

export type ReplayResult = {
  requests: number;
  errors: number;
  p50: number;
  p99: number;
  byMethod: Record<string, number>;
};

/** Deterministic random numbers in [0, 1) (mulberry32). */
function random(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

/** store(i) transactions signed in advance by one dev account, nonces from 0, for the broadcasts. */
export async function signBroadcasts(contract: Address, count: number): Promise<Hex[]> {
  const account = mnemonicToAccount(DEV_MNEMONIC, { addressIndex: 9 });
  return Promise.all(
    Array.from({ length: count }, (_, nonce) =>
      account.signTransaction({
        chainId: foundry.id,
        nonce,
        to: contract,
        data: encodeFunctionData({
          abi: PorticoDemo.abi,
          functionName: 'store',
          args: [BigInt(nonce + 100)],
        }),
        gas: 100_000n,
        maxFeePerGas: 100_000_000_000n,
        maxPriorityFeePerGas: 1_000_000_000n,
      }),
    ),
  );
}

/**
 * Runs the dapp against `url`: half the clients poll the head with eth_blockNumber, half with
 * eth_getBlockByNumber("latest"); on each new head a client reads the contract (eth_call at
 * latest); now and then it asks for the receipt of a recent broadcast and for the contract's logs
 * over the last 10 blocks; one sender broadcasts a signed transaction every `broadcastMs`.
 */
export async function replayDapp(
  url: string,
  contract: Address,
  broadcasts: Hex[],
  options: ReplayOptions,
): Promise<ReplayResult> {
  const target = new URL(url);
  const pool = new Pool(target.origin, { connections: options.clients + 4 });
  const latencies: number[] = [];
  const byMethod: Record<string, number> = {};
  let errors = 0;
  let nextId = 1;
  const recent: Hex[] = [];
  const call = async (method: string, params: unknown[]) => {
    const started = performance.now();
    byMethod[method] = (byMethod[method] ?? 0) + 1;
    try {
      const { body } = await pool.request({
        path: target.pathname + target.search,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }),
      });
      const answer = (await body.json()) as { result?: unknown; error?: unknown };
      latencies.push(performance.now() - started);
      if (answer.error !== undefined || !('result' in answer)) {
        errors++;
        if (errors <= 3) console.warn(`replay: ${method} answered ${JSON.stringify(answer).slice(0, 200)}`);
      }
      return answer.result;
    } catch (error) {
      latencies.push(performance.now() - started);
      errors++;
      if (errors <= 3) console.warn(`replay: ${method} failed: ${(error as Error).message}`);
      return undefined;
    }
  };
  const deadline = performance.now() + options.seconds * 1000;
  const read = { to: contract, data: encodeFunctionData({ abi: PorticoDemo.abi, functionName: 'value' }) };

  const client = async (index: number) => {
    const rng = random(options.seed * 1000 + index);
    const byNumber = index % 2 === 0;
    let lastHead = -1;
    await sleep(rng() * options.pollMs);
    while (performance.now() < deadline) {
      const tick = performance.now();
      let head: number;
      if (byNumber) head = Number(await call('eth_blockNumber', []));
      else
        head = Number(
          ((await call('eth_getBlockByNumber', ['latest', false])) as { number?: Hex } | undefined)?.number,
        );
      if (!Number.isFinite(head)) {
        await sleep(tick + options.pollMs - performance.now());
        continue;
      }
      if (head !== lastHead) {
        lastHead = head;
        await call('eth_call', [read, 'latest']);
      }
      if (recent.length > 0 && rng() < 0.3)
        await call('eth_getTransactionReceipt', [
          recent[recent.length - 1 - Math.floor(rng() * Math.min(5, recent.length))],
        ]);
      if (rng() < 0.15)
        await call('eth_getLogs', [
          { address: contract, fromBlock: numberToHex(Math.max(0, head - 9)), toBlock: numberToHex(head) },
        ]);
      await sleep(tick + options.pollMs * (0.8 + 0.4 * rng()) - performance.now());
    }
  };
  const sender = async () => {
    for (const raw of broadcasts) {
      if (performance.now() >= deadline) break;
      const tick = performance.now();
      const hash = await call('eth_sendRawTransaction', [raw]);
      if (typeof hash === 'string') recent.push(hash as Hex);
      await sleep(tick + options.broadcastMs - performance.now());
    }
  };
  await Promise.all([sender(), ...Array.from({ length: options.clients }, (_, i) => client(i))]);
  await pool.close();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
  return { requests: latencies.length, errors, p50: at(0.5), p99: at(0.99), byMethod };
}
