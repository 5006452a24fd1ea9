import { type Hex, keccak256, parseTransaction } from 'viem';
import { describeValue } from '../../rpc/describe-value.ts';
import { invalidParams } from '../../rpc/errors.ts';
import { broadcastTransaction } from '../../upstream/broadcast.ts';
import type { MethodSpec } from '../types.ts';
import { expectArity } from './params.ts';

const BYTES = /^0x([0-9a-fA-F]{2})+$/;

/**
 * A signed transaction must decode (legacy RLP or a typed envelope, with its signature) before
 * anything is sent: bytes no node could take are refused here, free, with -32602.
 */
export function checkSignedTransaction(params: unknown[]) {
  expectArity(params, 1, 1, ['signed transaction']);
  const raw = params[0];
  if (typeof raw !== 'string' || !BYTES.test(raw)) {
    throw invalidParams(`signed transaction must be 0x-prefixed hex bytes, got ${describeValue(raw)}`);
  }
  let signed: boolean;
  try {
    const transaction = parseTransaction(raw as Hex);
    signed = transaction.r !== undefined && transaction.s !== undefined;
  } catch {
    throw invalidParams(
      'signed transaction does not decode as an Ethereum transaction (legacy RLP or typed envelope)',
    );
  }
  if (!signed) throw invalidParams('signed transaction carries no signature');
}

/**
 * eth_sendRawTransaction: sent to every upstream in service and every relay of the network
 * (`broadcastUrls`), answered with the hash of the raw bytes as soon as one holds it; a node that
 * already had it (`already known`, or `nonce too low` for this very hash) counts as holding it.
 */
export const sendRawTransactionSpec: MethodSpec = {
  cost: 'passthrough',
  accepts: 'signed transaction (decoded before it is sent)',
  check: checkSignedTransaction,
  write: true,
  serve(params, fleet) {
    const raw = (params[0] as string).toLowerCase();
    return broadcastTransaction(fleet.upstreams, fleet.relays, raw, keccak256(raw as Hex));
  },
};
