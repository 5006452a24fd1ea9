import type { InvokeContext, InvokeRequest, Json } from '@portico/multichain';
import {
  createWalletClient,
  defineChain,
  formatEther,
  type Hex,
  hexToBigInt,
  hexToBytes,
  http,
  isHex,
  numberToHex,
  type SendTransactionParameters,
  stringToHex,
} from 'viem';
import type { LocalAccount } from 'viem/accounts';
import type { Keyring } from '../keyring.ts';
import { createRpcClient, RpcError } from '../rpc.ts';
import { describeEvmTransaction, describeTypedData } from '../signing/eip155.ts';
import { describeMessage } from '../signing/message.ts';
import type { ConfirmSigning, KnownContract, SigningDetails, SigningField } from '../signing/types.ts';
import { messageWarnings, transactionWarnings, typedDataWarnings } from '../signing/warnings.ts';
import { createSubscriptions } from '../subscriptions.ts';
import { checkOnChain, createWatchList, parseWatchAsset, type WatchedAsset } from './eip155-assets.ts';
import { type Call, createCallBatches, parseSendCalls } from './eip155-calls.ts';
import { feesOf, parseTypedData, toRpcError, toViemTransaction } from './eip155-params.ts';

/** Read methods forwarded to the chain's RPC URL as they are (the execution-apis set). */
export const EIP155_READ_METHODS = [
  'eth_blockNumber',
  'eth_call',
  'eth_estimateGas',
  'eth_feeHistory',
  'eth_gasPrice',
  'eth_getBalance',
  'eth_getBlockByHash',
  'eth_getBlockByNumber',
  'eth_getBlockReceipts',
  'eth_getBlockTransactionCountByHash',
  'eth_getBlockTransactionCountByNumber',
  'eth_getCode',
  'eth_getFilterChanges',
  'eth_getFilterLogs',
  'eth_getLogs',
  'eth_getProof',
  'eth_getStorageAt',
  'eth_getTransactionByBlockHashAndIndex',
  'eth_getTransactionByBlockNumberAndIndex',
  'eth_getTransactionByHash',
  'eth_getTransactionCount',
  'eth_getTransactionReceipt',
  'eth_getUncleCountByBlockHash',
  'eth_getUncleCountByBlockNumber',
  'eth_maxPriorityFeePerGas',
  'eth_newBlockFilter',
  'eth_newFilter',
  'eth_newPendingTransactionFilter',
  'eth_sendRawTransaction',
  'eth_syncing',
  'eth_uninstallFilter',
  'net_version',
  'web3_clientVersion',
] as const;

/** Methods the wallet answers itself: signing with its own keys, accounts, chain id, subscriptions. */
export const EIP155_WALLET_METHODS = [
  'personal_sign',
  'eth_signTypedData_v4',
  'eth_sendTransaction',
  'eth_accounts',
  'eth_chainId',
  'eth_subscribe',
  'eth_unsubscribe',
  'wallet_sendCalls',
  'wallet_getCallsStatus',
  'wallet_getCapabilities',
  'wallet_watchAsset',
] as const;

export const EIP155_NOTIFICATIONS = ['eth_subscription'];

export type Eip155ChainOptions = {
  /** The numeric chain id (31337 for `eip155:31337`). */
  chainId: number;
  /** HTTP JSON-RPC URL for reads and broadcasts. */
  rpcUrl: string;
  /** WebSocket JSON-RPC URL for eth_subscribe; without it HTTP filters are polled. */
  wsRpcUrl?: string;
  keyring: Keyring;
  /** Asked before every signature and transaction; it resolves when a person approved. */
  confirm: ConfirmSigning;
  /** Contracts whose calls the approval page shows decoded (name and arguments). */
  contracts?: readonly KnownContract[];
  pollingIntervalMs?: number;
  onLog?: (line: string) => void;
};

export type Eip155Chain = {
  scope: string;
  methods: string[];
  notifications: string[];
  invoke: (request: InvokeRequest, context: InvokeContext) => Promise<Json>;
  /** The address's balance, e.g. `1.5 ETH` (read through the RPC URL). */
  balance: (address: string) => Promise<string>;
  /** The tokens the address watches (wallet_watchAsset), oldest first. */
  watchedAssets: (address: string) => WatchedAsset[];
  close: () => void;
};

function paramsArray(request: InvokeRequest): Json[] {
  if (request.params === undefined || request.params === null) return [];
  if (!Array.isArray(request.params))
    throw new RpcError(-32602, `${request.method} expects an array of params`);
  return request.params;
}

/** The authorised account for `address`, or 4100 when the session does not grant it. */
function authorised(keyring: Keyring, context: InvokeContext, address: unknown) {
  if (
    typeof address !== 'string' ||
    !context.accounts.some((a) => a.toLowerCase() === address.toLowerCase())
  ) {
    throw new RpcError(4100, 'The requested account and/or method has not been authorized by the user.');
  }
  const account = keyring.eip155Account(address);
  if (!account)
    throw new RpcError(4100, 'The requested account and/or method has not been authorized by the user.');
  return account;
}

/** An EVM chain: reads forwarded to its RPC URL, signing done locally with the keyring. */
export function createEip155Chain(options: Eip155ChainOptions): Eip155Chain {
  const { keyring, chainId } = options;
  const rpc = createRpcClient(options.rpcUrl);
  const subscriptions = createSubscriptions({
    rpc,
    wsRpcUrl: options.wsRpcUrl,
    pollingIntervalMs: options.pollingIntervalMs,
    onLog: options.onLog,
  });
  const chain = defineChain({
    id: chainId,
    name: `eip155:${chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [options.rpcUrl] } },
  });
  const transport = http(options.rpcUrl, { retryCount: 0 });
  const reads = new Set<string>(EIP155_READ_METHODS);

  /** Fills gas and fees through the RPC URL, as sendTransaction would. */
  const prepare = (account: LocalAccount, asked: SendTransactionParameters<typeof chain>) =>
    createWalletClient({ account, chain, transport }).prepareTransactionRequest({
      ...(asked as object),
      account,
      chain,
      parameters: ['gas', 'fees', 'type', 'chainId'],
    } as never) as Promise<{
      to?: Hex | null;
      value?: bigint;
      data?: Hex;
      gas?: bigint;
      maxFeePerGas?: bigint;
      maxPriorityFeePerGas?: bigint;
      gasPrice?: bigint;
    }>;

  const confirm = (method: string, account: string, context: InvokeContext, details: SigningDetails) =>
    options.confirm(
      {
        origin: context.origin,
        scope: `eip155:${chainId}`,
        method,
        account,
        details,
      },
      context.signal,
    );
  const watched = createWatchList();
  const batches = createCallBatches({
    chainId,
    receipt: (hash) => rpc.request('eth_getTransactionReceipt', [hash]),
  });
  /** Contracts this wallet has sent to (an unknown contract is new only the first time). */
  const sentTo = new Set<string>();
  const known = (to: string) =>
    (options.contracts ?? []).some((contract) => contract.address.toLowerCase() === to.toLowerCase());

  /** Warnings for a transaction to `to`: approvals, and a contract new to this wallet. */
  async function warningsFor(tx: { to?: Hex | null; data?: Hex }): Promise<string[]> {
    const to = tx.to ?? undefined;
    let isContract = false;
    if (to && !known(to) && !sentTo.has(to.toLowerCase())) {
      const code = await rpc.request('eth_getCode', [to, 'latest']).catch(() => '0x');
      isContract = typeof code === 'string' && code !== '0x';
    }
    return transactionWarnings(tx, {
      isContract,
      known: to ? known(to) : false,
      sentToBefore: to ? sentTo.has(to.toLowerCase()) : false,
    });
  }

  /** Fills gas and fees for `asked` from `account`, or the chain's refusal as a JSON-RPC error. */
  async function fill(account: LocalAccount, asked: SendTransactionParameters<typeof chain>) {
    try {
      return await prepare(account, asked);
    } catch (error) {
      throw toRpcError(error);
    }
  }

  /** Signs and sends what the person approved; the nonce is taken now. */
  async function send(
    signer: LocalAccount,
    asked: SendTransactionParameters<typeof chain>,
    filled: Awaited<ReturnType<typeof prepare>>,
  ): Promise<Hex> {
    try {
      const client = createWalletClient({ account: signer, chain, transport });
      const hash = await client.sendTransaction({ ...asked, ...feesOf(filled) } as typeof asked);
      if (asked.to) sentTo.add(asked.to.toLowerCase());
      options.onLog?.(`wallet: sent transaction ${hash} on eip155:${chainId} from ${signer.address}`);
      return hash;
    } catch (error) {
      throw toRpcError(error);
    }
  }

  /** wallet_sendCalls: one approval for the batch, then each call filled and sent in turn. */
  async function sendCalls(params: Json[], context: InvokeContext): Promise<Json> {
    const batch = parseSendCalls(params, chainId);
    batches.claim(batch.id);
    const account = authorised(keyring, context, batch.from ?? context.accounts[0]);
    const fields: SigningField[] = [];
    const warnings: string[] = [];
    for (const [index, call] of batch.calls.entries()) {
      const view = describeEvmTransaction(
        {
          from: account.address,
          to: call.to,
          value: call.value ? hexToBigInt(call.value) : 0n,
          data: call.data,
        },
        options.contracts ?? [],
      );
      fields.push({ label: `Call ${index + 1}`, value: view.summary, format: 'text' });
      for (const field of view.fields) fields.push({ ...field, label: `Call ${index + 1}: ${field.label}` });
      warnings.push(...(await warningsFor(call)));
    }
    const total = batch.calls.reduce((sum, call) => sum + (call.value ? hexToBigInt(call.value) : 0n), 0n);
    await confirm('wallet_sendCalls', account.address, context, {
      title: 'Transaction request',
      summary: `Send ${batch.calls.length} call${batch.calls.length === 1 ? '' : 's'} one after another (${formatEther(total)} ETH in all)`,
      fields,
      warnings,
    });
    const signer = authorised(keyring, context, account.address);
    const sendOne = async (call: Call) => {
      const asked = toViemTransaction(call as Record<string, Json>) as SendTransactionParameters<
        typeof chain
      >;
      return send(signer, asked, await fill(signer, asked));
    };
    return batches.send(batch, sendOne);
  }

  async function watchAsset(params: Json | undefined, context: InvokeContext): Promise<Json> {
    const asset = parseWatchAsset(params);
    const account = authorised(keyring, context, context.accounts[0]);
    await checkOnChain(asset, (method, args) => rpc.request(method, args));
    await confirm('wallet_watchAsset', account.address, context, {
      title: 'Token request',
      summary: `Add ${asset.symbol} to this account's tokens`,
      fields: [
        { label: 'Token', value: asset.symbol, format: 'text' },
        { label: 'Contract', value: asset.address, format: 'code' },
        { label: 'Decimals', value: String(asset.decimals), format: 'text' },
      ],
    });
    watched.add(account.address, asset);
    return true;
  }

  async function invoke(request: InvokeRequest, context: InvokeContext): Promise<Json> {
    const params = () => paramsArray(request);
    switch (request.method) {
      case 'eth_accounts':
        return context.accounts;
      case 'eth_chainId':
        return numberToHex(chainId);
      case 'personal_sign': {
        const [data, address] = params();
        const account = authorised(keyring, context, address);
        if (typeof data !== 'string') throw new RpcError(-32602, 'personal_sign expects [data, address]');
        const raw: Hex = isHex(data) ? data : stringToHex(data);
        const bytes = hexToBytes(raw);
        const message = describeMessage(bytes);
        await confirm(request.method, account.address, context, {
          title: 'Signature request',
          summary: 'Sign a message',
          fields: [message],
          warnings: messageWarnings(bytes, message.format === 'text'),
        });
        return authorised(keyring, context, address).signMessage({ message: { raw } });
      }
      case 'eth_signTypedData_v4': {
        const [address, typedData] = params();
        const account = authorised(keyring, context, address);
        const parsed = parseTypedData(typedData, chainId);
        await confirm(request.method, account.address, context, {
          ...describeTypedData(parsed),
          warnings: typedDataWarnings(parsed),
        });
        return authorised(keyring, context, address).signTypedData(parsed);
      }
      case 'eth_sendTransaction': {
        const [tx] = params();
        if (typeof tx !== 'object' || tx === null || Array.isArray(tx)) {
          throw new RpcError(-32602, 'eth_sendTransaction expects [transaction]');
        }
        const from = tx.from ?? context.accounts[0];
        const account = authorised(keyring, context, from);
        const asked = toViemTransaction(tx) as SendTransactionParameters<typeof chain>;
        // Gas and fees are filled before the person is asked, so the page shows what it may cost
        // (and a call that cannot succeed fails here, without asking); the nonce after approval.
        const filled = await fill(account, asked);
        await confirm(request.method, account.address, context, {
          ...describeEvmTransaction({ ...filled, from: account.address }, options.contracts ?? []),
          warnings: await warningsFor(filled),
        });
        return send(authorised(keyring, context, from), asked, filled);
      }
      case 'wallet_sendCalls':
        return sendCalls(params(), context);
      case 'wallet_getCallsStatus':
        return batches.status(params());
      case 'wallet_getCapabilities':
        return batches.capabilities(params());
      case 'wallet_watchAsset':
        return watchAsset(request.params, context);
      case 'eth_subscribe':
        return subscriptions.subscribe(request.params, context);
      case 'eth_unsubscribe':
        return subscriptions.unsubscribe(request.params, context);
      default:
        if (reads.has(request.method)) return rpc.request(request.method, request.params ?? []);
        throw new RpcError(-32601, `${request.method} is not supported on eip155:${chainId}`);
    }
  }

  return {
    scope: `eip155:${chainId}`,
    methods: [...EIP155_WALLET_METHODS, ...EIP155_READ_METHODS],
    notifications: [...EIP155_NOTIFICATIONS],
    invoke,
    balance: async (address) => {
      const wei = await rpc.request('eth_getBalance', [address, 'latest']);
      if (typeof wei !== 'string' || !isHex(wei))
        throw new RpcError(-32603, 'eth_getBalance answered no quantity');
      return `${formatEther(hexToBigInt(wei))} ETH`;
    },
    watchedAssets: (address) => watched.list(address),
    close: () => subscriptions.close(),
  };
}
