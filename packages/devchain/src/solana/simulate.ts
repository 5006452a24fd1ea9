// simulateTransaction on LiteSVM: the outcome without committing it, and the accounts after it.
import { FailedTransactionMetadata, type LiteSVM } from 'litesvm';
import { transactionErrorJson } from './errors.ts';
import type { LedgerAccount, Simulation } from './ledger-types.ts';
import { returnDataOf } from './preflight.ts';
import type { DecodedTransaction } from './transaction.ts';

/** An account as the ledger answers it. */
export function ledgerAccount(account: {
  lamports: bigint;
  data: ArrayLike<number>;
  programAddress: string;
  executable: boolean;
  space: bigint;
}): LedgerAccount {
  return {
    lamports: account.lamports,
    data: new Uint8Array(account.data),
    owner: account.programAddress,
    executable: account.executable,
    space: account.space,
  };
}

/** Simulates `tx` (with or without signature checks); the ledger's state is left as it was. */
export function simulateOn(svm: LiteSVM, tx: DecodedTransaction, sigVerify: boolean): Simulation {
  svm.withSigverify(sigVerify);
  try {
    const result = svm.simulateTransaction(tx.transaction);
    if (result instanceof FailedTransactionMetadata) {
      const meta = result.meta();
      return {
        err: transactionErrorJson(result.err()),
        logs: meta.logs(),
        unitsConsumed: meta.computeUnitsConsumed(),
        returnData: returnDataOf(meta),
        postAccounts: () => new Map(),
      };
    }
    const meta = result.meta();
    const postAccounts = () => {
      const accounts = new Map<string, LedgerAccount>();
      for (const account of result.postAccounts()) {
        accounts.set(account.address, ledgerAccount(account));
      }
      return accounts;
    };
    return {
      err: null,
      logs: meta.logs(),
      unitsConsumed: meta.computeUnitsConsumed(),
      returnData: returnDataOf(meta),
      postAccounts,
    };
  } catch {
    return {
      err: 'SignatureFailure',
      logs: [],
      unitsConsumed: 0n,
      returnData: null,
      postAccounts: () => new Map(),
    };
  } finally {
    svm.withSigverify(true);
  }
}
