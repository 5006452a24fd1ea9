import {
  type Address,
  createTestClient,
  encodeFunctionData,
  type Hash,
  http,
  publicActions,
  walletActions,
} from 'viem';
import { foundry } from 'viem/chains';
import { PorticoDemo } from './contracts.generated.ts';

/** What `seedEvmChain` put on the chain, for banners, examples and tests. */
export type EvmSeed = {
  accounts: Address[];
  demoContract: Address;
  transactions: {
    /** The contract creation (EIP-1559). */
    deploy: Hash;
    /** store(7): an EIP-1559 transaction with a log. */
    store: Hash;
    /** A legacy (type 0) value transfer. */
    legacyTransfer: Hash;
    /** storeNonZero(0) sent with a fixed gas limit: mined with status 0. */
    failed: Hash;
    /** store(1234) as a legacy transaction with a log. */
    legacyStore: Hash;
  };
  /** Block holding store, legacyTransfer and failed (in that order). */
  busyBlock: bigint;
};

/**
 * Puts real activity on a fresh dev chain so every gateway method answers with data: a contract
 * deployed, EIP-1559 and legacy transactions, logs, a failed transaction, blocks with several
 * transactions. Uses anvil's unlocked dev accounts.
 */
export async function seedEvmChain(rpcUrl: string): Promise<EvmSeed> {
  const client = createTestClient({ chain: foundry, mode: 'anvil', transport: http(rpcUrl) })
    .extend(publicActions)
    .extend(walletActions);
  const accounts = await client.getAddresses();
  const [alice, bob, carol] = accounts;

  await client.setAutomine(true);
  const deploy = await client.deployContract({
    abi: PorticoDemo.abi,
    bytecode: PorticoDemo.bytecode,
    args: [42n],
    account: alice,
    chain: foundry,
  });
  const deployReceipt = await client.waitForTransactionReceipt({ hash: deploy });
  const demoContract = deployReceipt.contractAddress!;

  // Several transactions in one block.
  await client.setAutomine(false);
  const store = await client.sendTransaction({
    account: alice,
    chain: foundry,
    to: demoContract,
    data: encodeFunctionData({ abi: PorticoDemo.abi, functionName: 'store', args: [7n] }),
  });
  const legacyTransfer = await client.sendTransaction({
    account: bob,
    chain: foundry,
    to: carol,
    value: 10n ** 18n,
    type: 'legacy',
    gasPrice: 2_000_000_000n,
  });
  const failed = await client.sendTransaction({
    account: carol,
    chain: foundry,
    to: demoContract,
    data: encodeFunctionData({ abi: PorticoDemo.abi, functionName: 'storeNonZero', args: [0n] }),
    gas: 100_000n,
  });
  await client.mine({ blocks: 1 });
  await client.setAutomine(true);
  const busyBlock = (await client.getTransactionReceipt({ hash: store })).blockNumber;

  const legacyStore = await client.sendTransaction({
    account: bob,
    chain: foundry,
    to: demoContract,
    data: encodeFunctionData({ abi: PorticoDemo.abi, functionName: 'store', args: [1234n] }),
    type: 'legacy',
    gasPrice: 2_000_000_000n,
  });
  await client.waitForTransactionReceipt({ hash: legacyStore });

  return {
    accounts,
    demoContract,
    transactions: { deploy, store, legacyTransfer, failed, legacyStore },
    busyBlock,
  };
}

/** Switches anvil from mining on each transaction to a block every `seconds` (0 keeps automine). */
export async function setBlockTime(rpcUrl: string, seconds: number) {
  if (seconds <= 0) return;
  const client = createTestClient({ chain: foundry, mode: 'anvil', transport: http(rpcUrl) });
  await client.setAutomine(false);
  await client.setIntervalMining({ interval: seconds });
}
