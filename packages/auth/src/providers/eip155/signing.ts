import { providerErrors, rpcErrors } from '@metamask/rpc-errors';
import {
  type Hex,
  isAddress,
  isAddressEqual,
  isHex,
  type LocalAccount,
  stringToHex,
  type TypedDataDefinition,
} from 'viem';

/** 4100 unless `address` is the user's account (MetaMask's answer for an account it did not expose). */
export function ownAccount(account: LocalAccount, address: unknown, method: string): void {
  if (typeof address !== 'string' || !isAddress(address, { strict: false })) {
    throw rpcErrors.invalidParams(`${method}: the address must be a 20-byte hex address`);
  }
  if (!isAddressEqual(address, account.address)) {
    throw providerErrors.unauthorized(
      `${method}: ${address} is not the logged-in user's account (${account.address})`,
    );
  }
}

/** `personal_sign` [data, address]: hex data is signed as bytes, anything else as UTF-8 text (as MetaMask does). */
export async function personalSign(account: LocalAccount, params: unknown): Promise<Hex> {
  const [data, address] = Array.isArray(params) ? params : [];
  if (typeof data !== 'string') throw rpcErrors.invalidParams('personal_sign expects [data, address]');
  ownAccount(account, address, 'personal_sign');
  const raw: Hex = isHex(data) && data.length % 2 === 0 ? data : stringToHex(data);
  return account.signMessage({ message: { raw } });
}

/**
 * `eth_signTypedData_v4` [address, typedData as JSON text or object] (EIP-712). A domain chainId
 * other than the current chain's is refused, as MetaMask does.
 */
export async function signTypedDataV4(account: LocalAccount, params: unknown, chainId: number): Promise<Hex> {
  const [address, typedData] = Array.isArray(params) ? params : [];
  ownAccount(account, address, 'eth_signTypedData_v4');
  let parsed: unknown = typedData;
  if (typeof typedData === 'string') {
    try {
      parsed = JSON.parse(typedData);
    } catch {
      throw rpcErrors.invalidParams('eth_signTypedData_v4: the typed data is not valid JSON');
    }
  }
  const value = parsed as Partial<TypedDataDefinition>;
  if (
    typeof value !== 'object' ||
    value === null ||
    typeof value.types !== 'object' ||
    typeof value.primaryType !== 'string' ||
    typeof value.message !== 'object'
  ) {
    throw rpcErrors.invalidParams(
      'eth_signTypedData_v4 expects typed data with types, primaryType, domain and message',
    );
  }
  const domainChainId = (value.domain as { chainId?: unknown } | undefined)?.chainId;
  if (domainChainId !== undefined && domainChainId !== null) {
    const given =
      typeof domainChainId === 'string' && isHex(domainChainId)
        ? Number.parseInt(domainChainId, 16)
        : Number(domainChainId);
    if (given !== chainId) {
      throw rpcErrors.invalidParams(
        `eth_signTypedData_v4: domain chainId ${String(domainChainId)} must match the current chain ${chainId}`,
      );
    }
  }
  try {
    return await account.signTypedData(value as TypedDataDefinition);
  } catch (error) {
    const reason =
      (error as { shortMessage?: string; message?: string }).shortMessage ?? (error as Error).message;
    throw rpcErrors.invalidParams(`eth_signTypedData_v4: invalid typed data: ${reason}`);
  }
}
