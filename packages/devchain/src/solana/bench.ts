/**
 * `benchSolanaLedger()`: sustained transactions per second of the dev ledger, measured end to end
 * through its JSON-RPC endpoint: N System transfers, signed beforehand (client-side signing is not
 * the ledger's work), sent by `concurrency` parallel HTTP clients with preflight on (each is
 * simulated, executed, indexed and written to SQLite), then every one checked as processed.
 * The same transfers are also submitted in process (no HTTP) for the ledger's own ceiling.
 * Client and ledger share one process (and its CPU), as in `portico dev`.
 */

import { type Address, blockhash, generateKeyPairSigner, type KeyPairSigner } from '@solana/kit';
import { startSolanaLedger } from './index.ts';
import { Ledger } from './ledger.ts';
import { type Lifetime, signInstructionsBase64, transferInstruction } from './sign.ts';

export type SolanaLedgerBench = {
  /** Transactions per second accepted and executed by the ledger, end to end over HTTP. */
  transactionsPerSecond: number;
  transactions: number;
  concurrency: number;
  seconds: number;
  /** Transactions the ledger reported processed afterwards (equals `transactions` unless something was lost). */
  processed: number;
  /** The same work submitted in process, without HTTP and JSON (the ledger's ceiling). */
  inProcessTransactionsPerSecond: number;
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
  const transactions = options.transactions ?? 1000;
  const concurrency = options.concurrency ?? 4;
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
    const wires = await signTransfers(payer, payee.address, lifetime, transactions);
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
      inProcessTransactionsPerSecond: await inProcess(transactions),
    };
  } finally {
    await ledger.stop();
  }
}

async function signTransfers(
  payer: KeyPairSigner,
  payee: Address,
  lifetime: Lifetime,
  count: number,
): Promise<string[]> {
  const wires: string[] = [];
  for (let i = 0; i < count; i++) {
    wires.push(
      await signInstructionsBase64(payer, [transferInstruction(payer, payee, BigInt(1000 + i))], lifetime),
    );
  }
  return wires;
}

async function inProcess(transactions: number): Promise<number> {
  const ledger = await Ledger.open();
  try {
    const payer = await generateKeyPairSigner();
    const payee = await generateKeyPairSigner();
    await ledger.airdrop(payer.address, 1_000_000_000_000n);
    await ledger.airdrop(payee.address, 1_000_000_000n);
    const { blockhash: hash, lastValidBlockHeight } = ledger.latestBlockhash('processed');
    const lifetime = { blockhash: blockhash(hash), lastValidBlockHeight: BigInt(lastValidBlockHeight) };
    const wires = (await signTransfers(payer, payee.address, lifetime, transactions)).map(
      (wire) => new Uint8Array(Buffer.from(wire, 'base64')),
    );
    const started = performance.now();
    for (const wire of wires) ledger.submit(wire);
    return Math.round(transactions / ((performance.now() - started) / 1000));
  } finally {
    ledger.close();
  }
}
