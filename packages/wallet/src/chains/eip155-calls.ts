// EIP-5792 (wallet_sendCalls, wallet_getCallsStatus, wallet_getCapabilities) for an account that
// is a plain key: the calls of a batch are approved once, then sent one after another (not atomic,
// as wallet_getCapabilities says), and their status is read from the chain's receipts.
import { randomUUID } from 'node:crypto';
import { isPlainObject } from '@metamask/utils';
import type { Json } from '@portico/multichain';
import { type Hex, isAddress, isHex, numberToHex } from 'viem';
import { RpcError } from '../rpc.ts';

/** EIP-5792's error codes. */
export const CALLS_ERRORS = {
  unsupportedCapability: 5700,
  unsupportedChain: 5710,
  duplicateId: 5720,
  unknownBundle: 5730,
  bundleTooLarge: 5740,
  atomicityNotSupported: 5760,
} as const;

/** A batch of more calls than this is refused (5740): each needs the person's attention. */
export const MAX_CALLS = 20;
/** Batches remembered for wallet_getCallsStatus; the oldest are forgotten first. */
const KEPT_BATCHES = 1000;

export type Call = { to?: Hex; data?: Hex; value?: Hex };
export type CallBatch = { id: string; from?: string; calls: Call[] };

type Batch = { hashes: Hex[]; calls: number; failed: boolean };

const STATUS = { pending: 100, confirmed: 200, reverted: 500, partial: 600 } as const;

/** wallet_sendCalls' params, checked: version, chain, calls, capabilities, atomicity. */
export function parseSendCalls(params: Json[] | undefined, chainId: number): CallBatch {
  const [request] = params ?? [];
  if (!isPlainObject(request))
    throw new RpcError(-32602, 'wallet_sendCalls expects [{ version, chainId, calls }]');
  if (request.version !== '2.0.0' && request.version !== '1.0')
    throw new RpcError(-32602, 'wallet_sendCalls: version must be "2.0.0"');
  if (typeof request.chainId !== 'string' || !isHex(request.chainId))
    throw new RpcError(-32602, 'wallet_sendCalls: chainId must be a hexadecimal string');
  if (BigInt(request.chainId) !== BigInt(chainId))
    throw new RpcError(
      CALLS_ERRORS.unsupportedChain,
      `wallet_sendCalls: chain ${request.chainId} is not this scope's chain (${numberToHex(chainId)})`,
    );
  if (request.atomicRequired === true)
    throw new RpcError(
      CALLS_ERRORS.atomicityNotSupported,
      'This wallet sends the calls of a batch one after another; it cannot make them atomic.',
    );
  const required = (capabilities: Json | undefined) =>
    isPlainObject(capabilities)
      ? Object.entries(capabilities).filter(([, value]) => !(isPlainObject(value) && value.optional === true))
      : [];
  if (!Array.isArray(request.calls) || request.calls.length === 0)
    throw new RpcError(-32602, 'wallet_sendCalls: calls must be a non-empty list');
  if (request.calls.length > MAX_CALLS)
    throw new RpcError(
      CALLS_ERRORS.bundleTooLarge,
      `wallet_sendCalls: at most ${MAX_CALLS} calls in a batch`,
    );
  const calls = request.calls.map((call, index): Call => {
    if (!isPlainObject(call))
      throw new RpcError(-32602, `wallet_sendCalls: calls[${index}] must be an object`);
    const [capability] = required(call.capabilities);
    if (capability)
      throw new RpcError(CALLS_ERRORS.unsupportedCapability, `Capability ${capability[0]} is not supported`);
    const out: Call = {};
    if (call.to !== undefined && call.to !== null) {
      if (typeof call.to !== 'string' || !isAddress(call.to, { strict: false }))
        throw new RpcError(-32602, `wallet_sendCalls: calls[${index}].to must be an address`);
      out.to = call.to as Hex;
    }
    for (const key of ['data', 'value'] as const) {
      const value = call[key];
      if (value === undefined || value === null) continue;
      if (typeof value !== 'string' || !isHex(value))
        throw new RpcError(-32602, `wallet_sendCalls: calls[${index}].${key} must be hexadecimal`);
      out[key] = value as Hex;
    }
    if (!out.to && !out.data)
      throw new RpcError(-32602, `wallet_sendCalls: calls[${index}] needs a to or data`);
    return out;
  });
  const [capability] = required(request.capabilities);
  if (capability)
    throw new RpcError(CALLS_ERRORS.unsupportedCapability, `Capability ${capability[0]} is not supported`);
  if (request.id !== undefined && (typeof request.id !== 'string' || request.id.length > 4096))
    throw new RpcError(-32602, 'wallet_sendCalls: id must be a string of at most 4096 characters');
  return {
    id: typeof request.id === 'string' ? request.id : randomUUID(),
    from: typeof request.from === 'string' ? request.from : undefined,
    calls,
  };
}

/** The batches one chain sent, and their status from the chain's receipts. */
export function createCallBatches(options: { chainId: number; receipt: (hash: Hex) => Promise<Json> }) {
  const batches = new Map<string, Batch>();

  return {
    /** Refuses an id already used (5720); call before asking the person. */
    claim(id: string) {
      if (batches.has(id))
        throw new RpcError(CALLS_ERRORS.duplicateId, `A batch with id ${id} was already sent`);
    },
    /** Sends each call with `send`, in order; stops at the first that cannot be sent. */
    async send(batch: CallBatch, send: (call: Call) => Promise<Hex>): Promise<{ id: string }> {
      const entry: Batch = { hashes: [], calls: batch.calls.length, failed: false };
      for (const [index, call] of batch.calls.entries()) {
        try {
          entry.hashes.push(await send(call));
        } catch (error) {
          // Nothing sent: the dapp hears why. Some sent: the batch exists, its status says partial.
          if (index === 0) throw error;
          entry.failed = true;
          break;
        }
      }
      batches.set(batch.id, entry);
      if (batches.size > KEPT_BATCHES) batches.delete(batches.keys().next().value as string);
      return { id: batch.id };
    },
    async status(params: Json[] | undefined): Promise<Json> {
      const [id] = params ?? [];
      const batch = typeof id === 'string' ? batches.get(id) : undefined;
      if (!batch || typeof id !== 'string')
        throw new RpcError(CALLS_ERRORS.unknownBundle, 'This wallet sent no batch with that id');
      const receipts = await Promise.all(batch.hashes.map((hash) => options.receipt(hash)));
      const mined = receipts.filter((receipt): receipt is Record<string, Json> => isPlainObject(receipt));
      const succeeded = mined.filter((receipt) => receipt.status === '0x1').length;
      const status =
        mined.length < batch.hashes.length
          ? STATUS.pending
          : succeeded === batch.calls && !batch.failed
            ? STATUS.confirmed
            : succeeded === 0
              ? STATUS.reverted
              : STATUS.partial;
      return {
        version: '2.0.0',
        id,
        chainId: numberToHex(options.chainId),
        status,
        atomic: false,
        receipts: mined.map((receipt) => ({
          logs: Array.isArray(receipt.logs)
            ? receipt.logs
                .filter((log): log is Record<string, Json> => isPlainObject(log))
                .map(({ address, data, topics }) => ({
                  address: address ?? null,
                  data: data ?? null,
                  topics: topics ?? [],
                }))
            : [],
          status: receipt.status ?? null,
          blockHash: receipt.blockHash ?? null,
          blockNumber: receipt.blockNumber ?? null,
          gasUsed: receipt.gasUsed ?? null,
          transactionHash: receipt.transactionHash ?? null,
        })),
      };
    },
    /** wallet_getCapabilities: nothing atomic, for every chain asked that this is. */
    capabilities(params: Json[] | undefined): Json {
      const [, chainIds] = params ?? [];
      const mine = numberToHex(options.chainId);
      const asked = Array.isArray(chainIds) ? chainIds : [mine];
      const served = asked.some(
        (chain) => typeof chain === 'string' && isHex(chain) && BigInt(chain) === BigInt(options.chainId),
      );
      return served ? { [mine]: { atomic: { status: 'unsupported' } } } : {};
    },
  };
}
