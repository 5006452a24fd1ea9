/**
 * Persistence of the ledger's history in SQLite (libsql): transactions with their status, the
 * account-key index behind getSignaturesForAddress, blocks, and a few meta values.
 * `seq` numbers transactions in execution order, so reverse chronological = `seq DESC`.
 */
import Database from 'libsql';
import type { TransactionErrorJson } from './errors.ts';

export type TransactionMeta = {
  fee: string;
  preBalances: string[];
  postBalances: string[];
  logMessages: string[];
  computeUnitsConsumed: string;
};

export type StoredTransaction = {
  seq: number;
  signature: string;
  slot: number;
  blockTime: number;
  err: TransactionErrorJson | null;
  memo: string | null;
  wire: Uint8Array;
  meta: TransactionMeta;
};

export type NewTransaction = Omit<StoredTransaction, 'seq'> & {
  position: number;
  accounts: readonly string[];
};

export type SignatureRow = {
  seq: number;
  signature: string;
  slot: number;
  err: TransactionErrorJson | null;
  memo: string | null;
  blockTime: number;
};

type TxRow = {
  seq: number;
  signature: string;
  slot: number;
  block_time: number;
  err: string | null;
  memo: string | null;
  wire: Uint8Array;
  meta: string;
};

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS blocks (slot INTEGER PRIMARY KEY, block_time INTEGER NOT NULL, blockhash TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS transactions (
  seq INTEGER PRIMARY KEY,
  signature TEXT NOT NULL UNIQUE,
  slot INTEGER NOT NULL,
  position INTEGER NOT NULL,
  block_time INTEGER NOT NULL,
  err TEXT,
  memo TEXT,
  wire BLOB NOT NULL,
  meta TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS address_signatures (
  address TEXT NOT NULL,
  seq INTEGER NOT NULL,
  PRIMARY KEY (address, seq)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS transactions_slot ON transactions (slot);
`;

export class LedgerStore {
  readonly #db: Database.Database;
  readonly #insertTx: Database.Statement<unknown[]>;
  readonly #insertAddress: Database.Statement<unknown[]>;
  readonly #insertBlock: Database.Statement<unknown[]>;
  readonly #bySignature: Database.Statement<unknown[]>;
  readonly #history: Database.Statement<unknown[]>;
  readonly #setMeta: Database.Statement<unknown[]>;
  readonly #getMeta: Database.Statement<unknown[]>;
  readonly #record: (tx: NewTransaction) => number;

  /** `path` of the SQLite file, or `:memory:` for a ledger that keeps nothing. */
  constructor(path: string) {
    this.#db = new Database(path);
    if (path !== ':memory:') {
      this.#db.pragma('journal_mode = WAL');
      this.#db.pragma('synchronous = NORMAL');
    }
    this.#db.exec(SCHEMA);
    this.#insertTx = this.#db.prepare(
      'INSERT INTO transactions (signature, slot, position, block_time, err, memo, wire, meta) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    );
    this.#insertAddress = this.#db.prepare(
      'INSERT OR IGNORE INTO address_signatures (address, seq) VALUES (?, ?)',
    );
    this.#insertBlock = this.#db.prepare(
      'INSERT OR IGNORE INTO blocks (slot, block_time, blockhash) VALUES (?, ?, ?)',
    );
    this.#bySignature = this.#db.prepare('SELECT * FROM transactions WHERE signature = ?');
    this.#history = this.#db.prepare(
      `SELECT t.seq, t.signature, t.slot, t.err, t.memo, t.block_time FROM address_signatures a
       JOIN transactions t ON t.seq = a.seq
       WHERE a.address = ? AND a.seq < ? AND a.seq > ? AND t.slot <= ?
       ORDER BY a.seq DESC LIMIT ?`,
    );
    this.#setMeta = this.#db.prepare(
      'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
    );
    this.#getMeta = this.#db.prepare('SELECT value FROM meta WHERE key = ?');
    this.#record = this.#db.transaction((tx: NewTransaction): number => {
      const result = this.#insertTx.run(
        tx.signature,
        tx.slot,
        tx.position,
        tx.blockTime,
        tx.err === null ? null : JSON.stringify(tx.err),
        tx.memo,
        Buffer.from(tx.wire),
        JSON.stringify(tx.meta),
      );
      const seq = Number(result.lastInsertRowid);
      for (const account of new Set(tx.accounts)) this.#insertAddress.run(account, seq);
      return seq;
    });
  }

  getMeta(key: string): string | undefined {
    // (libsql's pluck() still returns row objects, so columns are read by name.)
    const row = this.#getMeta.get(key) as { value?: unknown } | undefined;
    return typeof row?.value === 'string' ? row.value : undefined;
  }

  setMeta(key: string, value: string): void {
    this.#setMeta.run(key, value);
  }

  recordBlock(slot: number, blockTime: number, blockhash: string): void {
    this.#insertBlock.run(slot, blockTime, blockhash);
  }

  /** Stores a processed transaction and indexes it under every account key; returns its seq. */
  recordTransaction(tx: NewTransaction): number {
    return this.#record(tx);
  }

  getTransaction(signature: string): StoredTransaction | undefined {
    const row = this.#bySignature.get(signature) as TxRow | undefined;
    return row ? fromRow(row) : undefined;
  }

  /** Transactions after `seq`, oldest first (for replaying account state on start). */
  *transactionsAfter(seq: number): Generator<StoredTransaction> {
    const statement = this.#db.prepare('SELECT * FROM transactions WHERE seq > ? ORDER BY seq');
    for (const row of statement.iterate(seq)) yield fromRow(row as TxRow);
  }

  /** Signatures executed in `slot` or later, with their slot (to rebuild the status cache). */
  signaturesSince(slot: number): { signature: string; slot: number }[] {
    return this.#db
      .prepare('SELECT signature, slot FROM transactions WHERE slot >= ? ORDER BY seq')
      .all(slot) as { signature: string; slot: number }[];
  }

  /** Transactions executed in slots up to `slot`. */
  countUpTo(slot: number): number {
    const row = this.#db.prepare('SELECT COUNT(*) AS n FROM transactions WHERE slot <= ?').get(slot) as
      | { n?: unknown }
      | undefined;
    return typeof row?.n === 'number' ? row.n : 0;
  }

  lastSeq(): number {
    const row = this.#db.prepare('SELECT MAX(seq) AS seq FROM transactions').get() as
      | { seq?: unknown }
      | undefined;
    return typeof row?.seq === 'number' ? row.seq : 0;
  }

  /**
   * Signatures touching `address`, newest first: seq strictly between `untilSeq` and `beforeSeq`,
   * in slots up to `maxSlot`, at most `limit`.
   */
  signaturesForAddress(
    address: string,
    beforeSeq: number,
    untilSeq: number,
    maxSlot: number,
    limit: number,
  ): SignatureRow[] {
    const rows = this.#history.all(address, beforeSeq, untilSeq, maxSlot, limit) as {
      seq: number;
      signature: string;
      slot: number;
      err: string | null;
      memo: string | null;
      block_time: number;
    }[];
    return rows.map((row) => ({
      seq: row.seq,
      signature: row.signature,
      slot: row.slot,
      err: row.err === null ? null : (JSON.parse(row.err) as TransactionErrorJson),
      memo: row.memo,
      blockTime: row.block_time,
    }));
  }

  close(): void {
    this.#db.close();
  }
}

function fromRow(row: TxRow): StoredTransaction {
  return {
    seq: row.seq,
    signature: row.signature,
    slot: row.slot,
    blockTime: row.block_time,
    err: row.err === null ? null : (JSON.parse(row.err) as TransactionErrorJson),
    memo: row.memo,
    wire: new Uint8Array(row.wire),
    meta: JSON.parse(row.meta) as TransactionMeta,
  };
}
