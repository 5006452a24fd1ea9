import { rpcErrors } from '@metamask/rpc-errors';
import {
  type AccessList,
  type Address,
  type Chain,
  type Client,
  type Hex,
  hexToBigInt,
  isAddress,
  isHex,
  type TransactionSerializable,
} from 'viem';
import { estimateFeesPerGas, estimateGas, getTransactionCount } from 'viem/actions';

/** An `eth_sendTransaction` / `eth_signTransaction` request in viem's terms, before filling. */
export interface TransactionDraft {
  from?: Address;
  to?: Address;
  value?: bigint;
  data?: Hex;
  gas?: bigint;
  gasPrice?: bigint;
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
  nonce?: number;
  accessList?: AccessList;
  type?: 'legacy' | 'eip2930' | 'eip1559';
  chainId?: number;
}

const TYPES: Record<string, TransactionDraft['type']> = {
  '0x0': 'legacy',
  '0x1': 'eip2930',
  '0x2': 'eip1559',
};
const QUANTITIES = ['value', 'gas', 'gasPrice', 'maxFeePerGas', 'maxPriorityFeePerGas'] as const;

function quantity(method: string, field: string, value: unknown): bigint {
  if (typeof value === 'string' && /^0x[0-9a-fA-F]{1,64}$/.test(value)) return hexToBigInt(value as Hex);
  throw rpcErrors.invalidParams(`${method}: ${field} must be a hex quantity such as 0x1`);
}

/** Reads the RPC transaction object (hex quantities) into a draft; -32602 naming the bad field. */
export function parseTransaction(method: string, params: unknown): TransactionDraft {
  const tx = Array.isArray(params) ? params[0] : undefined;
  if (typeof tx !== 'object' || tx === null || Array.isArray(tx)) {
    throw rpcErrors.invalidParams(`${method} expects [transaction]`);
  }
  const input = tx as Record<string, unknown>;
  const draft: TransactionDraft = {};
  for (const field of ['from', 'to'] as const) {
    const value = input[field];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string' || !isAddress(value, { strict: false })) {
      throw rpcErrors.invalidParams(`${method}: ${field} must be a 20-byte hex address`);
    }
    draft[field] = value as Address;
  }
  for (const field of QUANTITIES) {
    if (input[field] !== undefined && input[field] !== null)
      draft[field] = quantity(method, field, input[field]);
  }
  if (input.nonce !== undefined && input.nonce !== null) {
    const nonce = quantity(method, 'nonce', input.nonce);
    if (nonce > BigInt(Number.MAX_SAFE_INTEGER))
      throw rpcErrors.invalidParams(`${method}: nonce is too large`);
    draft.nonce = Number(nonce);
  }
  if (input.data !== undefined && input.input !== undefined && input.data !== input.input) {
    throw rpcErrors.invalidParams(`${method}: data and input differ; send one of them`);
  }
  const data = input.data ?? input.input;
  if (data !== undefined && data !== null) {
    if (typeof data !== 'string' || !isHex(data) || data.length % 2 !== 0) {
      throw rpcErrors.invalidParams(`${method}: data must be hex bytes`);
    }
    draft.data = data;
  }
  if (input.accessList !== undefined) {
    if (!Array.isArray(input.accessList))
      throw rpcErrors.invalidParams(`${method}: accessList must be an array`);
    draft.accessList = input.accessList as AccessList;
  }
  if (input.type !== undefined) {
    const type = typeof input.type === 'string' ? TYPES[input.type.toLowerCase()] : undefined;
    if (!type) {
      throw rpcErrors.invalidParams(`${method}: type must be 0x0 (legacy), 0x1 (EIP-2930) or 0x2 (EIP-1559)`);
    }
    draft.type = type;
  }
  if (input.chainId !== undefined) draft.chainId = Number(quantity(method, 'chainId', input.chainId));
  if (
    draft.gasPrice !== undefined &&
    (draft.maxFeePerGas !== undefined || draft.maxPriorityFeePerGas !== undefined)
  ) {
    throw rpcErrors.invalidParams(`${method}: give gasPrice or maxFeePerGas/maxPriorityFeePerGas, not both`);
  }
  return draft;
}

/**
 * Fills what the draft lacks through the chain's RPC (so each call is metered like any other):
 * nonce from `eth_getTransactionCount` (pending), gas from `eth_estimateGas`, and fees the way viem
 * does (latest block's base fee × 1.2 + `eth_maxPriorityFeePerGas` on EIP-1559 chains, else
 * `eth_gasPrice`). viem's own `prepareTransactionRequest` is not used: it first tries
 * `eth_fillTransaction`, which nodes behind a gateway do not have, and that costs a failed call.
 */
export async function fillTransaction(
  client: Client,
  chain: Chain,
  from: Address,
  draft: TransactionDraft,
): Promise<TransactionSerializable> {
  const legacy = draft.type === 'legacy' || draft.type === 'eip2930' || draft.gasPrice !== undefined;
  const feesGiven = legacy
    ? draft.gasPrice !== undefined
    : draft.maxFeePerGas !== undefined && draft.maxPriorityFeePerGas !== undefined;
  const { to, value, data, accessList } = draft;
  const [nonce, gas, fees] = await Promise.all([
    draft.nonce ?? getTransactionCount(client, { address: from, blockTag: 'pending' }),
    draft.gas ?? estimateGas(client, { account: from, to, value, data, accessList }),
    feesGiven ? undefined : estimateFees(client, chain, legacy),
  ]);
  const base = { chainId: chain.id, to, value, data, gas, nonce };
  if (legacy || fees?.gasPrice !== undefined) {
    const gasPrice = draft.gasPrice ?? (fees?.gasPrice as bigint);
    return draft.type === 'eip2930' || accessList
      ? { ...base, type: 'eip2930', gasPrice, accessList: accessList ?? [] }
      : { ...base, type: 'legacy', gasPrice };
  }
  const maxPriorityFeePerGas = draft.maxPriorityFeePerGas ?? (fees?.maxPriorityFeePerGas as bigint);
  const maxFeePerGas = draft.maxFeePerGas ?? (fees?.maxFeePerGas as bigint);
  // One fee given and the other estimated: a priority fee above the max fee would be invalid.
  const clamp = (a: bigint, b: bigint) => (a > b ? b : a);
  return draft.maxFeePerGas === undefined
    ? {
        ...base,
        type: 'eip1559',
        maxFeePerGas: maxFeePerGas < maxPriorityFeePerGas ? maxPriorityFeePerGas : maxFeePerGas,
        maxPriorityFeePerGas,
        accessList,
      }
    : {
        ...base,
        type: 'eip1559',
        maxFeePerGas,
        maxPriorityFeePerGas: clamp(maxPriorityFeePerGas, maxFeePerGas),
        accessList,
      };
}

async function estimateFees(
  client: Client,
  chain: Chain,
  legacy: boolean,
): Promise<{ gasPrice?: bigint; maxFeePerGas?: bigint; maxPriorityFeePerGas?: bigint }> {
  if (legacy) return estimateFeesPerGas(client, { chain, type: 'legacy' });
  try {
    return await estimateFeesPerGas(client, { chain, type: 'eip1559' });
  } catch (error) {
    // A chain without a base fee (pre-London) takes a legacy gas price.
    if ((error as { name?: string }).name === 'Eip1559FeesNotSupportedError') {
      return estimateFeesPerGas(client, { chain, type: 'legacy' });
    }
    throw error;
  }
}
