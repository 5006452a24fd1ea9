// MFA building blocks (issue 6): threshold shares of the coreKitKey and the factor encodings.
// Used by the service (setup, in `complete()` of @portico/auth-server) and by `Auth` (rebuilding the key).
import { gcm } from '@noble/ciphers/aes.js';
import { scryptAsync } from '@noble/hashes/scrypt.js';
import { bytesToHex, hexToBytes, randomBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { entropyToMnemonic, mnemonicToEntropy, validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { combine, split } from 'shamir-secret-sharing';

/** Any two shares rebuild the key. */
export const SHARE_THRESHOLD = 2;

/** A share: the 32-byte value and its x-coordinate (1..255), which is public metadata. */
export interface KeyShare {
  index: number;
  /** 64 hex characters. */
  value: string;
}

/**
 * Splits a 32-byte key (hex) into `count` shares, any two of which rebuild it (Shamir over
 * GF(256), `shamir-secret-sharing`, independently audited).
 */
export async function splitKey(keyHex: string, count: number): Promise<KeyShare[]> {
  if (!/^[0-9a-f]{64}$/.test(keyHex)) throw new Error('splitKey: key must be 64 lowercase hex characters');
  if (!Number.isInteger(count) || count < SHARE_THRESHOLD || count > 16) {
    throw new Error('splitKey: between 2 and 16 shares');
  }
  const shares = await split(hexToBytes(keyHex), count, SHARE_THRESHOLD);
  return shares.map((s) => ({ index: s[32], value: bytesToHex(s.slice(0, 32)) }));
}

/** Rebuilds the key (hex) from two shares with different indices. */
export async function combineShares(a: KeyShare, b: KeyShare): Promise<string> {
  if (a.index === b.index) throw new Error('combineShares: two different shares are needed');
  const encode = (s: KeyShare) => Uint8Array.from([...hexToBytes(s.value), s.index]);
  return bytesToHex(await combine([encode(a), encode(b)]));
}

/** The backup phrase: the share's 32-byte value as 24 BIP-39 English words (its index stays in metadata). */
export function shareToMnemonic(share: KeyShare): string {
  return entropyToMnemonic(hexToBytes(share.value), wordlist);
}

/** Reads a backup phrase; a mistyped or foreign phrase fails its checksum ("Invalid backup phrase"). */
export function mnemonicToShare(mnemonic: string, index: number): KeyShare {
  const words = mnemonic.trim().toLowerCase().split(/\s+/).join(' ');
  if (words.split(' ').length !== 24 || !validateMnemonic(words, wordlist)) {
    throw new Error('Invalid backup phrase');
  }
  return { index, value: bytesToHex(mnemonicToEntropy(words, wordlist)) };
}

const SCRYPT = { N: 2 ** 15, r: 8, p: 1, dkLen: 32 };

/** The password factor: the share sealed with AES-256-GCM under a key stretched by scrypt. */
export async function sealShareWithPassword(share: KeyShare, password: string): Promise<string> {
  if (password.length < 8) throw new Error('The password needs at least 8 characters');
  const salt = randomBytes(16);
  const nonce = randomBytes(12);
  const key = await scryptAsync(utf8ToBytes(password.normalize('NFKC')), salt, SCRYPT);
  const aad = utf8ToBytes(`portico-mfa-password:${share.index}`);
  const ct = gcm(key, nonce, aad).encrypt(hexToBytes(share.value));
  return JSON.stringify({
    v: 1,
    kdf: 'scrypt',
    ...SCRYPT,
    salt: bytesToHex(salt),
    nonce: bytesToHex(nonce),
    index: share.index,
    ct: bytesToHex(ct),
  });
}

/** Opens the password factor; a wrong password fails with "Wrong password". */
export async function openShareWithPassword(sealed: string, password: string): Promise<KeyShare> {
  const s = JSON.parse(sealed) as {
    v: number;
    N: number;
    r: number;
    p: number;
    salt: string;
    nonce: string;
    index: number;
    ct: string;
  };
  if (s.v !== 1) throw new Error(`Unknown password share version ${s.v}`);
  const key = await scryptAsync(utf8ToBytes(password.normalize('NFKC')), hexToBytes(s.salt), {
    N: s.N,
    r: s.r,
    p: s.p,
    dkLen: 32,
  });
  try {
    const value = gcm(key, hexToBytes(s.nonce), utf8ToBytes(`portico-mfa-password:${s.index}`)).decrypt(
      hexToBytes(s.ct),
    );
    return { index: s.index, value: bytesToHex(value) };
  } catch {
    throw new Error('Wrong password');
  }
}

/**
 * The share of the same 2-of-n split at another x-coordinate, from two known shares. Shamir over
 * GF(256) adds by XOR, so g(x) = f(x XOR index) is a polynomial of the same degree with
 * g(0) = f(index): the audited `combine` interpolates g from the two shares with their indices
 * relabelled. Only the indices are touched here, no field arithmetic.
 */
export async function shareAt(a: KeyShare, b: KeyShare, index: number): Promise<KeyShare> {
  if (!Number.isInteger(index) || index < 1 || index > 255) throw new Error('shareAt: index 1..255');
  if (index === a.index || index === b.index) throw new Error('shareAt: index already taken');
  const value = await combineShares(
    { index: a.index ^ index, value: a.value },
    { index: b.index ^ index, value: b.value },
  );
  return { index, value };
}

/** Seals a share under a 32-byte wrapping key (AES-256-GCM, index bound): the device factor's at-rest form. */
export function sealShareWithKey(share: KeyShare, wrapKeyHex: string): string {
  const nonce = randomBytes(12);
  const aad = utf8ToBytes(`portico-mfa-device:${share.index}`);
  const ct = gcm(hexToBytes(wrapKeyHex), nonce, aad).encrypt(hexToBytes(share.value));
  return JSON.stringify({ v: 1, index: share.index, nonce: bytesToHex(nonce), ct: bytesToHex(ct) });
}

/** Opens a share sealed by `sealShareWithKey`; a wrong key fails with "Device share could not be opened". */
export function openShareWithKey(sealed: string, wrapKeyHex: string): KeyShare {
  const s = JSON.parse(sealed) as { v: number; index: number; nonce: string; ct: string };
  try {
    const aad = utf8ToBytes(`portico-mfa-device:${s.index}`);
    const value = gcm(hexToBytes(wrapKeyHex), hexToBytes(s.nonce), aad).decrypt(hexToBytes(s.ct));
    return { index: s.index, value: bytesToHex(value) };
  } catch {
    throw new Error('Device share could not be opened');
  }
}
