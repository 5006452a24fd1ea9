/**
 * `benchSolanaLedger()`: sustained transactions per second of the dev ledger, measured end to end
 * through its JSON-RPC endpoint: N System transfers, signed beforehand (client-side signing is not
 * the ledger's work), sent by `concurrency` parallel HTTP clients with preflight on (each is
 * simulated, executed, indexed and written to SQLite), then every one checked as processed.
 */

import {
  appendTransactionMessageInstruction,
  blockhash,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { startSolanaLedger } from './index.ts';

export type SolanaLedgerBench = {
  /** Transactions per second accepted and executed by the ledger, end to end over HTTP. */
  transactionsPerSecond: number;
  transactions: number;
  concurrency: number;
  seconds: number;
  /** Transactions the ledger reported processed afterwards (equals `transactions` unless something was lost). */
  processed: number;
};

async function call<T>(url: string, method: string, params: unknown[]): Promise<T> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await response.json()) as { result?: T; error?: { code: number; message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.code} ${body.error.message}`);
  return body.result as T;
}

export async function benchSolanaLedger(
  options: { transactions?: number; concurrency?: number } = {},
): Promise<SolanaLedgerBench> {
  const transactions = options.transactions ?? 2000;
  const concurrency = options.concurrency ?? 16;
  const ledger = await startSolanaLedger({});
  try {
    const payer = await generateKeyPairSigner();
    const payee = await generateKeyPairSigner();
    await call(ledger.url, 'requestAirdrop', [payer.address, 1_000_000_000_000]);
    await call(ledger.url, 'requestAirdrop', [payee.address, 1_000_000_000]);
    const latest = await call<{ value: { blockhash: string; lastValidBlockHeight: number } }>(
      ledger.url,
      'getLatestBlockhash',
      [{ commitment: 'processed' }],
    );
    const lifetime = {
      blockhash: blockhash(latest.value.blockhash),
      lastValidBlockHeight: BigInt(latest.value.lastValidBlockHeight),
    };
    const wires: string[] = [];
    for (let i = 0; i < transactions; i++) {
      const message = pipe(
        createTransactionMessage({ version: 0 }),
        (m) => setTransactionMessageFeePayerSigner(payer, m),
        (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
        (m) =>
          appendTransactionMessageInstruction(
            getTransferSolInstruction({
              source: payer,
              destination: payee.address,
              amount: lamports(BigInt(1000 + i)),
            }),
            m,
          ),
      );
      wires.push(getBase64EncodedWireTransaction(await signTransactionMessageWithSigners(message)));
    }
    const signatures: string[] = [];
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < wires.length) {
          const wire = wires[next++];
          signatures.push(await call<string>(ledger.url, 'sendTransaction', [wire, { encoding: 'base64' }]));
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    let processed = 0;
    for (let i = 0; i < signatures.length; i += 256) {
      const statuses = await call<{ value: (object | null)[] }>(ledger.url, 'getSignatureStatuses', [
        signatures.slice(i, i + 256),
      ]);
      processed += statuses.value.filter((s) => s !== null).length;
    }
    return {
      transactionsPerSecond: Math.round(transactions / seconds),
      transactions,
      concurrency,
      seconds: Math.round(seconds * 1000) / 1000,
      processed,
    };
  } finally {
    await ledger.stop();
  }
}
