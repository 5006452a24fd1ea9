import { isPlainObject } from '@metamask/utils';
import type { InvokeContext, InvokeRequest, Json } from '@portico/multichain';
import {
  BaseError,
  createWalletClient,
  defineChain,
  formatEther,
  type Hex,
  hexToBigInt,
  hexToBytes,
  hexToNumber,
  http,
  isHex,
  numberToHex,
  type SendTransactionParameters,
  stringToHex,
  type TypedDataDefinition,
  validateTypedData,
} from 'viem';
import type { LocalAccount } from 'viem/accounts';
import type { Keyring } from '../keyring.ts';
import { createRpcClient, RpcError } from '../rpc.ts';
import { describeEvmTransaction, describeTypedData } from '../signing/eip155.ts';
import { describeMessage } from '../signing/message.ts';
import type { ConfirmSigning, KnownContract, SigningDetails } from '../signing/types.ts';
import { createSubscriptions } from '../subscriptions.ts';

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

const quantity = (value: unknown) =>
  typeof value === 'string' && isHex(value) ? hexToBigInt(value) : undefined;

/** Turns an RPC transaction request (hex quantities) into viem's parameters. */
function toViemTransaction(tx: Record<string, Json>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (typeof tx.to === 'string') out.to = tx.to;
  const data = tx.data ?? tx.input;
  if (typeof data === 'string') out.data = data;
  for (const key of ['value', 'gas', 'gasPrice', 'maxFeePerGas', 'maxPriorityFeePerGas'] as const) {
    const value = quantity(tx[key]);
    if (value !== undefined) out[key] = value;
  }
  if (typeof tx.nonce === 'string' && isHex(tx.nonce)) out.nonce = hexToNumber(tx.nonce);
  if (Array.isArray(tx.accessList)) out.accessList = tx.accessList;
  return out;
}

/** viem's errors as JSON-RPC errors: the upstream code and message when there is one. */
function toRpcError(error: unknown): RpcError {
  if (error instanceof RpcError) return error;
  if (error instanceof BaseError) {
    const withCode = error.walk((e) => typeof (e as { code?: unknown }).code === 'number') as {
      code: number;
      shortMessage?: string;
      details?: string;
    } | null;
    const message = withCode?.details || error.shortMessage;
    return new RpcError(withCode?.code ?? -32603, message);
  }
  return new RpcError(-32603, error instanceof Error ? error.message : String(error));
}

/**
 * eth_signTypedData_v4's typed data (JSON text or an object), checked before a person is asked:
 * EIP-712 valid (viem), and a domain chainId, when given, that of this chain (as MetaMask refuses
 * others: a signature for another chain could be replayed there).
 */
function parseTypedData(typedData: Json | undefined, chainId: number) {
  let parsed: unknown = typedData;
  if (typeof typedData === 'string') {
    try {
      parsed = JSON.parse(typedData);
    } catch {
      throw new RpcError(-32602, 'eth_signTypedData_v4 expects typed data as JSON');
    }
  }
  if (
    !isPlainObject(parsed) ||
    !isPlainObject(parsed.types) ||
    typeof parsed.primaryType !== 'string' ||
    !isPlainObject(parsed.message) ||
    (parsed.domain !== undefined && !isPlainObject(parsed.domain))
  ) {
    throw new RpcError(
      -32602,
      'eth_signTypedData_v4 expects typed data with types, primaryType, domain and message',
    );
  }
  const definition = parsed as TypedDataDefinition & {
    domain?: Record<string, unknown>;
    message: Record<string, unknown>;
  };
  try {
    validateTypedData(definition);
  } catch (error) {
    throw new RpcError(-32602, `invalid typed data: ${toRpcError(error).message}`);
  }
  const domainChainId = definition.domain?.chainId;
  if (domainChainId !== undefined && domainChainId !== null) {
    const given =
      typeof domainChainId === 'string' && isHex(domainChainId)
        ? hexToNumber(domainChainId)
        : Number(domainChainId);
    if (given !== chainId) {
      throw new RpcError(
        -32602,
        `eth_signTypedData_v4: domain chainId ${String(domainChainId)} must match the chain ${chainId}`,
      );
    }
  }
  return definition;
}

/** The gas and fee fields of a prepared transaction (what the person saw), without its nonce. */
function feesOf(prepared: {
  gas?: bigint;
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
  gasPrice?: bigint;
}) {
  const { gas, maxFeePerGas, maxPriorityFeePerGas, gasPrice } = prepared;
  return maxFeePerGas !== undefined ? { gas, maxFeePerGas, maxPriorityFeePerGas } : { gas, gasPrice };
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
      { origin: context.origin, scope: `eip155:${chainId}`, method, account, details },
      context.signal,
    );

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
        await confirm(request.method, account.address, context, {
          title: 'Signature request',
          summary: 'Sign a message',
          fields: [describeMessage(hexToBytes(raw))],
        });
        return authorised(keyring, context, address).signMessage({ message: { raw } });
      }
      case 'eth_signTypedData_v4': {
        const [address, typedData] = params();
        const account = authorised(keyring, context, address);
        const parsed = parseTypedData(typedData, chainId);
        await confirm(request.method, account.address, context, describeTypedData(parsed));
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
        let filled: Awaited<ReturnType<typeof prepare>>;
        try {
          filled = await prepare(account, asked);
        } catch (error) {
          throw toRpcError(error);
        }
        await confirm(
          request.method,
          account.address,
          context,
          describeEvmTransaction({ ...filled, from: account.address }, options.contracts ?? []),
        );
        const signer = authorised(keyring, context, from);
        try {
          const client = createWalletClient({ account: signer, chain, transport });
          const hash = await client.sendTransaction({ ...asked, ...feesOf(filled) } as typeof asked);
          options.onLog?.(`wallet: sent transaction ${hash} on eip155:${chainId} from ${signer.address}`);
          return hash;
        } catch (error) {
          throw toRpcError(error);
        }
      }
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
    close: () => subscriptions.close(),
  };
}
