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

type NodeError = { code: number; message: string; data?: unknown };

/**
 * How each node dialect words a revert (see docs/node-dialects.md and the recorded answers in
 * test/fixtures/revert-dialects.ts):
 * - geth, reth, erigon, anvil, Nethermind ≥ 1.20, Besu ≥ 24: code 3, `execution reverted[: reason]`, data hex;
 * - Besu before 24: -32000 `Execution reverted`, data hex;
 * - Nethermind before 1.20 and OpenEthereum: -32015 `VM execution error.`, data `Reverted 0x…` (or hex);
 * - ganache 7: -32000 `VM Exception while processing transaction: revert[ reason]`, data hex
 *   (eth_call) or `{ hash, programCounter, result, reason, message }` (eth_estimateGas, sends);
 * - Hardhat (and EDR): -32603 `Error: VM Exception while processing transaction: reverted with …`,
 *   data `{ message, data }`.
 */
const REVERT_MESSAGES = [
  /^execution reverted\b/i,
  /^(Error: )?VM Exception while processing transaction: revert(ed)?\b/i,
  /^(Error: )?Transaction reverted\b/i,
];
/** Nethermind's and OpenEthereum's message for every failed call; a revert only when data says so. */
const VM_EXECUTION_ERROR = /^VM execution error\.?$/i;
const REVERTED_DATA = /^Reverted(?: (0x[0-9a-fA-F]*))?$/i;

/** The revert payload a node's error carries, wherever its dialect puts it; undefined when none. */
export function revertPayloadOf(error: NodeError): Hex | undefined {
  const { data } = error;
  if (typeof data === 'string') {
    if (isHex(data)) return data;
    const reverted = REVERTED_DATA.exec(data.trim());
    if (reverted) return (reverted[1] as Hex | undefined) ?? '0x';
    return undefined;
  }
  if (data && typeof data === 'object') {
    // Hardhat/EDR: `{ message, data }`; ganache: `{ hash, programCounter, result, reason, message }`.
    const inner = data as { data?: unknown; result?: unknown };
    if (typeof inner.data === 'string' && isHex(inner.data)) return inner.data;
    if (
      typeof inner.result === 'string' &&
      isHex(inner.result) &&
      !('hash' in inner && inner.result === inner.hash)
    )
      return inner.result;
  }
  return undefined;
}

/** Whether an upstream JSON-RPC error is an EVM revert, in any of the dialects above. */
export function isRevertError(error: NodeError): boolean {
  if (error.code === 3) return true;
  if (REVERT_MESSAGES.some((pattern) => pattern.test(error.message))) return true;
  return VM_EXECUTION_ERROR.test(error.message) && revertPayloadOf(error) !== undefined;
}

/** The spec's revert error: code 3, `execution reverted: <decoded reason>`, data = payload hex. */
export function normaliseRevert(error: NodeError) {
  const data = revertPayloadOf(error) ?? '0x';
  const reason = decodeRevertReason(data);
  return {
    code: 3,
    message: reason === undefined ? 'execution reverted' : `execution reverted: ${reason}`,
    data,
  };
}
