import { ed25519 } from '@noble/curves/ed25519.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';

/** Order of secp256k1. */
export const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
/** Scalar field of BN254, the MiMC-sponge field. */
const BN254_P = 21888242871839275222246405745257275088548364400416034343698204186575808495617n;
const MIMC_ROUNDS = 220;
const MIMC_SEED = 'mimcsponge';

function bytesToBigInt(bytes: Uint8Array): bigint {
  return bytes.length === 0 ? 0n : BigInt(`0x${bytesToHex(bytes)}`);
}

let constants: bigint[] | undefined;
/** Round constants: keccak256 chain from `MIMC_SEED`, reduced mod p; first and last are zero. */
function mimcConstants(): bigint[] {
  if (constants) return constants;
  const cts = new Array<bigint>(MIMC_ROUNDS).fill(0n);
  let c = keccak_256(utf8ToBytes(MIMC_SEED));
  for (let i = 1; i < MIMC_ROUNDS; i += 1) {
    c = keccak_256(c);
    cts[i] = bytesToBigInt(c) % BN254_P;
  }
  cts[MIMC_ROUNDS - 1] = 0n;
  constants = cts;
  return cts;
}

function pow5(x: bigint): bigint {
  const x2 = (x * x) % BN254_P;
  return (((x2 * x2) % BN254_P) * x) % BN254_P;
}

/** One MiMC-sponge Feistel permutation (220 rounds, x^5) with key `k`; returns xL. */
export function mimcSpongeHash(xLIn: bigint, xRIn: bigint, k: bigint): { xL: bigint; xR: bigint } {
  const cts = mimcConstants();
  let xL = xLIn % BN254_P;
  let xR = xRIn % BN254_P;
  const key = k % BN254_P;
  for (let i = 0; i < MIMC_ROUNDS; i += 1) {
    const t = (xL + key + cts[i]) % BN254_P;
    const tmp = xR;
    if (i < MIMC_ROUNDS - 1) {
      xR = xL;
      xL = (tmp + pow5(t)) % BN254_P;
    } else {
      xR = (tmp + pow5(t)) % BN254_P;
    }
  }
  return { xL, xR };
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const B64_VALUES = new Map<string, number>([...B64].map((ch, i) => [ch, i]));
B64_VALUES.set('-', 62);
B64_VALUES.set('_', 63);

/**
 * Decodes base64 or base64url the lenient way Node's `Buffer.from(s, 'base64')` does (characters
 * outside both alphabets are skipped, decoding stops at `=`), so a clientId gives the same bytes in
 * every runtime.
 */
export function decodeBase64Lenient(input: string): Uint8Array {
  const out: number[] = [];
  let acc = 0;
  let bits = 0;
  for (const ch of input) {
    if (ch === '=') break;
    const v = B64_VALUES.get(ch);
    if (v === undefined) continue;
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push((acc >> bits) & 0xff);
    }
  }
  return Uint8Array.from(out);
}

function normalizeKeyHex(keyHex: string, what: string): string {
  const hex = keyHex.startsWith('0x') ? keyHex.slice(2) : keyHex;
  if (!/^[0-9a-fA-F]{1,64}$/.test(hex)) throw new Error(`${what} must be a hex secp256k1 private key`);
  return hex.padStart(64, '0').toLowerCase();
}

/**
 * The app-scoped key: MiMC-sponge over BN254 of (1, key; k = clientId bytes mod n), as
 * `@toruslabs/openlogin-subkey` computes it, left-padded to 64 hex characters.
 */
export function getAppScopedKey(coreKitKeyHex: string, clientId: string): string {
  const key = BigInt(`0x${normalizeKeyHex(coreKitKeyHex, 'coreKitKey')}`);
  const input = bytesToBigInt(decodeBase64Lenient(clientId)) % SECP256K1_N;
  const { xL } = mimcSpongeHash(1n, key, input);
  return (xL % SECP256K1_N).toString(16).padStart(64, '0');
}

/** The ed25519 secret key for a secp256k1 key used as seed: `seed ‖ publicKey`, 128 hex characters. */
export function getEd25519PrivKey(privKeyHex: string): string {
  const seed = hexToBytes(normalizeKeyHex(privKeyHex, 'privKey'));
  return bytesToHex(seed) + bytesToHex(ed25519.getPublicKey(seed));
}

/** The ed25519 public key (hex) of a `seed ‖ publicKey` secret key. */
export function ed25519PublicKey(ed25519PrivKeyHex: string): string {
  return ed25519PrivKeyHex.slice(64);
}

/** Compressed secp256k1 public key (hex). */
export function secp256k1PublicKey(privKeyHex: string, compressed = true): string {
  return bytesToHex(secp256k1.getPublicKey(hexToBytes(normalizeKeyHex(privKeyHex, 'privKey')), compressed));
}

/** A fresh random secp256k1 private key (hex, 64 characters). */
export function randomPrivKey(): string {
  return bytesToHex(secp256k1.utils.randomSecretKey());
}
