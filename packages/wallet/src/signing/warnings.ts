// What a person should not sign blind, said above the approve button: a hash where a message is
// expected, token approvals without a limit, permits, and calls to a contract this wallet has never
// sent to. The page shows each warning; signing stays the person's choice.
import { decodeFunctionData, type Hex, parseAbi, size } from 'viem';

/** Amounts at or above this are "unlimited": 2^255 and max uint256 are what dapps send for it. */
const UNLIMITED = 2n ** 128n;
/** Permit2's amounts are uint160: its maximum means unlimited. */
const UNLIMITED_160 = 2n ** 159n;

const APPROVALS = parseAbi([
  'function approve(address spender, uint256 amount)',
  'function increaseAllowance(address spender, uint256 addedValue)',
  'function setApprovalForAll(address operator, bool approved)',
]);

/** A personal_sign message that is exactly 32 bytes and not text reads as a hash. */
export function messageWarnings(bytes: Uint8Array, isText: boolean): string[] {
  if (bytes.length === 32 && !isText)
    return [
      'This message is 32 bytes of data, like a transaction or permit hash, not text. Signing a hash you cannot read may authorize anything.',
    ];
  return [];
}

/**
 * A transaction's warnings: unlimited token approvals and approvals of a whole collection, and a
 * call to a contract that is not a known one and that this wallet has not sent to before.
 */
export function transactionWarnings(
  tx: { to?: string | null; data?: Hex },
  facts: { isContract: boolean; known: boolean; sentToBefore: boolean },
): string[] {
  const warnings: string[] = [];
  const data = tx.data && tx.data !== '0x' ? tx.data : undefined;
  if (data && size(data) >= 4) {
    try {
      const { functionName, args } = decodeFunctionData({ abi: APPROVALS, data });
      if (functionName === 'setApprovalForAll' && args[1] === true)
        warnings.push(
          `This gives ${args[0]} control of every token you hold in this collection, now and later.`,
        );
      else if (functionName !== 'setApprovalForAll' && (args[1] as bigint) >= UNLIMITED)
        warnings.push(
          `This lets ${args[0]} spend an unlimited amount of this token from your account, until you revoke it.`,
        );
    } catch {
      // not an approval
    }
  }
  if (tx.to && facts.isContract && !facts.known && !facts.sentToBefore)
    warnings.push(
      `${tx.to} is a contract this wallet has never sent to and does not know. Check it is the one the site says.`,
    );
  return warnings;
}

const asBigInt = (value: unknown): bigint | undefined => {
  try {
    return typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint'
      ? BigInt(value)
      : undefined;
  } catch {
    return undefined;
  }
};

/** EIP-2612 and Permit2 permits: a signature that lets a spender move tokens without a transaction. */
export function typedDataWarnings(typed: {
  primaryType: string;
  message: Record<string, unknown>;
}): string[] {
  const { primaryType, message } = typed;
  if (primaryType === 'Permit' && 'spender' in message) {
    const value = asBigInt(message.value);
    const spender = String(message.spender);
    return [
      value !== undefined && value >= UNLIMITED
        ? `This permit lets ${spender} spend an unlimited amount of this token from your account, without another signature.`
        : `This permit lets ${spender} spend tokens from your account without another signature.`,
    ];
  }
  if (primaryType === 'PermitSingle' || primaryType === 'PermitBatch') {
    const details = primaryType === 'PermitSingle' ? [message.details] : (message.details as unknown[]);
    const spender = String(message.spender);
    const unlimited = (Array.isArray(details) ? details : []).some((item) => {
      const amount = asBigInt((item as { amount?: unknown } | null)?.amount);
      return amount !== undefined && amount >= UNLIMITED_160;
    });
    return [
      unlimited
        ? `This Permit2 signature lets ${spender} spend an unlimited amount of your tokens.`
        : `This Permit2 signature lets ${spender} spend your tokens without another signature.`,
    ];
  }
  return [];
}
