// Opening a ledger: the store (SQLite, or in memory without a data directory), the genesis hash
// and faucet of this ledger, and the account state — the snapshot plus a replay of the
// transactions stored after it, or a replay of the whole history.
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  address,
  createKeyPairSignerFromPrivateKeyBytes,
  getBase58Decoder,
  type KeyPairSigner,
  lamports,
} from '@solana/kit';
import { LiteSVM } from 'litesvm';
import { sha256 } from './hash.ts';
import { FAUCET_LAMPORTS, type LedgerOpenOptions } from './ledger-types.ts';
import { readSnapshot, snapshotPath } from './snapshot.ts';
import { LedgerStore } from './store.ts';
import { decodeTransaction } from './transaction.ts';

const base58 = getBase58Decoder();

/** What a Ledger starts from. */
export interface LedgerInit {
  store: LedgerStore;
  dataDir: string | undefined;
  log: (line: string) => void;
  genesisHash: string;
  faucet: KeyPairSigner;
  svm: LiteSVM;
  slot: number;
  snapshotSeq: number;
  lastSeq: number;
}

export async function restoreLedger(options: LedgerOpenOptions = {}): Promise<LedgerInit> {
  const log = options.onLog ?? (() => {});
  const dataDir = options.dataDir;
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const store = new LedgerStore(dataDir ? join(dataDir, 'ledger.sqlite') : ':memory:');
  let genesisHash = store.getMeta('genesis_hash');
  const fresh = genesisHash === undefined;
  if (genesisHash === undefined) {
    genesisHash = base58.decode(randomBytes(32));
    store.setMeta('genesis_hash', genesisHash);
  }
  const faucet = await createKeyPairSignerFromPrivateKeyBytes(sha256('portico/solana-faucet/', genesisHash));

  let svm: LiteSVM | undefined;
  let snapshotSeq = 0;
  if (!fresh && dataDir) {
    try {
      const snapshot = readSnapshot(snapshotPath(dataDir), store.lastSeq());
      if (snapshot) ({ svm, seq: snapshotSeq } = snapshot);
    } catch (error) {
      log(`solana: ignoring unreadable account snapshot (${(error as Error).message}); replaying history`);
      svm = undefined;
      snapshotSeq = 0;
    }
  }
  if (!svm) {
    svm = new LiteSVM();
    svm.setAccount({
      address: faucet.address,
      lamports: lamports(FAUCET_LAMPORTS),
      data: new Uint8Array(0),
      programAddress: address('11111111111111111111111111111111'),
      executable: false,
      space: 0n,
    });
  }
  // Blockhashes and duplicate signatures are checked by the ledger itself (see Ledger.submit()).
  svm.withBlockhashCheck(false).withTransactionHistory(0n).withSigverify(false);
  let replayed = 0;
  for (const tx of store.transactionsAfter(snapshotSeq)) {
    const clock = svm.getClock();
    clock.slot = BigInt(tx.slot);
    clock.unixTimestamp = BigInt(tx.blockTime);
    svm.setClock(clock);
    svm.sendTransaction(decodeTransaction(tx.wire).transaction);
    replayed++;
  }
  svm.withSigverify(true);
  if (replayed > 0) log(`solana: replayed ${replayed} transactions onto the account state`);
  const storedSlot = store.getMeta('slot');
  const slot = storedSlot === undefined ? 1 : Number(storedSlot) + 1;
  return { store, dataDir, log, genesisHash, faucet, svm, slot, snapshotSeq, lastSeq: store.lastSeq() };
}
