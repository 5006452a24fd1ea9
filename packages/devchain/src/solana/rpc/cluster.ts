/** Cluster and slot methods: getSlot, getBlockHeight, getLatestBlockhash, isBlockhashValid, getVersion, getHealth, getGenesisHash. */
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
