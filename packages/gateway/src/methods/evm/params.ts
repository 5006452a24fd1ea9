import { invalidParams } from '../../rpc/errors.ts';

export const BLOCK_TAGS = ['latest', 'earliest', 'pending', 'safe', 'finalized'] as const;
export type BlockTag = (typeof BLOCK_TAGS)[number];

const HASH_32 = /^0x[0-9a-fA-F]{64}$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const QUANTITY = /^0x(0|[1-9a-fA-F][0-9a-fA-F]*)$/;
const BYTES = /^0x([0-9a-fA-F]{2})*$/;
const DECIMAL = /^(0|[1-9][0-9]*)$/;

const describe = (value: unknown) =>
  value === null ? 'null' : Array.isArray(value) ? 'an array' : `${typeof value} ${JSON.stringify(value)}`;

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
      `${name} must be a 32-byte hex string (0x followed by 64 hex digits), got ${describe(value)}`,
    );
  }
}

export function expectBoolean(value: unknown, name: string) {
  if (typeof value !== 'boolean') {
    throw invalidParams(`${name} must be a boolean (true or false), got ${describe(value)}`);
  }
}

export function expectQuantity(value: unknown, name: string) {
  if (typeof value !== 'string' || !QUANTITY.test(value)) {
    throw invalidParams(
      `${name} must be a hex quantity (0x-prefixed, no leading zeros), got ${describe(value)}`,
    );
  }
}

export function isBlockTag(value: unknown): value is BlockTag {
  return typeof value === 'string' && (BLOCK_TAGS as readonly string[]).includes(value);
}

/** Block parameter: a hex block number or one of the tags. */
export function expectBlockParameter(value: unknown, name = 'block parameter') {
  if (isBlockTag(value)) return;
  if (typeof value === 'string' && QUANTITY.test(value)) return;
  throw invalidParams(
    `${name} must be a hex block number or one of ${BLOCK_TAGS.join(', ')}, got ${describe(value)}`,
  );
}

/** Block parameter of eth_call / eth_estimateGas: also an EIP-1898 object {blockHash} or {blockNumber}. */
export function expectBlockOrEip1898(value: unknown, name = 'block parameter') {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const object = value as Record<string, unknown>;
    const keys = Object.keys(object);
    if ('blockHash' in object) {
      expectHash(object.blockHash, `${name}.blockHash`);
      if ('requireCanonical' in object) expectBoolean(object.requireCanonical, `${name}.requireCanonical`);
      const extra = keys.filter((k) => k !== 'blockHash' && k !== 'requireCanonical');
      if (extra.length) throw invalidParams(`${name} has unknown member(s): ${extra.join(', ')}`);
      return;
    }
    if ('blockNumber' in object && keys.length === 1) {
      expectBlockParameter(object.blockNumber, `${name}.blockNumber`);
      return;
    }
    throw invalidParams(`${name} object must be {blockHash[, requireCanonical]} or {blockNumber} (EIP-1898)`);
  }
  expectBlockParameter(value, name);
}

/** eth_getBlockReceipts: tag, hex or decimal integer number, or a 32-byte block hash. */
export function expectReceiptsBlock(value: unknown, name = 'blockNumber') {
  if (isBlockTag(value)) return;
  if (typeof value === 'string' && (QUANTITY.test(value) || DECIMAL.test(value) || HASH_32.test(value)))
    return;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return;
  throw invalidParams(
    `${name} must be a hex or decimal block number, a 32-byte block hash, or one of ${BLOCK_TAGS.join(', ')}, got ${describe(value)}`,
  );
}

type FieldRule = (value: unknown, name: string) => void;

const address: FieldRule = (value, name) => {
  if (typeof value !== 'string' || !ADDRESS.test(value)) {
    throw invalidParams(`${name} must be a 20-byte hex address, got ${describe(value)}`);
  }
};
const addressOrNull: FieldRule = (value, name) => {
  if (value !== null) address(value, name);
};
const bytes: FieldRule = (value, name) => {
  if (typeof value !== 'string' || !BYTES.test(value)) {
    throw invalidParams(`${name} must be a 0x-prefixed hex string of whole bytes, got ${describe(value)}`);
  }
};
const arrayOf =
  (item: FieldRule): FieldRule =>
  (value, name) => {
    if (!Array.isArray(value)) throw invalidParams(`${name} must be an array, got ${describe(value)}`);
    for (const [index, entry] of value.entries()) item(entry, `${name}[${index}]`);
  };
const objectWith =
  (fields: Record<string, FieldRule>, required: string[]): FieldRule =>
  (value, name) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw invalidParams(`${name} must be an object, got ${describe(value)}`);
    }
    const object = value as Record<string, unknown>;
    for (const key of required) {
      if (!(key in object)) throw invalidParams(`${name}.${key} is required`);
    }
    for (const [key, field] of Object.entries(object)) {
      const rule = fields[key];
      if (!rule) throw invalidParams(`${name} has an unknown member "${key}"`);
      rule(field, `${name}.${key}`);
    }
  };

const accessListEntry = objectWith({ address, storageKeys: arrayOf(expectHash) }, ['address', 'storageKeys']);
const authorization = objectWith(
  {
    address,
    chainId: expectQuantity,
    nonce: expectQuantity,
    r: expectQuantity,
    s: expectQuantity,
    yParity: expectQuantity,
    v: expectQuantity,
  },
  ['address', 'chainId', 'nonce', 'r', 's'],
);

/** The members of the execution-apis GenericTransaction that a call object may carry. */
const CALL_FIELDS: Record<string, FieldRule> = {
  from: address,
  to: addressOrNull,
  gas: expectQuantity,
  gasPrice: expectQuantity,
  maxFeePerGas: expectQuantity,
  maxPriorityFeePerGas: expectQuantity,
  maxFeePerBlobGas: expectQuantity,
  value: expectQuantity,
  nonce: expectQuantity,
  type: expectQuantity,
  chainId: expectQuantity,
  data: bytes,
  input: bytes,
  accessList: arrayOf(accessListEntry),
  blobVersionedHashes: arrayOf(expectHash),
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
}

/** Rejects a `gas` above ten times the current block gas limit (the seed's cap). */
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
  if (typeof value === 'number') return `0x${value.toString(16)}`;
  if (typeof value === 'string' && DECIMAL.test(value)) return `0x${BigInt(value).toString(16)}`;
  return value;
}
