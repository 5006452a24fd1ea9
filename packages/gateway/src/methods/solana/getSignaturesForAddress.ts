/**
 * Parameter rules of getSignaturesForAddress, checked by the gateway before it forwards (so a bad
 * request is refused with -32602 and costs nothing). They are those of the gateway spec (seeds/000) and of the
 * Solana RPC (agave):
 *
 * - `params` is an array `[address, config?]`;
 * - `address`: a base-58 string decoding to a 32-byte public key;
 * - `config`: an optional object whose members are all optional (null counts as absent, as in
 *   agave) and limited to `commitment`, `minContextSlot`, `limit`, `before`, `until`;
 * - `commitment`: `finalized` (default) or `confirmed`. `processed` is one of the spec's three
 *   values, but the Solana RPC refuses it for this method (-32602 "Method does not support
 *   commitment below `confirmed`"), so the gateway refuses it too, with that text;
 * - `minContextSlot`: a non-negative integer (a u64);
 * - `limit`: an integer from 1 to 1000 (default 1000);
 * - `before` / `until`: base-58 strings decoding to 64-byte transaction signatures.
 */
import { getBase58Encoder } from '@solana/kit';

export const SIGNATURES_LIMIT_MAX = 1000;
export const SIGNATURES_CONFIG_MEMBERS = [
  'commitment',
  'minContextSlot',
  'limit',
  'before',
  'until',
] as const;
const COMMITMENTS = ['finalized', 'confirmed', 'processed'];

const base58 = getBase58Encoder();

function show(value: unknown): string {
  if (typeof value === 'string')
    return JSON.stringify(value.length > 100 ? `${value.slice(0, 100)}…` : value);
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}

/** Why `text` is not base-58 for `bytes` bytes, or undefined when it is. */
function base58Problem(text: unknown, bytes: number): string | undefined {
  if (typeof text !== 'string') return `must be a base-58 string, got ${show(text)}`;
  let decoded: ReturnType<typeof base58.encode>;
  try {
    decoded = base58.encode(text);
  } catch {
    return `must be base-58 (characters 1-9, A-H, J-N, P-Z, a-k, m-z), got ${show(text)}`;
  }
  if (decoded.length !== bytes)
    return `must decode to ${bytes} bytes, got ${decoded.length} from ${show(text)}`;
  return undefined;
}

const U64_MAX = 2n ** 64n - 1n;

/** A slot is a u64: a safe integer, or one beyond 2^53 (read exactly, as a bigint). */
const isSlot = (value: unknown) =>
  (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) ||
  (typeof value === 'bigint' && value >= 0n && value <= U64_MAX);

/** The reason `params` breaks a rule of getSignaturesForAddress, or undefined when they are valid. */
export function getSignaturesForAddressParamError(params: unknown): string | undefined {
  if (!Array.isArray(params)) return `params must be an array [address, config?], got ${show(params)}`;
  if (params.length === 0)
    return 'params[0] (address) is required: the base-58 public key to list signatures for';
  if (params.length > 2) {
    return `getSignaturesForAddress takes at most 2 parameters [address, config], got ${params.length}`;
  }
  const addressProblem = base58Problem(params[0], 32);
  if (addressProblem) return `params[0] (address) is a public key and ${addressProblem}`;

  const config = params[1];
  if (config === undefined || config === null) return undefined;
  if (typeof config !== 'object' || Array.isArray(config)) {
    return `params[1] (config) must be an object with optional ${SIGNATURES_CONFIG_MEMBERS.join(', ')}, got ${show(config)}`;
  }
  const members = config as Record<string, unknown>;
  for (const key of Object.keys(members)) {
    if (!(SIGNATURES_CONFIG_MEMBERS as readonly string[]).includes(key)) {
      return `params[1].${key} is not an option of getSignaturesForAddress (allowed: ${SIGNATURES_CONFIG_MEMBERS.join(', ')})`;
    }
  }

  const { commitment, minContextSlot, limit, before, until } = members;
  if (commitment !== undefined && commitment !== null) {
    if (typeof commitment !== 'string' || !COMMITMENTS.includes(commitment)) {
      return `params[1].commitment must be one of finalized, confirmed, processed, got ${show(commitment)}`;
    }
    if (commitment === 'processed') {
      return 'params[1].commitment: Method does not support commitment below `confirmed` (Solana RPC refuses processed for getSignaturesForAddress; use confirmed or finalized)';
    }
  }
  if (minContextSlot !== undefined && minContextSlot !== null && !isSlot(minContextSlot)) {
    return `params[1].minContextSlot must be a non-negative integer slot (at most 2^64-1), got ${show(minContextSlot)}`;
  }
  if (limit !== undefined && limit !== null) {
    if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > SIGNATURES_LIMIT_MAX) {
      return `params[1].limit must be an integer from 1 to ${SIGNATURES_LIMIT_MAX}, got ${show(limit)}`;
    }
  }
  for (const [key, value] of [
    ['before', before],
    ['until', until],
  ] as const) {
    if (value === undefined || value === null) continue;
    const problem = base58Problem(value, 64);
    if (problem) return `params[1].${key} is a transaction signature and ${problem}`;
  }
  return undefined;
}
