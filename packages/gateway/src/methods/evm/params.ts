import { describeValue } from '../../rpc/describe-value.ts';
import { invalidParams } from '../../rpc/errors.ts';

export const BLOCK_TAGS = ['latest', 'earliest', 'pending', 'safe', 'finalized'] as const;
export type BlockTag = (typeof BLOCK_TAGS)[number];

export const HASH_32 = /^0x[0-9a-fA-F]{64}$/;
export const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const QUANTITY = /^0x(0|[1-9a-fA-F][0-9a-fA-F]*)$/;
const BYTES = /^0x([0-9a-fA-F]{2})*$/;
const DECIMAL = /^(0|[1-9][0-9]*)$/;
const U64_MAX = 2n ** 64n - 1n;

/** Checks the number of positional parameters. */
export function expectArity(params: unknown[], min: number, max: number, names: string[]) {
  if (params.length < min) {
    throw invalidParams(
      `missing value for required parameter ${names[params.length]} (position ${params.length})`,
    );
  }
  if (params.length > max) {
    throw invalidParams(
      `too many parameters: expected at most ${max} (${names.join(', ')}), got ${params.length}`,
    );
  }
}

export function expectHash(value: unknown, name: string) {
  if (typeof value !== 'string' || !HASH_32.test(value)) {
    throw invalidParams(
      `${name} must be a 32-byte hex string (0x followed by 64 hex digits), got ${describeValue(value)}`,
    );
  }
}

export function expectBoolean(value: unknown, name: string) {
  if (typeof value !== 'boolean') {
    throw invalidParams(`${name} must be a boolean (true or false), got ${describeValue(value)}`);
  }
}

/**
 * A hex quantity of at most `bits` bits, the width the nodes decode it into (a block number or an
 * index is a u64 in geth, reth and anvil; a value a u256): without leading zeros, its digits number
 * at most bits / 4.
 */
export function expectQuantity(value: unknown, name: string, bits: 8 | 64 | 128 | 256) {
  if (!isQuantity(value, bits)) {
    throw invalidParams(
      `${name} must be a hex quantity of at most ${bits} bits (0x-prefixed, no leading zeros, at most 2^${bits}-1), got ${describeValue(value)}`,
    );
  }
}

function isQuantity(value: unknown, bits: number): value is string {
  return typeof value === 'string' && value.length - 2 <= bits / 4 && QUANTITY.test(value);
}

export function isBlockTag(value: unknown): value is BlockTag {
  return typeof value === 'string' && (BLOCK_TAGS as readonly string[]).includes(value);
}

/** Block parameter: a hex block number (a u64, as nodes read it) or one of the tags. */
export function expectBlockParameter(value: unknown, name = 'block parameter') {
  if (isBlockTag(value) || isQuantity(value, 64)) return;
  throw invalidParams(
    `${name} must be a hex block number of at most 64 bits (at most 0xffffffffffffffff) or one of ${BLOCK_TAGS.join(', ')}, got ${describeValue(value)}`,
  );
}

/** Block parameter of eth_call / eth_estimateGas: also an EIP-1898 object {blockHash} or {blockNumber}. */
export function expectBlockOrEip1898(value: unknown, name = 'block parameter') {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const object = value as Record<string, unknown>;
    const keys = Object.keys(object);
    if (Object.hasOwn(object, 'blockHash')) {
      expectHash(object.blockHash, `${name}.blockHash`);
      if (Object.hasOwn(object, 'requireCanonical'))
        expectBoolean(object.requireCanonical, `${name}.requireCanonical`);
      const extra = keys.filter((k) => k !== 'blockHash' && k !== 'requireCanonical');
      if (extra.length)
        throw invalidParams(`${name} has unknown member(s): ${extra.slice(0, 5).map(memberName).join(', ')}`);
      return;
    }
    if (Object.hasOwn(object, 'blockNumber') && keys.length === 1) {
      expectBlockParameter(object.blockNumber, `${name}.blockNumber`);
      return;
    }
    throw invalidParams(`${name} object must be {blockHash[, requireCanonical]} or {blockNumber} (EIP-1898)`);
  }
  expectBlockParameter(value, name);
}

/**
 * eth_getBlockReceipts: a tag, a 32-byte block hash, or a block number of at most 2^64-1 written
 * in hex, as a decimal string or as a JSON number (sent upstream as hex).
 */
export function expectReceiptsBlock(value: unknown, name = 'blockNumber') {
  if (isBlockTag(value) || isQuantity(value, 64)) return;
  if (typeof value === 'string' && (HASH_32.test(value) || isDecimalU64(value))) return;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return;
  if (typeof value === 'bigint' && value >= 0n && value <= U64_MAX) return;
  throw invalidParams(
    `${name} must be a hex or decimal block number of at most 2^64-1, a 32-byte block hash, or one of ${BLOCK_TAGS.join(', ')}, got ${describeValue(value)}`,
  );
}

const isDecimalU64 = (value: string) => DECIMAL.test(value) && value.length <= 20 && BigInt(value) <= U64_MAX;

export type FieldRule = (value: unknown, name: string) => void;

/** A hex quantity of at most `bits` bits. */
export const uint =
  (bits: 8 | 64 | 128 | 256): FieldRule =>
  (value, name) =>
    expectQuantity(value, name, bits);
export const hash32: FieldRule = expectHash;

export const address: FieldRule = (value, name) => {
  if (typeof value !== 'string' || !ADDRESS.test(value)) {
    throw invalidParams(`${name} must be a 20-byte hex address, got ${describeValue(value)}`);
  }
};
const addressOrNull: FieldRule = (value, name) => {
  if (value !== null) address(value, name);
};
export const bytes: FieldRule = (value, name) => {
  if (typeof value !== 'string' || !BYTES.test(value)) {
    throw invalidParams(
      `${name} must be a 0x-prefixed hex string of whole bytes, got ${describeValue(value)}`,
    );
  }
};
export const arrayOf =
  (item: FieldRule, maxLength = Number.POSITIVE_INFINITY): FieldRule =>
  (value, name) => {
    if (!Array.isArray(value)) throw invalidParams(`${name} must be an array, got ${describeValue(value)}`);
    if (value.length > maxLength) {
      throw invalidParams(`${name} may hold at most ${maxLength} entries, got ${value.length}`);
    }
    for (const [index, entry] of value.entries()) item(entry, `${name}[${index}]`);
  };
/**
 * An object with known members, each checked by its rule. Members are looked up in a Map and
 * required ones with Object.hasOwn: a member named `constructor`, `__proto__` or `toString` is
 * unknown like any other, never a member of Object.prototype.
 */
export const objectWith = (fields: Record<string, FieldRule>, required: string[]): FieldRule => {
  const rules = new Map(Object.entries(fields));
  return (value, name) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw invalidParams(`${name} must be an object, got ${describeValue(value)}`);
    }
    const object = value as Record<string, unknown>;
    for (const key of required) {
      if (!Object.hasOwn(object, key)) throw invalidParams(`${name}.${key} is required`);
    }
    for (const [key, field] of Object.entries(object)) {
      const rule = rules.get(key);
      if (!rule) throw invalidParams(`${name} has an unknown member ${memberName(key)}`);
      rule(field, `${name}.${key}`);
    }
  };
};

/** A member name from a request, quoted and cut short for an error message. */
export const memberName = (key: string) => JSON.stringify(key.length > 64 ? `${key.slice(0, 64)}…` : key);

const accessListEntry = objectWith({ address, storageKeys: arrayOf(hash32) }, ['address', 'storageKeys']);
const authorization = objectWith(
  { address, chainId: uint(256), nonce: uint(64), r: uint(256), s: uint(256), yParity: uint(8), v: uint(8) },
  ['address', 'chainId', 'nonce', 'r', 's'],
);

/**
 * The members of the execution-apis GenericTransaction that a call object may carry, each within
 * the width every node decodes it into: the spec says `uint` without a bound, geth reads fees as
 * 256-bit and reth/anvil as u128, gas, nonce and chain id as u64, the type as a byte.
 */
const CALL_FIELDS: Record<string, FieldRule> = {
  from: address,
  to: addressOrNull,
  gas: uint(64),
  gasPrice: uint(128),
  maxFeePerGas: uint(128),
  maxPriorityFeePerGas: uint(128),
  maxFeePerBlobGas: uint(128),
  value: uint(256),
  nonce: uint(64),
  type: uint(8),
  chainId: uint(64),
  data: bytes,
  input: bytes,
  accessList: arrayOf(accessListEntry),
  blobVersionedHashes: arrayOf(hash32),
  blobs: arrayOf(bytes),
  authorizationList: arrayOf(authorization),
};

/**
 * The transaction call object of eth_call and eth_estimateGas. `from` may be omitted for both
 * (every Ethereum node accepts that, and viem/ethers omit it for reads).
 */
export function expectCallObject(value: unknown, name = 'transaction call object') {
  objectWith(CALL_FIELDS, [])(value, name);
  const call = value as Record<string, unknown>;
  if (call.data !== undefined && call.input !== undefined && call.data !== call.input) {
    throw invalidParams(`${name} sets both "data" and "input" to different values; send one of them`);
  }
  const { maxFeePerGas, maxPriorityFeePerGas } = call;
  if (
    typeof maxFeePerGas === 'string' &&
    typeof maxPriorityFeePerGas === 'string' &&
    BigInt(maxPriorityFeePerGas) > BigInt(maxFeePerGas)
  ) {
    throw invalidParams(`${name}.maxPriorityFeePerGas is greater than its maxFeePerGas`);
  }
}

/** Rejects a `gas` above ten times the current block gas limit (the gateway spec's cap, seeds/000). */
export function expectGasWithinCap(call: Record<string, unknown>, blockGasLimit: bigint, name: string) {
  if (typeof call.gas !== 'string') return;
  const cap = blockGasLimit * 10n;
  if (BigInt(call.gas) > cap) {
    throw invalidParams(
      `${name}.gas ${BigInt(call.gas)} exceeds the cap of 10 x the current block gas limit (${cap})`,
    );
  }
}

/** A decimal block number (eth_getBlockReceipts accepts one) in the hex form every node takes. */
export function toHexBlockNumber(value: unknown): unknown {
  if (typeof value === 'number' || typeof value === 'bigint') return `0x${value.toString(16)}`;
  if (typeof value === 'string' && DECIMAL.test(value)) return `0x${BigInt(value).toString(16)}`;
  return value;
}
