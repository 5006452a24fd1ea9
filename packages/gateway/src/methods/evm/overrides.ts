/**
 * The state and block overrides of eth_call and eth_estimateGas (execution-apis `StateOverrides`,
 * `BlockOverrides`), checked member by member so that a node never refuses what the gateway let
 * through (it would be charged for nothing). Where the spec and the nodes differ the narrower
 * reading wins: `prevRandao` is a 32-byte hash (geth, reth and anvil decode it so; the spec says
 * uint256), `number` and `blobBaseFee` are u64 (the spec; nodes take u256).
 */
import { describeValue } from '../../rpc/describe-value.ts';
import { invalidParams } from '../../rpc/errors.ts';
import {
  ADDRESS,
  address,
  arrayOf,
  bytes,
  type FieldRule,
  HASH_32,
  hash32,
  memberName,
  objectWith,
  uint,
} from './params.ts';

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Storage slots of an account: 32-byte slot → 32-byte value. */
const storage: FieldRule = (value, name) => {
  if (!isObject(value)) {
    throw invalidParams(
      `${name} must be an object of 32-byte slots to 32-byte values, got ${describeValue(value)}`,
    );
  }
  for (const [slot, word] of Object.entries(value)) {
    if (!HASH_32.test(slot))
      throw invalidParams(`${name} has a slot ${memberName(slot)} that is not 32 bytes of hex`);
    hash32(word, `${name}[${slot}]`);
  }
};

const accountOverride = objectWith(
  {
    balance: uint(256),
    nonce: uint(64),
    code: bytes,
    state: storage,
    stateDiff: storage,
    movePrecompileToAddress: address,
  },
  [],
);

/** Optional state override: address → {balance, nonce, code, state | stateDiff, movePrecompileToAddress}. */
export function expectStateOverride(value: unknown, name = 'state override') {
  if (value === undefined || value === null) return;
  if (!isObject(value)) {
    throw invalidParams(
      `${name} must be an object of addresses to account overrides, got ${describeValue(value)}`,
    );
  }
  for (const [account, override] of Object.entries(value)) {
    if (!ADDRESS.test(account)) {
      throw invalidParams(`${name} has a key ${memberName(account)} that is not a 20-byte hex address`);
    }
    accountOverride(override, `${name}.${account}`);
    if (Object.hasOwn(override as object, 'state') && Object.hasOwn(override as object, 'stateDiff')) {
      throw invalidParams(`${name}.${account} sets both state and stateDiff; send one of them`);
    }
  }
}

const withdrawal = objectWith({ index: uint(64), validatorIndex: uint(64), address, amount: uint(64) }, [
  'index',
  'validatorIndex',
  'address',
  'amount',
]);

const blockOverride = objectWith(
  {
    number: uint(64),
    prevRandao: hash32,
    time: uint(64),
    gasLimit: uint(64),
    feeRecipient: address,
    baseFeePerGas: uint(256),
    withdrawals: arrayOf(withdrawal, 16),
    blobBaseFee: uint(64),
    // Not in the spec, but geth's eth_call takes them too.
    difficulty: uint(256),
    beaconRoot: hash32,
  },
  [],
);

/** Optional block override of eth_call. */
export function expectBlockOverride(value: unknown, name = 'block override') {
  if (value === undefined || value === null) return;
  blockOverride(value, name);
}
