/** Account methods: getBalance, getAccountInfo, getMinimumBalanceForRentExemption, requestAirdrop. */

import { getBase58Decoder } from '@solana/kit';
import { invalidParams, RpcError } from '../errors.ts';
import { type LedgerAccount, RENT_EXEMPT_EPOCH } from '../ledger.ts';
import { configAt, contextSlot, pubkeyAt, unsignedOf, withContext } from './params.ts';
import type { Handler } from './types.ts';

const base58 = getBase58Decoder();

/**
 * Account reads answer from the newest state at every commitment (LiteSVM keeps one bank); the
 * context slot is the one of the requested commitment.
 */
export const getBalance: Handler = (ledger, params) => {
  const key = pubkeyAt(params, 0);
  const { slot } = contextSlot(ledger, configAt(params, 1));
  return withContext(slot, ledger.getBalance(key));
};

/** An account in the Solana RPC's UiAccount shape for the given encoding. */
export function encodeAccount(
  account: LedgerAccount,
  encoding: unknown,
  dataSlice?: unknown,
): Record<string, unknown> {
  let data = account.data;
  if (dataSlice !== undefined && dataSlice !== null) {
    const slice = dataSlice as { offset?: unknown; length?: unknown };
    if (typeof slice !== 'object' || typeof slice.offset !== 'number' || typeof slice.length !== 'number') {
      throw invalidParams('Invalid params: dataSlice must be {offset: usize, length: usize}.');
    }
    data = data.subarray(slice.offset, slice.offset + slice.length);
  }
  let encoded: unknown;
  switch (encoding ?? 'binary') {
    case 'binary':
    case 'base58':
      if (data.length > 128) {
        throw new RpcError(
          'invalid_request',
          'Encoded binary (base 58) data should be less than 128 bytes, please use Base64 encoding.',
        );
      }
      encoded = encoding === 'base58' ? [base58.decode(data), 'base58'] : base58.decode(data);
      break;
    case 'base64':
    case 'jsonParsed': // no account parsers here: agave falls back to base64 when it cannot parse
      encoded = [Buffer.from(data).toString('base64'), 'base64'];
      break;
    default:
      throw invalidParams(
        `Invalid params: unknown variant \`${String(encoding)}\`, expected one of \`binary\`, \`base58\`, \`base64\`, \`jsonParsed\`.`,
      );
  }
  return {
    data: encoded,
    executable: account.executable,
    lamports: account.lamports,
    owner: account.owner,
    rentEpoch: RENT_EXEMPT_EPOCH,
    space: account.space,
  };
}

export const getAccountInfo: Handler = (ledger, params) => {
  const key = pubkeyAt(params, 0);
  const config = configAt(params, 1);
  if (config.encoding === 'base64+zstd')
    throw invalidParams('Invalid params: base64+zstd is not served by this dev ledger.');
  const { slot } = contextSlot(ledger, config);
  const account = ledger.getAccount(key);
  return withContext(slot, account ? encodeAccount(account, config.encoding, config.dataSlice) : null);
};

const MAX_MULTIPLE_ACCOUNTS = 100;

export const getMultipleAccounts: Handler = (ledger, params) => {
  const keys = params[0];
  if (!Array.isArray(keys))
    throw invalidParams('Invalid params: invalid type: expected a sequence of public keys.');
  if (keys.length > MAX_MULTIPLE_ACCOUNTS) {
    throw invalidParams(`Too many inputs provided; max ${MAX_MULTIPLE_ACCOUNTS}`);
  }
  const parsed = keys.map((key: unknown) => pubkeyAt([key], 0));
  const config = configAt(params, 1);
  if (config.encoding === 'base64+zstd')
    throw invalidParams('Invalid params: base64+zstd is not served by this dev ledger.');
  const { slot } = contextSlot(ledger, config);
  return withContext(
    slot,
    parsed.map((key) => {
      const account = ledger.getAccount(key);
      return account ? encodeAccount(account, config.encoding ?? 'base64', config.dataSlice) : null;
    }),
  );
};

export const getMinimumBalanceForRentExemption: Handler = (ledger, params) => {
  const length = params[0];
  if (typeof length !== 'number' || !Number.isSafeInteger(length) || length < 0) {
    throw invalidParams('Invalid params: invalid type: expected usize.');
  }
  contextSlot(ledger, configAt(params, 1));
  return ledger.minimumBalanceForRentExemption(length);
};

export const requestAirdrop: Handler = (ledger, params) => {
  const key = pubkeyAt(params, 0);
  const amount = unsignedOf({ lamports: params[1] }, 'lamports');
  if (amount === undefined) throw invalidParams('Invalid params: missing lamports.');
  configAt(params, 2);
  return ledger.airdrop(key, BigInt(amount));
};
