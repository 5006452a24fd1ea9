import { hmac } from '@noble/hashes/hmac';
import { sha512 } from '@noble/hashes/sha2';

const HARDENED = 0x80000000;

/**
 * SLIP-0010 ed25519 key derivation (hardened indices only, as ed25519 requires): the 32-byte
 * private key at `path` (e.g. `m/44'/501'/0'/0'`) from a BIP-39 seed.
 */
export function deriveEd25519PrivateKey(seed: Uint8Array, path: string): Uint8Array {
  let digest = hmac(sha512, new TextEncoder().encode('ed25519 seed'), seed);
  let key = digest.slice(0, 32);
  let chainCode = digest.slice(32);
  const segments = path.split('/');
  if (segments[0] !== 'm') throw new Error(`invalid derivation path: ${path}`);
  for (const segment of segments.slice(1)) {
    const match = /^(\d+)'$/.exec(segment);
    if (!match) throw new Error(`ed25519 derivation needs hardened indices: ${path}`);
    const data = new Uint8Array(37);
    data.set(key, 1);
    new DataView(data.buffer).setUint32(33, (Number(match[1]) + HARDENED) >>> 0);
    digest = hmac(sha512, chainCode, data);
    key = digest.slice(0, 32);
    chainCode = digest.slice(32);
  }
  return key;
}
