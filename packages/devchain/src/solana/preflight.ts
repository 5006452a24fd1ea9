// What a refused transaction answers: -32003 for a missing or bad signature, -32002 with the
// simulation for a preflight failure; and a LiteSVM execution's return data.
import { getBase58Decoder } from '@solana/kit';
import type { TransactionMetadata } from 'litesvm';
import { describeTransactionError, RpcError } from './errors.ts';
import { encodeReturnData, type Simulation } from './ledger-types.ts';

const base58 = getBase58Decoder();

export function returnDataOf(meta: TransactionMetadata): { programId: string; data: Uint8Array } | null {
  const returnData = meta.returnData();
  const data = returnData.data();
  if (data.length === 0) return null;
  return { programId: base58.decode(returnData.programId()), data: new Uint8Array(data) };
}

export function signatureFailure(): RpcError {
  return new RpcError('signature_failure', 'Transaction signature verification failure');
}

export function preflightFailure(simulation: Omit<Simulation, 'postAccounts'>): RpcError {
  const err = simulation.err ?? 'SanitizeFailure';
  return new RpcError(
    'preflight_failure',
    `Transaction simulation failed: ${describeTransactionError(err)}`,
    {
      err,
      logs: simulation.logs,
      accounts: null,
      unitsConsumed: simulation.unitsConsumed,
      returnData: encodeReturnData(simulation.returnData),
      innerInstructions: null,
      replacementBlockhash: null,
    },
  );
}
