/**
 * The ledger: LiteSVM executes transactions; this class gives it what a cluster has and LiteSVM
 * lacks — slots with commitment levels, per-slot blockhashes with a 150-slot validity window,
 * blockTime, status and history of every transaction (in {@link LedgerStore}), a faucet, and
 * persistence of the account state.
 *
 * Account state survives a restart as a LiteSVM snapshot (`accounts.snapshot`, written every few
 * seconds and on stop) plus a replay of the transactions stored after it: the history in SQLite is
 * the source of truth, the snapshot only shortens the replay.
 */

import {
  type Address,
  getBase58Decoder,
  getTransactionEncoder,
  type KeyPairSigner,
  blockhash as toBlockhash,
} from '@solana/kit';
import { FailedTransactionMetadata, type LiteSVM, type TransactionMetadata } from 'litesvm';
import type { LiteSvm } from 'litesvm/dist/internal.js';
import {
  describeTransactionError,
  isCommittedError,
  type TransactionErrorJson,
  transactionErrorJson,
} from './errors.ts';
import { sha256 } from './hash.ts';
import {
  CONFIRMATION_DEPTH,
  type Commitment,
  FINALIZATION_DEPTH,
  LAMPORTS_PER_SIGNATURE,
  type LedgerAccount,
  type LedgerEvent,
  type LedgerOpenOptions,
  MAX_PROCESSING_AGE,
  type SignatureEntry,
  type Simulation,
} from './ledger-types.ts';
import { preflightFailure, signatureFailure } from './preflight.ts';
import { type LedgerInit, restoreLedger } from './restore.ts';
import { signInstructions, transferInstruction } from './sign.ts';
import { ledgerAccount, simulateOn } from './simulate.ts';
import { snapshotPath, writeSnapshot } from './snapshot.ts';
import type { LedgerStore, SignatureRow, StoredTransaction } from './store.ts';
import { accountKeyBytes, type DecodedTransaction, decodeTransaction } from './transaction.ts';

export {
  CONFIRMATION_DEPTH,
  type Commitment,
  encodeReturnData,
  FINALIZATION_DEPTH,
  LAMPORTS_PER_SIGNATURE,
  type LedgerAccount,
  type LedgerEvent,
  type LedgerOpenOptions,
  MAX_PROCESSING_AGE,
  RENT_EXEMPT_EPOCH,
  type SignatureEntry,
  type Simulation,
} from './ledger-types.ts';

const base58 = getBase58Decoder();
const _transactionEncoder = getTransactionEncoder();

export class Ledger {
  readonly genesisHash: string;
  readonly faucet: KeyPairSigner;
  readonly #store: LedgerStore;
  readonly #dataDir: string | undefined;
  readonly #log: (line: string) => void;
  #svm: LiteSVM;
  #slot: number;
  #slotTime: number;
  #positionInSlot = 0;
  #blockRecorded = false;
  readonly #blockhashSlots = new Map<string, number>();
  #snapshotSeq: number;
  #lastSeq: number;
  #closed = false;
  readonly #listeners = new Set<(event: LedgerEvent) => void>();
  /** Signatures executed in the last MAX_PROCESSING_AGE slots (the status cache), by slot. */
  readonly #recent = new Set<string>();
  readonly #recentBySlot = new Map<number, string[]>();

  private constructor(init: LedgerInit) {
    this.#store = init.store;
    this.#dataDir = init.dataDir;
    this.#log = init.log;
    this.genesisHash = init.genesisHash;
    this.faucet = init.faucet;
    this.#svm = init.svm;
    this.#slot = init.slot;
    this.#slotTime = Math.floor(Date.now() / 1000);
    this.#snapshotSeq = init.snapshotSeq;
    this.#lastSeq = init.lastSeq;
    for (let s = Math.max(0, this.#slot - 2 * MAX_PROCESSING_AGE); s <= this.#slot; s++) {
      this.#blockhashSlots.set(this.blockhashOf(s), s);
    }
    for (const { signature, slot } of this.#store.signaturesSince(this.#slot - MAX_PROCESSING_AGE)) {
      this.#remember(signature, slot);
    }
    this.#syncClock();
    this.#store.setMeta('slot', String(this.#slot));
  }

  #remember(signature: string, slot: number): void {
    this.#recent.add(signature);
    const list = this.#recentBySlot.get(slot);
    if (list) list.push(signature);
    else this.#recentBySlot.set(slot, [signature]);
  }

  /** Opens (or creates) a ledger; replays stored transactions so the account state is restored. */
  static async open(options: LedgerOpenOptions = {}): Promise<Ledger> {
    return new Ledger(await restoreLedger(options));
  }

  /** The newest slot (what `processed` reads). */
  get slot(): number {
    return this.#slot;
  }

  get transactionCount(): number {
    return this.#lastSeq;
  }

  /** Transactions executed in slots visible at `commitment`. */
  transactionCountAt(commitment: Commitment): number {
    return commitment === 'processed' ? this.#lastSeq : this.#store.countUpTo(this.slotAt(commitment));
  }

  slotAt(commitment: Commitment): number {
    if (commitment === 'processed') return this.#slot;
    const depth = commitment === 'confirmed' ? CONFIRMATION_DEPTH : FINALIZATION_DEPTH;
    return Math.max(0, this.#slot - depth);
  }

  /** Every slot is a block here (no leader skips), so block height equals slot. */
  blockHeightAt(commitment: Commitment): number {
    return this.slotAt(commitment);
  }

  confirmationStatus(slot: number): Commitment {
    if (slot <= this.slotAt('finalized')) return 'finalized';
    if (slot <= this.slotAt('confirmed')) return 'confirmed';
    return 'processed';
  }

  /** The blockhash of a slot: derived from the genesis hash, so it is stable across restarts. */
  blockhashOf(slot: number): string {
    const bytes = new Uint8Array(8);
    new DataView(bytes.buffer).setBigUint64(0, BigInt(slot), true);
    return base58.decode(sha256(this.genesisHash, bytes));
  }

  latestBlockhash(commitment: Commitment): { slot: number; blockhash: string; lastValidBlockHeight: number } {
    const slot = this.slotAt(commitment);
    return { slot, blockhash: this.blockhashOf(slot), lastValidBlockHeight: slot + MAX_PROCESSING_AGE };
  }

  isBlockhashValid(blockhash: string): boolean {
    const slot = this.#blockhashSlots.get(blockhash);
    return slot !== undefined && this.#slot - slot <= MAX_PROCESSING_AGE;
  }

  /** Produces the next slot (called by the clock). */
  advanceSlot(): void {
    if (this.#closed) return;
    this.#slot += 1;
    this.#slotTime = Math.floor(Date.now() / 1000);
    this.#positionInSlot = 0;
    this.#blockRecorded = false;
    this.#blockhashSlots.set(this.blockhashOf(this.#slot), this.#slot);
    const expired = this.#slot - 2 * MAX_PROCESSING_AGE;
    if (expired >= 0) this.#blockhashSlots.delete(this.blockhashOf(expired));
    const forgotten = this.#slot - MAX_PROCESSING_AGE - 1;
    for (const signature of this.#recentBySlot.get(forgotten) ?? []) this.#recent.delete(signature);
    this.#recentBySlot.delete(forgotten);
    this.#syncClock();
    this.#store.setMeta('slot', String(this.#slot));
    this.#emit('slot');
  }

  /** Calls `listener` after every new slot and every executed transaction; returns the unsubscriber. */
  listen(listener: (event: LedgerEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #emit(event: LedgerEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch (error) {
        this.#log(`solana: subscriber failed: ${(error as Error).message}`);
      }
    }
  }

  /**
   * LiteSVM's native instance, for balance reads by raw key bytes (the wrapper re-encodes base-58
   * on every call). `inner` is a private field of litesvm 1.5.0's wrapper, which is pinned.
   */
  get #inner(): LiteSvm {
    return (this.#svm as unknown as { inner: LiteSvm }).inner;
  }

  #syncClock(): void {
    const clock = this.#svm.getClock();
    clock.slot = BigInt(this.#slot);
    clock.unixTimestamp = BigInt(this.#slotTime);
    this.#svm.setClock(clock);
  }

  /**
   * sendTransaction: checks and (unless skipPreflight) simulates, then executes in the newest slot.
   * Returns the signature. Like a cluster, a transaction that cannot land (stale blockhash, fee
   * payer without funds) is dropped when preflight is skipped and refused with -32002 otherwise.
   */
  submit(wire: Uint8Array, options: { skipPreflight?: boolean } = {}): string {
    const tx = decodeTransaction(wire);
    // A duplicate can only carry a blockhash that is still valid if it ran in the last 150 slots.
    if (this.#recent.has(tx.signature)) {
      if (options.skipPreflight) return tx.signature;
      throw preflightFailure({ err: 'AlreadyProcessed', logs: [], unitsConsumed: 0n, returnData: null });
    }
    if (!this.isBlockhashValid(tx.recentBlockhash)) {
      if (options.skipPreflight) {
        this.#log(`solana: dropped ${tx.signature}: blockhash not found`);
        return tx.signature;
      }
      throw preflightFailure({ err: 'BlockhashNotFound', logs: [], unitsConsumed: 0n, returnData: null });
    }
    if (!options.skipPreflight) {
      const simulation = this.#simulate(tx, true);
      if (simulation.err === 'SignatureFailure') throw signatureFailure();
      if (simulation.err !== null) throw preflightFailure(simulation);
    }
    return this.#execute(tx, wire);
  }

  #execute(tx: DecodedTransaction, wire: Uint8Array): string {
    const keys = accountKeyBytes(tx.transaction.messageBytes);
    const preBalances = keys.map((key) => this.#inner.getBalance(key) ?? 0n);
    let result: TransactionMetadata | FailedTransactionMetadata;
    try {
      result = this.#svm.sendTransaction(tx.transaction);
    } catch {
      throw signatureFailure(); // kit's assertIsFullySignedTransaction: a signature is missing
    }
    let err: TransactionErrorJson | null = null;
    let meta: TransactionMetadata;
    if (result instanceof FailedTransactionMetadata) {
      err = transactionErrorJson(result.err());
      meta = result.meta();
      if (!isCommittedError(err)) {
        if (err === 'SignatureFailure') throw signatureFailure();
        this.#log(`solana: dropped ${tx.signature}: ${describeTransactionError(err)}`);
        return tx.signature;
      }
    } else {
      meta = result;
    }
    const postBalances = keys.map((key) => this.#inner.getBalance(key) ?? 0n);
    if (!this.#blockRecorded) {
      this.#store.recordBlock(this.#slot, this.#slotTime, this.blockhashOf(this.#slot));
      this.#blockRecorded = true;
    }
    this.#lastSeq = this.#store.recordTransaction({
      signature: tx.signature,
      slot: this.#slot,
      position: this.#positionInSlot++,
      blockTime: this.#slotTime,
      err,
      memo: tx.memo,
      wire,
      meta: {
        fee: String(LAMPORTS_PER_SIGNATURE * BigInt(tx.header.numRequiredSignatures)),
        preBalances: preBalances.map(String),
        postBalances: postBalances.map(String),
        logMessages: meta.logs(),
        computeUnitsConsumed: String(meta.computeUnitsConsumed()),
      },
      accounts: tx.accountKeys,
    });
    this.#remember(tx.signature, this.#slot);
    this.#emit('transaction');
    return tx.signature;
  }

  /** simulateTransaction. Without replaceRecentBlockhash an unknown blockhash fails as on a cluster. */
  simulate(wire: Uint8Array, options: { sigVerify: boolean; replaceRecentBlockhash: boolean }): Simulation {
    const tx = decodeTransaction(wire);
    if (!options.replaceRecentBlockhash && !this.isBlockhashValid(tx.recentBlockhash)) {
      return {
        err: 'BlockhashNotFound',
        logs: [],
        unitsConsumed: 0n,
        returnData: null,
        postAccounts: () => new Map(),
      };
    }
    return this.#simulate(tx, options.sigVerify);
  }

  #simulate(tx: DecodedTransaction, sigVerify: boolean): Simulation {
    return simulateOn(this.#svm, tx, sigVerify);
  }

  /** requestAirdrop: a real System transfer from the ledger's faucet, recorded like any other. */
  async airdrop(to: Address, amount: bigint): Promise<string> {
    const { blockhash, lastValidBlockHeight } = this.latestBlockhash('processed');
    const wire = await signInstructions(
      this.faucet,
      [transferInstruction(this.faucet, to, amount)],
      { blockhash: toBlockhash(blockhash), lastValidBlockHeight: BigInt(lastValidBlockHeight) },
      'legacy',
    );
    return this.submit(wire);
  }

  getAccount(key: Address): LedgerAccount | null {
    const account = this.#svm.getAccount(key);
    return account.exists ? ledgerAccount(account) : null;
  }

  getBalance(key: Address): bigint {
    return this.#svm.getBalance(key) ?? 0n;
  }

  minimumBalanceForRentExemption(dataLength: number): bigint {
    return this.#svm.minimumBalanceForRentExemption(BigInt(dataLength));
  }

  /** A stored transaction, if it is visible at `commitment`. */
  getTransaction(signature: string, commitment: Commitment = 'processed'): StoredTransaction | undefined {
    const tx = this.#store.getTransaction(signature);
    return tx && tx.slot <= this.slotAt(commitment) ? tx : undefined;
  }

  /**
   * getSignaturesForAddress over the history visible at `commitment`, newest first. `before` that
   * is unknown (or not yet visible) gives an empty page; `until` that is unknown does not bound it.
   */
  signaturesForAddress(
    key: string,
    options: { before?: string; until?: string; limit: number; commitment: Commitment },
  ): SignatureEntry[] {
    const maxSlot = this.slotAt(options.commitment);
    let beforeSeq = Number.MAX_SAFE_INTEGER;
    if (options.before !== undefined) {
      const before = this.#store.getTransaction(options.before);
      if (!before || before.slot > maxSlot) return [];
      beforeSeq = before.seq;
    }
    let untilSeq = 0;
    if (options.until !== undefined) {
      const until = this.#store.getTransaction(options.until);
      if (until && until.slot <= maxSlot) untilSeq = until.seq;
    }
    return this.#store
      .signaturesForAddress(key, beforeSeq, untilSeq, maxSlot, options.limit)
      .map((row: SignatureRow) => ({
        signature: row.signature,
        slot: row.slot,
        err: row.err,
        memo: row.memo,
        blockTime: row.blockTime,
        confirmationStatus: this.confirmationStatus(row.slot),
      }));
  }

  /** Writes the account snapshot if transactions were executed since the last one. */
  saveSnapshot(): void {
    if (!this.#dataDir || this.#lastSeq === this.#snapshotSeq) return;
    writeSnapshot(snapshotPath(this.#dataDir), this.#svm, this.#lastSeq);
    this.#snapshotSeq = this.#lastSeq;
  }

  close(): void {
    if (this.#closed) return;
    this.saveSnapshot();
    this.#closed = true;
    this.#store.close();
  }
}
