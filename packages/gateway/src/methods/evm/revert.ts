import { decodeAbiParameters, type Hex, isHex, size, slice } from 'viem';

const ERROR_SELECTOR = '0x08c379a0'; // Error(string)
const PANIC_SELECTOR = '0x4e487b71'; // Panic(uint256)

/** Solidity panic codes, worded as geth words them (clients and the execution-apis fixtures see these). */
const PANIC_REASONS: Record<number, string> = {
  0: 'generic panic',
  1: 'assert(false)',
  17: 'arithmetic underflow or overflow',
  18: 'division or modulo by zero',
  33: 'enum overflow',
  34: 'storage byte array that is incorrectly encoded',
  49: 'out-of-bounds array access; popping on an empty array',
  50: 'out-of-bounds access of an array or bytesN',
  65: 'out of memory',
  81: 'uninitialized function',
};

/**
 * The reason part of `execution reverted: <reason>` for a revert payload: Error(string) decoded,
 * Panic(uint256) as its meaning, an ABI-shaped custom error as its selector, never raw bytes.
 * Returns undefined when there is nothing to say (empty or non-ABI payload).
 */
export function decodeRevertReason(data: Hex): string | undefined {
  if (!isHex(data) || size(data) < 4) return undefined;
  const selector = slice(data, 0, 4);
  const body = slice(data, 4);
  try {
    if (selector === ERROR_SELECTOR) {
      const [reason] = decodeAbiParameters([{ type: 'string' }], body);
      return reason;
    }
    if (selector === PANIC_SELECTOR) {
      const [code] = decodeAbiParameters([{ type: 'uint256' }], body);
      return PANIC_REASONS[Number(code)] ?? `unknown panic code 0x${code.toString(16)}`;
    }
  } catch {
    return undefined;
  }
  if ((size(data) - 4) % 32 === 0) return `custom error ${selector}`;
  return undefined;
}

/** Whether an upstream JSON-RPC error is an EVM revert (code 3, or a revert message with data). */
export function isRevertError(error: { code: number; message: string; data?: unknown }): boolean {
  if (error.code === 3) return true;
  return /^execution reverted/i.test(error.message) && typeof error.data === 'string';
}

/** The seed's revert error: code 3, `execution reverted: <decoded reason>`, data = payload hex. */
export function normaliseRevert(error: { code: number; message: string; data?: unknown }) {
  const data = typeof error.data === 'string' && isHex(error.data) ? error.data : '0x';
  const reason = decodeRevertReason(data);
  return {
    code: 3,
    message: reason === undefined ? 'execution reverted' : `execution reverted: ${reason}`,
    data,
  };
}
