// The account state on disk: a LiteSVM snapshot prefixed with the sequence number of the last
// transaction it contains (8 bytes, little endian), so a restart replays only what came after.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LiteSVM } from 'litesvm';

const SNAPSHOT_FILE = 'accounts.snapshot';

export function snapshotPath(dataDir: string): string {
  return join(dataDir, SNAPSHOT_FILE);
}

/**
 * The snapshot at `path` and its sequence number; undefined when there is none. Throws when it
 * cannot be read or is ahead of `lastSeq`, the newest stored transaction (history lost its last
 * writes): such a snapshot cannot be trusted.
 */
export function readSnapshot(path: string, lastSeq: number): { svm: LiteSVM; seq: number } | undefined {
  if (!existsSync(path)) return undefined;
  const file = new Uint8Array(readFileSync(path));
  const header = new DataView(file.buffer, file.byteOffset, 8);
  const seq = Number(header.getBigUint64(0, true));
  if (seq > lastSeq) throw new Error('snapshot is ahead of the stored history');
  return { svm: LiteSVM.fromBytes(file.subarray(8)), seq };
}

/** Writes the snapshot through a temporary file, so a crash leaves the old one whole. */
export function writeSnapshot(path: string, svm: LiteSVM, seq: number): void {
  const state = svm.toBytes();
  const file = new Uint8Array(8 + state.length);
  new DataView(file.buffer).setBigUint64(0, BigInt(seq), true);
  file.set(state, 8);
  writeFileSync(`${path}.tmp`, file);
  renameSync(`${path}.tmp`, path);
}
