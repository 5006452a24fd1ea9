// wallet_watchAsset (EIP-747) for ERC-20 tokens: the suggestion is checked against the contract
// on the chain (code there, the same decimals) before the person is asked, and kept per account.
import { isPlainObject } from '@metamask/utils';
import type { Json } from '@portico/multichain';
import { getAddress, type Hex, hexToBigInt, isAddress, isHex } from 'viem';
import { RpcError } from '../rpc.ts';

export type WatchedAsset = { type: 'ERC20'; address: Hex; symbol: string; decimals: number; image?: string };

/** `decimals()`'s selector. */
const DECIMALS = '0x313ce567';

/** The suggested token, checked for shape: EIP-747's limits (symbol ≤ 11 characters, decimals ≤ 36). */
export function parseWatchAsset(params: Json | undefined): WatchedAsset {
  const request = Array.isArray(params) ? params[0] : params;
  if (!isPlainObject(request) || !isPlainObject(request.options))
    throw new RpcError(-32602, 'wallet_watchAsset expects { type, options: { address, symbol, decimals } }');
  if (request.type !== 'ERC20')
    throw new RpcError(
      -32602,
      `wallet_watchAsset: only ERC20 tokens can be watched, not ${String(request.type)}`,
    );
  const { address, symbol, decimals, image } = request.options;
  if (typeof address !== 'string' || !isAddress(address, { strict: false }))
    throw new RpcError(-32602, 'wallet_watchAsset: options.address must be an address');
  if (typeof symbol !== 'string' || symbol.length === 0 || symbol.length > 11 || /[\r\n]/.test(symbol))
    throw new RpcError(-32602, 'wallet_watchAsset: options.symbol must be 1 to 11 characters');
  if (typeof decimals !== 'number' || !Number.isInteger(decimals) || decimals < 0 || decimals > 36)
    throw new RpcError(-32602, 'wallet_watchAsset: options.decimals must be a whole number from 0 to 36');
  if (image !== undefined && (typeof image !== 'string' || !/^(https:|data:image\/)/.test(image)))
    throw new RpcError(-32602, 'wallet_watchAsset: options.image must be an https: or data:image/ URL');
  return { type: 'ERC20', address: getAddress(address), symbol, decimals, ...(image ? { image } : {}) };
}

/** Refuses a token whose address holds no contract or whose contract reports other decimals. */
export async function checkOnChain(
  asset: WatchedAsset,
  request: (method: string, params: Json[]) => Promise<Json>,
): Promise<void> {
  const code = await request('eth_getCode', [asset.address, 'latest']);
  if (typeof code !== 'string' || code === '0x')
    throw new RpcError(-32602, `wallet_watchAsset: no contract at ${asset.address} on this chain`);
  let reported: bigint | undefined;
  try {
    const answer = await request('eth_call', [{ to: asset.address, data: DECIMALS }, 'latest']);
    reported =
      typeof answer === 'string' && isHex(answer) && answer.length === 66 ? hexToBigInt(answer) : undefined;
  } catch {
    reported = undefined; // decimals() is optional in ERC-20
  }
  if (reported !== undefined && reported !== BigInt(asset.decimals))
    throw new RpcError(
      -32602,
      `wallet_watchAsset: the contract reports ${reported} decimals, not ${asset.decimals}`,
    );
}

/** Tokens each account watches, newest last; one entry per token address. */
export function createWatchList() {
  const byAccount = new Map<string, WatchedAsset[]>();
  return {
    add(account: string, asset: WatchedAsset) {
      const key = account.toLowerCase();
      const list = (byAccount.get(key) ?? []).filter((held) => held.address !== asset.address);
      byAccount.set(key, [...list, asset]);
    },
    list(account: string): WatchedAsset[] {
      return [...(byAccount.get(account.toLowerCase()) ?? [])];
    },
  };
}
