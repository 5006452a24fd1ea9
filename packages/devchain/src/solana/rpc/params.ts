/**
 * Parameter reading shared by the method handlers, with agave's error texts: a public key that
 * does not parse is `Invalid param: Invalid` / `Invalid param: WrongSize`, a deprecated commitment
 * name is mapped as agave maps it, and `minContextSlot` above the commitment's slot is -32016.
 */
import { type Address, getBase58Encoder } from '@solana/kit';
import { invalidParams, minContextSlotNotReached } from '../errors.ts';
import type { Commitment, Ledger } from '../ledger.ts';

const base58 = getBase58Encoder();

export type Config = Record<string, unknown>;

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'sequence';
  if (typeof value === 'string') return `string ${JSON.stringify(value)}`;
  if (typeof value === 'object') return 'map';
  return `${typeof value} \`${String(value)}\``;
}

/** The optional config object at `params[index]` (absent or null → empty). */
export function configAt(params: unknown[], index: number): Config {
  const value = params[index];
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw invalidParams(`Invalid params: invalid type: ${describe(value)}, expected a configuration map.`);
  }
  return value as Config;
}

export function stringAt(params: unknown[], index: number, what: string): string {
  const value = params[index];
  if (value === undefined) throw invalidParams(`Invalid params: missing ${what}.`);
  if (typeof value !== 'string')
    throw invalidParams(`Invalid params: invalid type: ${describe(value)}, expected a string.`);
  return value;
}

function decodeBase58(text: string): Uint8Array | undefined {
  try {
    return new Uint8Array(base58.encode(text));
  } catch {
    return undefined;
  }
}

/** agave's `verify_pubkey`. */
export function parsePubkey(text: string): Address {
  if (text.length > 44) throw invalidParams('Invalid param: WrongSize');
  const bytes = decodeBase58(text);
  if (!bytes) throw invalidParams('Invalid param: Invalid');
  if (bytes.length !== 32) throw invalidParams('Invalid param: WrongSize');
  return text as Address;
}

/** agave's `verify_signature`. */
export function parseSignature(text: string): string {
  if (text.length > 88) throw invalidParams('Invalid param: WrongSize');
  const bytes = decodeBase58(text);
  if (!bytes) throw invalidParams('Invalid param: Invalid');
  if (bytes.length !== 64) throw invalidParams('Invalid param: WrongSize');
  return text;
}

export function pubkeyAt(params: unknown[], index: number): Address {
  return parsePubkey(stringAt(params, index, 'public key'));
}

const COMMITMENTS: Record<string, Commitment> = {
  processed: 'processed',
  confirmed: 'confirmed',
  finalized: 'finalized',
  // Deprecated names agave still accepts.
  recent: 'processed',
  single: 'confirmed',
  singleGossip: 'confirmed',
  root: 'finalized',
  max: 'finalized',
};

/** `commitment` of a config; finalized when absent, as in agave. */
export function commitmentOf(config: Config): Commitment {
  const value = config.commitment;
  if (value === undefined || value === null) return 'finalized';
  if (typeof value === 'string' && Object.hasOwn(COMMITMENTS, value)) return COMMITMENTS[value];
  throw invalidParams(
    `Invalid params: unknown variant ${describe(value)}, expected one of \`processed\`, \`confirmed\`, \`finalized\`.`,
  );
}

/** An optional unsigned integer member (u64/usize in agave). */
export function unsignedOf(config: Config, key: string): number | undefined {
  const value = config[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw invalidParams(`Invalid params: invalid value: ${describe(value)} for \`${key}\`, expected u64.`);
  }
  return value;
}

export function booleanOf(config: Config, key: string, fallback: boolean): boolean {
  const value = config[key];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'boolean')
    throw invalidParams(`Invalid params: invalid type: ${describe(value)}, expected a boolean.`);
  return value;
}

/** The slot a request reads at, after agave's minContextSlot check. */
export function contextSlot(ledger: Ledger, config: Config): { commitment: Commitment; slot: number } {
  const commitment = commitmentOf(config);
  const slot = ledger.slotAt(commitment);
  const min = unsignedOf(config, 'minContextSlot');
  if (min !== undefined && min > slot) throw minContextSlotNotReached(slot);
  return { commitment, slot };
}

/** agave's `check_is_at_least_confirmed` for the history methods. */
export function atLeastConfirmed(commitment: Commitment): void {
  if (commitment === 'processed') throw invalidParams('Method does not support commitment below `confirmed`');
}

/** The `{context, value}` wrapper of agave's RpcResponse. */
export function withContext<T>(
  slot: number,
  value: T,
): { context: { apiVersion: string; slot: number }; value: T } {
  return { context: { apiVersion: API_VERSION, slot }, value };
}

/** The agave version reported by getVersion and in every context (the RPC API this ledger follows). */
export const API_VERSION = '2.3.0';

/** Decodes a wire transaction given as base58 (the default) or base64. */
export function wireAt(params: unknown[], config: Config): Uint8Array {
  const encoded = stringAt(params, 0, 'transaction');
  const encoding = config.encoding ?? 'base58';
  const wire = decodeWire(encoded, encoding);
  if (wire.length > PACKET_DATA_SIZE) {
    throw invalidParams(
      `${String(encoding)} encoded solana_transaction::versioned::VersionedTransaction too large: ${wire.length} bytes (max: ${PACKET_DATA_SIZE} bytes)`,
    );
  }
  return wire;
}

/** The largest wire transaction a cluster accepts. */
export const PACKET_DATA_SIZE = 1232;

function decodeWire(encoded: string, encoding: unknown): Uint8Array {
  if (encoding === 'base64') {
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(encoded)) throw invalidParams('invalid base64 encoding: InvalidByte');
    return new Uint8Array(Buffer.from(encoded, 'base64'));
  }
  if (encoding === 'base58') {
    const bytes = decodeBase58(encoded);
    if (!bytes) throw invalidParams('invalid base58 encoding: InvalidCharacter');
    return bytes;
  }
  throw invalidParams(`unsupported encoding: ${String(encoding)}. Supported encodings: base58, base64`);
}
