import { createHash } from 'node:crypto';

/** SHA-256 of the parts, one after another (the ledger derives its faucet key and blockhashes so). */
export function sha256(...parts: (string | Uint8Array)[]): Uint8Array {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return new Uint8Array(hash.digest());
}
