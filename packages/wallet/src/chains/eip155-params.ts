// Turning what a dapp sends into what viem takes, and viem's errors into JSON-RPC errors.
import { isPlainObject } from '@metamask/utils';
import type { Json } from '@portico/multichain';
import {
  BaseError,
  hexToBigInt,
  hexToNumber,
  isHex,
  type TypedDataDefinition,
  validateTypedData,
} from 'viem';
import { RpcError } from '../rpc.ts';

const quantity = (value: unknown) =>
  typeof value === 'string' && isHex(value) ? hexToBigInt(value) : undefined;

/** Turns an RPC transaction request (hex quantities) into viem's parameters. */
export function toViemTransaction(tx: Record<string, Json>): Record<string, unknown> {
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
export function toRpcError(error: unknown): RpcError {
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
export function parseTypedData(typedData: Json | undefined, chainId: number) {
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
export function feesOf(prepared: {
  gas?: bigint;
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
  gasPrice?: bigint;
}) {
  const { gas, maxFeePerGas, maxPriorityFeePerGas, gasPrice } = prepared;
  return maxFeePerGas !== undefined ? { gas, maxFeePerGas, maxPriorityFeePerGas } : { gas, gasPrice };
}
