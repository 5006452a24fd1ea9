// The distinct-request workloads: nothing two requests could share, so every one is a miss that
// reaches the upstream. The chain gets about 2,000 blocks and a few hundred transactions first.

import { PorticoDemo } from '@portico/devchain';
import { createTestClient, encodeFunctionData, type Hash, http, publicActions, walletActions } from 'viem';
import { foundry } from 'viem/chains';
import { distinctBodyScript } from './wrk.ts';

export type DistinctChain = { blocks: number; transactions: Hash[]; contract: `0x${string}` };

/** Sends `transactions` transactions spread over blocks, then mines up to `blocks` blocks. */
export async function prepareDistinctChain(
  rpcUrl: string,
  contract: `0x${string}`,
  { blocks = 2000, transactions = 400 } = {},
): Promise<DistinctChain> {
  // No retries (a retried anvil_mine would mine twice) and a long timeout: the machine may be busy.
  const client = createTestClient({
    chain: foundry,
    mode: 'anvil',
    transport: http(rpcUrl, { retryCount: 0, timeout: 120_000 }),
  })
    .extend(publicActions)
    .extend(walletActions);
  const accounts = await client.getAddresses();
  const hashes: Hash[] = [];
  await client.setAutomine(false);
  const perBlock = 20;
  for (let i = 0; i < transactions; i += perBlock) {
    for (let j = 0; j < perBlock; j++) {
      const account = accounts[(i + j) % 4];
      hashes.push(
        await client.sendTransaction({
          account,
          chain: foundry,
          to: contract,
          data: encodeFunctionData({
            abi: PorticoDemo.abi,
            functionName: 'store',
            args: [BigInt(i + j + 1)],
          }),
        }),
      );
    }
    await client.mine({ blocks: 1 });
  }
  await client.setAutomine(true);
  for (let head = Number(await client.getBlockNumber({ cacheTime: 0 })); head < blocks; head += 250)
    await client.mine({ blocks: Math.min(250, blocks - head) });
  return { blocks: Number(await client.getBlockNumber({ cacheTime: 0 })), transactions: hashes, contract };
}

export type DistinctWorkload = {
  name: string;
  /** wrk script generating the bodies. */
  script: string;
  /** A body of the same kind, for the check that every target answers it with a result. */
  sample: () => string;
};

const VALUE_SELECTOR = '0x3fa4f245';
const randomBelow = (n: number) => Math.floor(Math.random() * n);
const hex32 = () =>
  Array.from({ length: 8 }, () =>
    randomBelow(2 ** 32)
      .toString(16)
      .padStart(8, '0'),
  ).join('');

export function distinctWorkloads(dir: string, chain: DistinctChain): DistinctWorkload[] {
  return [
    {
      name: `eth_getBlockByNumber, random block of ${chain.blocks}`,
      script: distinctBodyScript(
        dir,
        `local blocks = ${chain.blocks}`,
        `'"method":"eth_getBlockByNumber","params":["0x' .. string.format("%x", math.random(1, blocks)) .. '",false]}'`,
      ),
      sample: () =>
        JSON.stringify({
          jsonrpc: '2.0',
          id: randomBelow(1e9),
          method: 'eth_getBlockByNumber',
          params: [`0x${(1 + randomBelow(chain.blocks)).toString(16)}`, false],
        }),
    },
    {
      name: `eth_getTransactionReceipt, random of ${chain.transactions.length} transactions`,
      script: distinctBodyScript(
        dir,
        `local hashes = { ${chain.transactions.map((h) => `"${h}"`).join(', ')} }`,
        `'"method":"eth_getTransactionReceipt","params":["' .. hashes[math.random(#hashes)] .. '"]}'`,
      ),
      sample: () =>
        JSON.stringify({
          jsonrpc: '2.0',
          id: randomBelow(1e9),
          method: 'eth_getTransactionReceipt',
          params: [chain.transactions[randomBelow(chain.transactions.length)]],
        }),
    },
    {
      name: 'eth_call at latest, random 32-byte argument',
      script: distinctBodyScript(
        dir,
        `local to = "${chain.contract}"
local function word()
  local parts = {}
  for i = 1, 8 do parts[i] = string.format("%08x", math.random(0, 2147483646)) end
  return table.concat(parts)
end`,
        `'"method":"eth_call","params":[{"to":"' .. to .. '","data":"${VALUE_SELECTOR}' .. word() .. '"},"latest"]}'`,
      ),
      sample: () =>
        JSON.stringify({
          jsonrpc: '2.0',
          id: randomBelow(1e9),
          method: 'eth_call',
          params: [{ to: chain.contract, data: `${VALUE_SELECTOR}${hex32()}` }, 'latest'],
        }),
    },
  ];
}

/** Throws unless `url` answers a few bodies of the workload with a non-null result. */
export async function checkWorkload(url: string, workload: DistinctWorkload): Promise<void> {
  for (let i = 0; i < 5; i++) {
    const body = workload.sample();
    const answer = (await (
      await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
    ).json()) as { result?: unknown; error?: unknown; id?: unknown };
    if (answer.result === undefined || answer.result === null || answer.error)
      throw new Error(`${url} answered ${JSON.stringify(answer).slice(0, 200)} to ${body}`);
    if (answer.id !== JSON.parse(body).id) throw new Error(`${url} answered another id to ${body}`);
  }
}
