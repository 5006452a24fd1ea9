/** Cluster and slot methods: getSlot, getBlockHeight, getEpochInfo, getTransactionCount, getFeeForMessage, getLatestBlockhash, isBlockhashValid, getVersion, getHealth, getGenesisHash. */
import { invalidParams } from '../errors.ts';
import { LAMPORTS_PER_SIGNATURE } from '../ledger.ts';
import { decodeMessage } from '../transaction.ts';
import { API_VERSION, configAt, contextSlot, stringAt, withContext } from './params.ts';
import type { Handler } from './types.ts';

export const getSlot: Handler = (ledger, params) => contextSlot(ledger, configAt(params, 0)).slot;

export const getBlockHeight: Handler = (ledger, params) => {
  const { commitment } = contextSlot(ledger, configAt(params, 0));
  return ledger.blockHeightAt(commitment);
};

export const getLatestBlockhash: Handler = (ledger, params) => {
  const { commitment, slot } = contextSlot(ledger, configAt(params, 0));
  const { blockhash, lastValidBlockHeight } = ledger.latestBlockhash(commitment);
  return withContext(slot, { blockhash, lastValidBlockHeight });
};

export const isBlockhashValid: Handler = (ledger, params) => {
  const blockhash = stringAt(params, 0, 'blockhash');
  const { slot } = contextSlot(ledger, configAt(params, 1));
  return withContext(slot, ledger.isBlockhashValid(blockhash));
};

export const getVersion: Handler = () => ({ 'solana-core': API_VERSION, 'feature-set': 0 });

export const getHealth: Handler = () => 'ok';

export const getGenesisHash: Handler = (ledger) => ledger.genesisHash;

/** LiteSVM's default epoch schedule: 432000 slots per epoch, no warmup. */
const SLOTS_PER_EPOCH = 432_000;

export const getEpochInfo: Handler = (ledger, params) => {
  const { commitment, slot } = contextSlot(ledger, configAt(params, 0));
  return {
    absoluteSlot: slot,
    blockHeight: ledger.blockHeightAt(commitment),
    epoch: Math.floor(slot / SLOTS_PER_EPOCH),
    slotIndex: slot % SLOTS_PER_EPOCH,
    slotsInEpoch: SLOTS_PER_EPOCH,
    transactionCount: ledger.transactionCount,
  };
};

export const getTransactionCount: Handler = (ledger, params) => {
  const { commitment } = contextSlot(ledger, configAt(params, 0));
  return ledger.transactionCountAt(commitment);
};

/** The fee of a base64 message: 5000 lamports per signature; null when its blockhash is not valid. */
export const getFeeForMessage: Handler = (ledger, params) => {
  const encoded = stringAt(params, 0, 'message');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(encoded)) throw invalidParams('invalid base64 encoding: InvalidByte');
  const message = decodeMessage(new Uint8Array(Buffer.from(encoded, 'base64')));
  const { slot } = contextSlot(ledger, configAt(params, 1));
  const fee = ledger.isBlockhashValid(message.recentBlockhash)
    ? LAMPORTS_PER_SIGNATURE * BigInt(message.numRequiredSignatures)
    : null;
  return withContext(slot, fee);
};
